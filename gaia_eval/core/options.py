"""A suite's flags, each listed once: the argparse parser and the resume command line are
both generated from one list of `Option`s.

A suite package's `options.py` declares `OPTIONS` (its own flags plus `RUN`, the flags every
suite shares) and `build(args) -> Suite`; `gaia-eval run SUITE` and the suite's older command
both parse with it, and `Options.argv(args)` writes back the command line a run records, so
`--resume DIR` re-runs exactly the run's own settings. Rebuilding from parsed values (not from
what was typed) is what makes a value given through a variable, a default resolved at run
time or an id list narrowed to what was found reproducible in any shell.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from gaia_eval.core.lock import wait_seconds
from gaia_eval.core.rundir import RESULTS_ROOT

Kind = Literal["value", "switch", "on", "off", "append", "optional", "many", "positional"]
"""value: `--flag V`; positional: `V` (the "flag" is its name); switch: `--flag` alone
(True); on/off: `--flag` alone sets True/False (unset: None; a pair of them shares one
dest); append: repeatable `--flag V`; optional: `--flag [V]` (alone means `const`); many:
`--flag V [V ...]` (nargs)."""


def _checked(text: str, kind: Callable[[str], Any], ok: Callable[[Any], bool], what: str) -> Any:
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not ok(value):
        msg = f"expected {what}, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def finite(text: str) -> float:
    """argparse type: a finite float (nan and inf are refused)."""
    _checked(text, float, lambda v: True, "a number")
    return float(_checked(text, float, math.isfinite, "a finite number"))


def positive_int(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    return int(_checked(text, int, lambda v: v >= 1, "a whole number >= 1"))


def alpha(text: str) -> float:
    """argparse type: a significance level within (0, 0.5)."""
    return float(_checked(text, finite, lambda v: 0 < v < 0.5, "a number within (0, 0.5)"))


def seed(text: str) -> int:
    """argparse type: a resampling seed, a whole number within [0, 2**64)."""
    return int(_checked(text, int, lambda v: 0 <= v < 2**64, "a whole number within [0, 2**64)"))


def positive(text: str) -> float:
    """argparse type: a finite number > 0 (a non-finite one is named as such)."""
    return float(_checked(text, finite, lambda v: v > 0, "a number > 0"))


def non_negative(text: str) -> float:
    """argparse type: a finite number >= 0 (a non-finite one is named as such)."""
    return float(_checked(text, finite, lambda v: v >= 0, "a number >= 0"))


@dataclass(frozen=True)
class Option:
    """One flag: how it parses (type, choices, default) and whether a run records it."""

    flag: str
    help: str
    type: Callable[[str], Any] | None = None
    default: Any = None
    choices: Sequence[Any] | None = None
    metavar: str | tuple[str, ...] | None = None
    kind: Kind = "value"
    const: Any = None
    aliases: tuple[str, ...] = ()
    """Older spellings that parse the same (`--suite` for `--tier`)."""
    dest: str | None = None
    exclusive: str | None = None
    """Options naming the same group are mutually exclusive."""
    record: bool = True
    """False for flags a run never records (--resume, --wait-lock: how, not what, it runs)."""
    required: bool = False
    always: bool = False
    """Recorded at its default too (the tier: a resume command says which one it runs)."""

    @property
    def key(self) -> str:
        return self.dest or self.flag.removeprefix("--").replace("-", "_")

    def add_to(self, parser: argparse._ActionsContainer) -> None:
        if self.kind == "positional":
            given: dict[str, Any] = {"type": self.type} if self.type is not None else {}
            parser.add_argument(self.flag, metavar=self.metavar, help=self.help, **given)
            return
        kw: dict[str, Any] = {"help": self.help, "dest": self.key}
        if self.kind == "switch":
            kw["action"] = "store_true"
        elif self.kind in ("on", "off"):
            kw.update(action="store_true" if self.kind == "on" else "store_false", default=None)
        else:
            kw.update(type=self.type, default=self.default, metavar=self.metavar)
            if self.choices is not None:
                kw["choices"] = self.choices
            if self.kind == "append":
                kw["action"] = "append"
                kw["default"] = list(self.default or [])
            elif self.kind == "optional":
                kw.update(nargs="?", const=self.const)
            elif self.kind == "many":
                kw["nargs"] = len(self.metavar) if isinstance(self.metavar, tuple) else "+"
        if self.required:
            kw["required"] = True
        parser.add_argument(self.flag, *self.aliases, **kw)

    def words(self, value: Any, *, legacy: bool = False) -> list[str]:
        """This flag's words in a recorded command line for `value` (none for the default;
        `legacy`: spelled as the older command knows it, `--suite` for `--tier`)."""
        flag = self.aliases[0] if legacy and self.aliases else self.flag
        if self.kind == "off":
            return [flag] if self.record and value is False else []
        if self.kind == "positional":
            return [str(value)] if self.record and value is not None else []
        if not self.record or value is None or value is False or value == "":
            return []
        if self.kind in ("switch", "on"):
            return [flag] if value else []
        if value == self.default and not self.always:
            return []
        if self.kind == "append":
            return [w for v in value for w in (flag, str(v))]
        if self.kind == "many":
            return [flag, *(str(v) for v in value)]
        if self.kind == "optional" and value == self.const:
            return [flag]
        return [flag, _text(value)]


def _text(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return ",".join(str(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class Options:
    """An ordered list of options (and nested lists), optionally shown as one help group."""

    items: tuple[Option | Options, ...]
    title: str | None = None

    @classmethod
    def of(cls, *items: Option | Options, title: str | None = None) -> Options:
        return cls(tuple(items), title)

    def __iter__(self) -> Iterator[Option]:
        for item in self.items:
            if isinstance(item, Options):
                yield from item
            else:
                yield item

    def __getitem__(self, flag: str) -> Option:
        for opt in self:
            if flag in (opt.flag, *opt.aliases):
                return opt
        raise KeyError(flag)

    def add_to(self, parser: argparse._ActionsContainer) -> None:
        """Add every option to `parser` (a group per titled list; exclusive sets grouped)."""
        target = parser.add_argument_group(self.title) if self.title else parser
        groups: dict[str, argparse._ActionsContainer] = {}
        for item in self.items:
            if isinstance(item, Options):
                item.add_to(parser)
            elif item.exclusive is not None:
                if item.exclusive not in groups:
                    groups[item.exclusive] = target.add_mutually_exclusive_group()
                item.add_to(groups[item.exclusive])
            else:
                item.add_to(target)

    def parser(self, prog: str, description: str | None = None) -> argparse.ArgumentParser:
        from gaia_eval.core.argparser import ArgumentParser

        p = ArgumentParser(prog=prog, description=description)
        self.add_to(p)
        return p

    def argv(self, args: argparse.Namespace, *head: str, legacy: bool = False) -> list[str]:
        """The command line that parses back to `args` (defaults left out), after `head`."""
        words = list(head)
        for opt in self:
            words += opt.words(getattr(args, opt.key, None), legacy=legacy)
        return words

    def replacing(self, option: Option) -> Options:
        """These options with `option` in place of the one of its flag (a suite's own
        default or help for a shared flag)."""
        items = tuple(
            option
            if isinstance(o, Option) and o.flag == option.flag
            else (o.replacing(option) if isinstance(o, Options) else o)
            for o in self.items
        )
        return Options(items, self.title)

    def given(self, args: argparse.Namespace) -> list[str]:
        """The flags of these options that `args` set to other than their defaults."""
        return [o.flag for o in self if getattr(args, o.key, None) not in (None, False, o.default)]

    def without(self, *flags: str) -> Options:
        """These options without `flags` (a suite that does not take, say, --gate)."""
        return Options(tuple(o for o in self if o.flag not in flags), self.title)


def tier(choices: tuple[str, ...], default: str | None, help: str) -> Option:
    """The `--tier` of a suite, with `--suite` (its older name) as an alias."""
    return Option(
        "--tier",
        help,
        choices=choices or None,
        default=default,
        aliases=("--suite",),
        dest="suite",
        metavar=None if choices else "TIER",  # argparse shows the choices
        always=True,
    )


WAIT_LOCK = Option(
    "--wait-lock",
    "when another eval holds the machine-wide lock, wait for it (up to SECONDS; no value: "
    "until it is free) instead of exiting 4; says who holds it",
    type=wait_seconds,
    kind="optional",
    const=math.inf,
    metavar="SECONDS",
    record=False,
)

OUT = Option(
    "--out",
    f"run folder (default {RESULTS_ROOT.as_posix()}/<suite>-<timestamp>); must be new or empty",
    Path,
)
RESUME = Option(
    "--resume",
    "finish the run in DIR: runs only items without a result, under its recorded settings "
    "(exit 3 when the code or settings changed)",
    Path,
    metavar="DIR",
)
SHARD = Option(
    "--shard",
    "run shard I of N (a stable hash of item ids); join shards with `gaia-eval merge`",
    metavar="I/N",
)
KEEP_TEMP = Option(
    "--keep-temp",
    "keep the run's temporary work folder (its path is in results.json setup._temp)",
    kind="switch",
)
GATE = Option(
    "--gate",
    "gate against a baseline: a results.json, a run folder, or a shipped name "
    "(`builtin:SUITE/NAME`, listed by `gaia-eval baselines`)",
    metavar="BASELINE",
)
TOLERANCE = Option(
    "--tolerance",
    "allowed metric drop, overriding each rule's default (finite, >= 0)",
    non_negative,
)

JOBS = Option(
    "--jobs",
    "items in flight at once (default: 1 for CPU-bound suites; for model-facing ones the "
    "embedded local model's slot count, or 4 for a remote endpoint); a suite whose items are "
    "not safe to run concurrently refuses more than 1",
    positive_int,
    metavar="N",
    aliases=("-j",),
)
BUDGET_USD = Option(
    "--budget-usd",
    "no new item starts once the items run have cost this much (where the suite knows its "
    "cost); the report says how many were not started",
    non_negative,
    metavar="USD",
)

RUN = Options.of(
    OUT,
    SHARD,
    JOBS,
    BUDGET_USD,
    KEEP_TEMP,
    WAIT_LOCK,
    GATE,
    TOLERANCE,
    RESUME,
    title="run (every suite)",
)
"""The flags every suite shares (a suite that is never gated drops --gate/--tolerance)."""
RUN_UNGATED = RUN.without("--gate", "--tolerance")


@dataclass(frozen=True)
class SuiteCommand:
    """How one registered suite is run from the command line: `gaia-eval run SUITE` and
    its older command (`alias`) both parse `options` and call `main(args)`."""

    suite: str
    """The registered suite (core/suites.toml)."""
    alias: tuple[str, ...]
    """The older command's words after `gaia-eval` (`memory`, `retrieval --component code`)."""
    help: str
    options: Options
    main: Callable[[argparse.Namespace], int]
    epilog: str | None = None

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        if self.epilog:
            parser.epilog = self.epilog
        self.options.add_to(parser)

    def argv(self, args: argparse.Namespace) -> list[str]:
        """The command line a run of `args` records: how it was invoked (`run SUITE` or the
        older command, `args._head`), then every option's words in that command's spelling."""
        head = tuple(getattr(args, "_head", None) or self.alias)
        return self.options.argv(args, *head, legacy=head[0] != "run")


def listed(text: str | None) -> list[str]:
    """`a, b,,c` -> ["a", "b", "c"] (a comma-separated flag's values)."""
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def path_of(value: Path | str | None) -> Path | None:
    """An absolute path (the agent child and a resume run elsewhere), or None."""
    return Path(value).resolve() if value else None


__all__ = [
    "RUN",
    "RUN_UNGATED",
    "Option",
    "Options",
    "SuiteCommand",
    "finite",
    "listed",
    "non_negative",
    "path_of",
    "positive",
    "positive_int",
    "tier",
]

"""Committed baselines by name, so an installed wheel can gate without a checkout.

Baselines ship in the package as `gaia_eval/baselines/<suite>/<name>.json` (unedited
results of real runs). A `--gate` value is, in this order:

- an existing file: used as given;
- `builtin:<suite>/<name>`: the shipped baseline `<suite>/<name>.json`;
- a short name (`pr`, `offline`, ...): the shipped baseline of that name for the command's
  own suite folder.

Anything else is an error listing what ships (`gaia-eval baselines` lists them too).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gaia_eval.core.errors import InvalidInputError

PREFIX = "builtin:"
_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def root() -> Path:
    """The baselines folder inside the installed package."""
    import gaia_eval

    return Path(gaia_eval.__file__).parent / "baselines"


@dataclass(frozen=True)
class Baseline:
    suite: str
    """Folder under gaia_eval/baselines/ (retrieval, code-retrieval, tasks, ...)."""
    name: str
    """File name without `.json`; the short name a suite's `--gate` accepts."""
    path: Path

    @property
    def ref(self) -> str:
        return f"{PREFIX}{self.suite}/{self.name}"


def available(suite: str | None = None) -> list[Baseline]:
    """Every shipped baseline (of one suite folder), sorted by suite and name."""
    base = root()
    folders = [base / suite] if suite else sorted(p for p in base.iterdir() if p.is_dir())
    return [
        Baseline(folder.name, path.stem, path)
        for folder in folders
        if folder.is_dir()
        for path in sorted(folder.glob("*.json"), key=lambda p: p.stem)
    ]


def _known(suite: str) -> str:
    names = [b.ref for b in available(suite)] or [f"none ship for {suite}"]
    return ", ".join(names)


def resolve(value: str, suite: str) -> Path:
    """The file a `--gate` value names for a command whose baselines live in `suite`."""
    if value.startswith(PREFIX):
        ref = value[len(PREFIX) :].removesuffix(".json")
        folder, _, name = ref.partition("/")
        if not (name and _NAME.fullmatch(folder) and _NAME.fullmatch(name)):
            msg = (
                f"{value!r}: write a built-in baseline as builtin:<suite>/<name>, "
                f"e.g. {PREFIX}{suite}/pr"
            )
            raise InvalidInputError(msg)
        path = root() / folder / f"{name}.json"
        if not path.is_file():
            msg = (
                f"{value!r}: no such built-in baseline; shipped: {_known(folder)} "
                "(`gaia-eval baselines` lists every one)"
            )
            raise InvalidInputError(msg)
        return path
    path = Path(value)
    if path.is_file():
        return path
    if path.is_dir():
        msg = f"{value}: is a folder; give its results file (e.g. {value}/results.json)"
        raise InvalidInputError(msg)
    if _NAME.fullmatch(value):
        shipped = root() / suite / f"{value.removesuffix('.json')}.json"
        if shipped.is_file():
            return shipped
    msg = (
        f"{value}: no such file, and no built-in {suite} baseline of that name; give a path, "
        f"or one of {_known(suite)} (short names work too; `gaia-eval baselines` lists them)"
    )
    raise InvalidInputError(msg)


def shipped_label(path: Path) -> str:
    """How a report names a baseline file: shipped ones as `gaia_eval/baselines/<suite>/<name>.json`
    (the same on every machine), any other file as given."""
    try:
        return (
            Path("gaia_eval") / "baselines" / path.resolve().relative_to(root().resolve())
        ).as_posix()
    except ValueError:
        return str(path)


def argument(suite: str) -> Callable[[str], Path]:
    """An argparse `type=` that resolves a baseline value (bad values exit 2 as usage)."""

    def parse(value: str) -> Path:
        try:
            return resolve(value, suite)
        except InvalidInputError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    parse.__name__ = "baseline"  # argparse names the type in some messages
    return parse

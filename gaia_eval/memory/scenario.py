"""Memory scenarios: one person's chats over weeks or months, and the probes that check them.

A scenario is a YAML file (see docs/memory.md for the format). Loading validates it whole and
names every problem by file, chat, turn and field (`maya.yaml: chat c04 (chats[3]) turn 2:
field 'calls[0]': unknown call 'remeber'; use remember, update or forget`), exit 2. Times are
ISO dates or datetimes (UTC), or offsets from the scenario's `start` (`+3w2d`, `+10d4h`); a
turn's offset is from its chat's time. Chats and probes must each go forward in time.

Labels are checked on load: every string a probe names (must_show, must_not_show,
answer_must, store values, parts) must be mentioned by some chat before the probe's time, so
no check can pass for want of anything to find (and no label silently names a typo). An
abstention probe's `unknown` attributes are the reverse: no chat's extract or call before
the probe may state them, so the probe cannot fail for a fact that was in fact said. An
aggregation probe's `parts` must come from at least two different chats.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.yamltext import BoundedLoader, load_yaml
from gaia_eval.systems.memory.protocol import ItemKind, ReminderStatus, Source
from gaia_eval.systems.memory.text import norm_key, term_set

DATA_DIR = Path(__file__).parent / "data"

ProbeKind = Literal[
    "update", "forget", "provenance", "lesson", "reminder", "temporal", "recall",
    "abstention", "aggregation",
]  # fmt: skip
PROBE_KINDS: tuple[ProbeKind, ...] = (
    "update", "forget", "provenance", "lesson", "reminder", "temporal", "recall",
    "abstention", "aggregation",
)  # fmt: skip
REQUIRED_KINDS: tuple[ProbeKind, ...] = ("update", "forget", "provenance", "temporal")
CALLS = ("remember", "update", "forget")

_OFFSET = re.compile(r"^\+(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$")
TimeText = str | date | datetime


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolRecordSpec(_Strict):
    tool: str
    args: str = ""
    output: str = ""
    ok: bool = True


class ExtractSpec(_Strict):
    """One candidate the `pr` extractor answers for a turn (as a plausible model would)."""

    kind: ItemKind = "fact"
    subject: str = "user"
    attribute: str
    value: str
    source: Source = "user"
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    since: TimeText | None = None
    due: TimeText | None = None
    window: str | None = None
    status: ReminderStatus | None = None
    scope: str | None = None


class RememberSpec(ExtractSpec):
    as_: str | None = Field(default=None, alias="as")
    """A label later calls can name the returned item by (`item: <label>`)."""


class TargetSpec(_Strict):
    item: str | None = None
    """A label given by an earlier remember call's `as`."""
    query: str | None = None
    value: str | None = None


class TurnSpec(_Strict):
    user: str
    assistant: str = ""
    at: str | None = None
    tool_record: list[ToolRecordSpec] = []
    extract: list[ExtractSpec] = []
    calls: list[dict[str, Any]] = []


class ChatSpec(_Strict):
    id: str | None = None
    at: TimeText
    reopens: str | None = None
    """Continue an older chat (its id): the agent is fresh, the chat is not."""
    turns: list[TurnSpec] = Field(min_length=1)


Label = str | dict[str, list[str]]


class StoreCheckSpec(_Strict):
    kind: ItemKind | None = None
    subject: str | None = None
    attribute: str | None = None
    value: str | None = None
    source: Source | Literal["any"] = "user"
    state: Literal["current", "superseded", "forgotten", "any"] = "current"
    status: ReminderStatus | None = None


class ProbeSpec(_Strict):
    id: str
    at: TimeText
    kind: ProbeKind
    request: str
    must_show: list[Label] = []
    must_not_show: list[Label] = []
    store_must: list[StoreCheckSpec] = []
    store_must_not: list[StoreCheckSpec] = []
    answer_must: list[Label] = []
    unknown: list[str] = []
    """Abstention: attributes the user never stated (`sister's name`); memory must show
    and store nothing about them, and (`full`) the answer must say it does not know."""
    parts: list[Label] = []
    """Aggregation: pieces said in different chats that the request needs together; all
    of them must be shown in the one context."""
    note: str = ""

    @field_validator("must_show", "must_not_show", "answer_must", "parts")
    @classmethod
    def _labels(cls, labels: list[Label]) -> list[Label]:
        for label in labels:
            if isinstance(label, dict) and (set(label) != {"any"} or not label["any"]):
                msg = "a label is a string or {any: [alternatives]}"
                raise ValueError(msg)
        return labels


class ConsolidateSpec(_Strict):
    values: list[str] = Field(min_length=2)
    attribute: str | None = None
    value: str | None = None
    keep: bool = False


class ScenarioSpec(_Strict):
    persona: str
    description: str = ""
    start: TimeText
    chats: list[ChatSpec] = Field(min_length=1)
    probes: list[ProbeSpec] = Field(min_length=1)
    consolidate: list[ConsolidateSpec] = []


# ---- resolved scenario -------------------------------------------------------------------


class Call(BaseModel):
    model_config = ConfigDict(frozen=True)
    op: Literal["remember", "update", "forget"]
    item: ExtractSpec | None = None
    label: str | None = None
    target: str | None = None
    """The label of an earlier remember (`item:`)."""
    query: str | None = None
    value: str | None = None


class Turn(BaseModel):
    model_config = ConfigDict(frozen=True)
    index: int
    at: datetime
    user: str
    assistant: str
    tool_record: list[ToolRecordSpec]
    extract: list[ExtractSpec]
    calls: list[Call]


class Chat(BaseModel):
    model_config = ConfigDict(frozen=True)
    id: str
    at: datetime
    reopens: str | None
    turns: list[Turn]


class Probe(BaseModel):
    model_config = ConfigDict(frozen=True)
    spec: ProbeSpec
    at: datetime

    @property
    def id(self) -> str:
        return self.spec.id


class Scenario(BaseModel):
    model_config = ConfigDict(frozen=True)
    id: str
    path: str
    persona: str
    description: str
    start: datetime
    chats: list[Chat]
    probes: list[Probe]
    consolidate: list[ConsolidateSpec]

    @property
    def end(self) -> datetime:
        return max([self.chats[-1].turns[-1].at, self.probes[-1].at])


# ---- time --------------------------------------------------------------------------------


def parse_duration(text: str) -> timedelta:
    """`+3w2d4h30m` (also without the plus) -> timedelta; ValueError names the form."""
    m = _OFFSET.match(text.strip() if text.strip().startswith("+") else "+" + text.strip())
    if not m or not any(m.groups()):
        msg = f"{text!r} is not an offset like '+3w2d' or '+4h30m' (w, d, h, m; going forward)"
        raise ValueError(msg)
    w, d, h, mi = (int(g or 0) for g in m.groups())
    return timedelta(weeks=w, days=d, hours=h, minutes=mi)


def resolve_time(value: TimeText, base: datetime) -> datetime:
    """An absolute time from an ISO date/datetime, or `base` plus an offset."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, 9, 0, tzinfo=UTC)
    text = value.strip()
    if text.startswith("-"):
        msg = f"{text!r} goes backwards; offsets count forward from the scenario start"
        raise ValueError(msg)
    if text.startswith("+"):
        return base + parse_duration(text)
    try:
        dt = datetime.fromisoformat(text)
    except ValueError as err:
        msg = f"{text!r} is not an ISO date (2025-03-14), datetime (2025-03-14T09:30) or offset"
        raise ValueError(msg) from err
    if len(text) == 10:
        dt = dt.replace(hour=9)
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


# ---- loading -----------------------------------------------------------------------------


def _where(raw: dict[str, Any], loc: tuple[int | str, ...]) -> str:
    """`chat c04 (chats[3]) turn 2` / `probe p05 (probes[4])` from a pydantic location."""
    parts: list[str] = []
    rest = list(loc)
    if len(rest) >= 2 and rest[0] == "chats" and isinstance(rest[1], int):
        i = rest[1]
        chats = raw.get("chats") or []
        cid = chats[i].get("id") if i < len(chats) and isinstance(chats[i], dict) else None
        parts.append(f"chat {cid or f'c{i + 1:02d}'} (chats[{i}])")
        rest = rest[2:]
        if len(rest) >= 2 and rest[0] == "turns" and isinstance(rest[1], int):
            parts.append(f"turn {rest[1] + 1}")
            rest = rest[2:]
    elif len(rest) >= 2 and rest[0] == "probes" and isinstance(rest[1], int):
        i = rest[1]
        probes = raw.get("probes") or []
        pid = probes[i].get("id") if i < len(probes) and isinstance(probes[i], dict) else None
        parts.append(f"probe {pid or '?'} (probes[{i}])")
        rest = rest[2:]
    field = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in rest).replace(".[", "[")
    return " ".join(parts) + (": " if parts else "") + f"field '{field or '(top level)'}'"


def _fail(path: Path, where: str, problem: str) -> InvalidInputError:
    return InvalidInputError(f"{path}: {where}: {problem}")


class _Loader(BoundedLoader):
    """YAML without implicit timestamps: dates stay text, so a bad one (2025-13-45) is our
    error naming the field, not a ValueError from inside the YAML library."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in BoundedLoader.yaml_implicit_resolvers.items()
}


def load_scenario(path: Path) -> Scenario:
    path = Path(path)
    try:
        raw = load_yaml(path.read_text(encoding="utf-8"), str(path), _Loader)
    except FileNotFoundError as err:
        msg = f"{path}: scenario file not found"
        raise InvalidInputError(msg) from err
    except UnicodeDecodeError as err:
        from gaia_eval.core.results_io import not_utf8

        raise not_utf8(path, err) from err
    except yaml.YAMLError as err:
        msg = f"{path}: not valid YAML: {err}"
        raise InvalidInputError(msg) from err
    if not isinstance(raw, dict):
        msg = f"{path}: a scenario is a YAML mapping with persona, start, chats and probes"
        raise InvalidInputError(msg)
    from gaia_eval.core.jsontext import surrogate_problems

    bad = surrogate_problems(raw)  # YAML "\ud800" escapes parse, then crash any write
    if bad:
        msg = f"{path}: {bad[0]}"
        raise InvalidInputError(msg)
    try:
        spec = ScenarioSpec.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        where = _where(raw, tuple(first["loc"]))
        msg = f"{first['msg']} ({err.error_count()} problem(s) in all)"
        raise _fail(path, where, msg) from err
    return _resolve(path, raw, spec)


def _resolve(path: Path, raw: dict[str, Any], spec: ScenarioSpec) -> Scenario:
    try:
        start = resolve_time(spec.start, datetime(1970, 1, 1, tzinfo=UTC))
    except ValueError as err:
        raise _fail(path, "field 'start'", str(err)) from err
    if isinstance(spec.start, str) and len(spec.start.strip()) == 10:
        start = start.replace(hour=0)  # a start date is the day's beginning; offsets count from it
    chats: list[Chat] = []
    seen_ids: set[str] = set()
    labels: set[str] = set()
    prev = start
    for ci, cs in enumerate(spec.chats):
        cid = cs.id or f"c{ci + 1:02d}"
        where = f"chat {cid} (chats[{ci}])"
        try:
            at = resolve_time(cs.at, start)
        except ValueError as err:
            raise _fail(path, f"{where}: field 'at'", str(err)) from err
        if at < prev:
            msg = (
                f"{at:%Y-%m-%d %H:%M} is before the previous chat or start "
                f"({prev:%Y-%m-%d %H:%M}); chats go forward in time"
            )
            raise _fail(path, f"{where}: field 'at'", msg)
        if cid in seen_ids and cs.reopens is None:
            raise _fail(path, f"{where}: field 'id'", f"duplicate chat id {cid!r}")
        if cs.reopens is not None and cs.reopens not in seen_ids:
            msg = f"reopens {cs.reopens!r}, which no earlier chat is; name an earlier chat's id"
            raise _fail(path, f"{where}: field 'reopens'", msg)
        chat_id = cs.reopens or cid
        seen_ids.add(cid)
        turns = _resolve_turns(path, where, cs, at, labels)
        chats.append(Chat(id=chat_id, at=at, reopens=cs.reopens, turns=turns))
        prev = turns[-1].at
    probes = _resolve_probes(path, spec, start, chats)
    return Scenario(
        id=path.stem,
        path=str(path),
        persona=spec.persona,
        description=spec.description,
        start=start,
        chats=chats,
        probes=probes,
        consolidate=spec.consolidate,
    )


def _resolve_turns(
    path: Path, where: str, cs: ChatSpec, at: datetime, labels: set[str]
) -> list[Turn]:
    turns = []
    t_prev = at
    for ti, ts in enumerate(cs.turns):
        twhere = f"{where} turn {ti + 1}"
        try:
            t_at = resolve_time(ts.at, at) if ts.at else t_prev + timedelta(minutes=1 if ti else 0)
        except ValueError as err:
            raise _fail(path, f"{twhere}: field 'at'", str(err)) from err
        if t_at < t_prev:
            raise _fail(path, f"{twhere}: field 'at'", "goes backwards from the previous turn")
        for ei, ex in enumerate(ts.extract):
            _check_times(path, f"{twhere}: field 'extract[{ei}]'", ex, t_at)
        calls = [
            _call(path, twhere, f"calls[{k}]", c, labels=labels, at=t_at)
            for k, c in enumerate(ts.calls)
        ]
        turns.append(
            Turn(
                index=ti,
                at=t_at,
                user=ts.user,
                assistant=ts.assistant,
                tool_record=ts.tool_record,
                extract=ts.extract,
                calls=calls,
            )
        )
        t_prev = t_at
    return turns


def _check_times(path: Path, where: str, ex: ExtractSpec, base: datetime) -> None:
    for name in ("since", "due"):
        value = getattr(ex, name)
        if value is not None:
            try:
                resolve_time(value, base)
            except ValueError as err:
                raise _fail(path, f"{where}.{name}", str(err)) from err
    if ex.window is not None:
        try:
            parse_duration(ex.window)
        except ValueError as err:
            raise _fail(path, f"{where}.window", str(err)) from err
    if ex.kind == "reminder" and ex.due is None and ex.status is None:
        pass  # a reminder mentioned in passing: allowed, the system must not act on it


def _call(
    path: Path, where: str, field: str, raw: dict[str, Any], *, labels: set[str], at: datetime
) -> Call:
    """One explicit call; `where` names chat and turn, `field` the call (`calls[0]`)."""

    def fail(sub: str, problem: str) -> InvalidInputError:
        return _fail(path, f"{where}: field '{field}{sub}'", problem)

    if len(raw) != 1:
        msg = f"a call is one of {', '.join(CALLS)} with its arguments, got keys {sorted(raw)}"
        raise fail("", msg)
    ((op, args),) = raw.items()
    if op not in CALLS:
        raise fail("", f"unknown call {op!r}; use remember, update or forget")
    if not isinstance(args, dict):
        raise fail(f".{op}", "expected a mapping of arguments")
    try:
        if op == "remember":
            item = RememberSpec.model_validate(args)
            _check_times(path, f"{where}: field '{field}.remember'", item, at)
            if item.as_:
                labels.add(item.as_)
            plain = ExtractSpec.model_validate(item.model_dump(exclude={"as_"}))
            return Call(op="remember", item=plain, label=item.as_)
        target = TargetSpec.model_validate(args)
    except ValidationError as err:
        first = err.errors()[0]
        sub = ".".join(str(p) for p in first["loc"])
        raise fail(f".{op}.{sub}", first["msg"]) from err
    if (target.item is None) == (target.query is None):
        raise fail(f".{op}", "give exactly one of item (a remember label) or query")
    if target.item is not None and target.item not in labels:
        raise fail(f".{op}.item", f"item {target.item!r} names no earlier remember's `as` label")
    if op == "update" and not target.value:
        raise fail(".update.value", "an update needs the new value")
    if op == "forget" and target.value is not None:
        raise fail(".forget.value", "forget takes no value")
    return Call(op=op, target=target.item, query=target.query, value=target.value)  # type: ignore[arg-type]


# ---- probes and labels -------------------------------------------------------------------


def label_alternatives(label: Label) -> list[str]:
    return [label] if isinstance(label, str) else list(label["any"])


def _turn_text(turn: Turn) -> str:
    parts = [turn.user, turn.assistant]
    for rec in turn.tool_record:
        parts += [rec.args, rec.output]
    for ex in [*turn.extract, *(c.item for c in turn.calls if c.item)]:
        parts += [ex.subject, ex.attribute, ex.value, str(ex.due or ""), str(ex.since or "")]
    for c in turn.calls:
        parts += [c.query or "", c.value or ""]
    return norm_key(" ".join(parts))


def _mentioned(label: str, texts: list[str]) -> bool:
    key = norm_key(label)
    return bool(key) and any(key in t for t in texts)


def _unmentioned(label: str, at: datetime) -> str:
    return f"{label!r} is mentioned by no chat before {at:%Y-%m-%d}; fix the label or the time"


def _resolve_probes(
    path: Path, spec: ScenarioSpec, start: datetime, chats: list[Chat]
) -> list[Probe]:
    timeline = [(t.at, _turn_text(t)) for c in chats for t in c.turns]
    probes: list[Probe] = []
    ids: set[str] = set()
    prev = start
    for pi, ps in enumerate(spec.probes):
        where = f"probe {ps.id} (probes[{pi}])"
        if ps.id in ids:
            raise _fail(path, f"{where}: field 'id'", f"duplicate probe id {ps.id!r}")
        ids.add(ps.id)
        try:
            at = resolve_time(ps.at, start)
        except ValueError as err:
            raise _fail(path, f"{where}: field 'at'", str(err)) from err
        if at < prev:
            msg = (
                f"{at:%Y-%m-%d %H:%M} is before the previous probe "
                f"({prev:%Y-%m-%d %H:%M}); probes go forward in time"
            )
            raise _fail(path, f"{where}: field 'at'", msg)
        prev = at
        lists = (ps.must_show, ps.must_not_show, ps.store_must, ps.store_must_not)
        if not (any(lists) or ps.unknown or ps.parts):
            msg = (
                "a probe needs at least one check "
                "(must_show, must_not_show, store_must, store_must_not, unknown, parts)"
            )
            raise _fail(path, where, msg)
        before = [text for t_at, text in timeline if t_at <= at]
        if not before:
            raise _fail(path, f"{where}: field 'at'", "comes before every chat: nothing to probe")
        for field in ("must_show", "must_not_show", "answer_must", "parts"):
            for li, label in enumerate(getattr(ps, field)):
                alts = label_alternatives(label)
                if not any(_mentioned(a, before) for a in alts):
                    msg = _unmentioned(alts[0], at)
                    raise _fail(path, f"{where}: field '{field}[{li}]'", msg)
        for field in ("store_must", "store_must_not"):
            for li, check in enumerate(getattr(ps, field)):
                if not any((check.subject, check.attribute, check.value, check.kind, check.status)):
                    raise _fail(
                        path,
                        f"{where}: field '{field}[{li}]'",
                        "a store check needs subject, attribute, value, kind or status",
                    )
                for name in ("subject", "attribute", "value"):
                    text = getattr(check, name)
                    if text and not _mentioned(text, before):
                        msg = _unmentioned(text, at)
                        raise _fail(path, f"{where}: field '{field}[{li}].{name}'", msg)
        said = [(c.id, t) for c in chats for t in c.turns if t.at <= at]
        _check_kind_fields(path, where, ps, said)
        probes.append(Probe(spec=ps, at=at))
    kinds = {p.spec.kind for p in probes}
    missing = [k for k in REQUIRED_KINDS if k not in kinds]
    if missing:
        msg = (
            f"the probes have no {', '.join(missing)} probe; every scenario checks "
            "updates, forgets, provenance and time"
        )
        raise _fail(path, "field 'probes'", msg)
    return probes


def _stated_attributes(turn: Turn) -> list[str]:
    return [ex.attribute for ex in [*turn.extract, *(c.item for c in turn.calls if c.item)]]


def _check_kind_fields(
    path: Path, where: str, ps: ProbeSpec, before: list[tuple[str, Turn]]
) -> None:
    """`unknown` is for abstention probes and names nothing stated; `parts` is for
    aggregation probes and spans at least two chats."""
    if (ps.kind == "abstention") != bool(ps.unknown):
        msg = "an abstention probe lists `unknown` attributes, and only it does"
        raise _fail(path, f"{where}: field 'unknown'", msg)
    if (ps.kind == "aggregation") != bool(ps.parts):
        msg = "an aggregation probe lists its `parts`, and only it does"
        raise _fail(path, f"{where}: field 'parts'", msg)
    for ui, attribute in enumerate(ps.unknown):
        want = term_set(attribute)
        if not want:
            raise _fail(path, f"{where}: field 'unknown[{ui}]'", "an attribute needs words")
        for cid, turn in before:
            if any(want <= term_set(a) for a in _stated_attributes(turn)):
                msg = (
                    f"{attribute!r} is stated in chat {cid} turn {turn.index + 1}; "
                    "an abstention probe asks about what was never said"
                )
                raise _fail(path, f"{where}: field 'unknown[{ui}]'", msg)
    if ps.parts:
        chats = set()
        for label in ps.parts:
            for cid, turn in before:
                if any(_mentioned(a, [_turn_text(turn)]) for a in label_alternatives(label)):
                    chats.add(cid)
                    break
        if len(chats) < 2:
            msg = "the parts all come from one chat; an aggregation probe spans two or more"
            raise _fail(path, f"{where}: field 'parts'", msg)


def scenario_paths(data_dir: Path = DATA_DIR) -> list[Path]:
    return sorted(data_dir.glob("*.yaml"))


def load_all(names: list[str] | None = None, data_dir: Path = DATA_DIR) -> list[Scenario]:
    """The shipped scenarios (or the named ones, by id or file path), in name order."""
    paths = {p.stem: p for p in scenario_paths(data_dir)}
    if not names:
        return [load_scenario(p) for p in paths.values()]
    out = []
    for name in names:
        if name in paths:
            out.append(load_scenario(paths[name]))
        elif Path(name).suffix in (".yaml", ".yml") and Path(name).is_file():
            out.append(load_scenario(Path(name)))
        else:
            msg = (
                f"--scenarios: no scenario {name!r}; known: {', '.join(paths)} "
                "(or a path to a .yaml file)"
            )
            raise InvalidInputError(msg)
    return out

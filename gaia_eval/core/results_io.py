"""The one module that writes and reads result artifacts.

Every JSON or markdown file gaia_eval writes goes through `write_json` / `write_text`:
the text passes the scrub hook first (which raises `LeakError` when a secret survives),
then is written atomically (temp file in the same folder, fsync, rename), so a reader
never sees half a file and a crash never leaves a truncated artifact.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from gaia_eval.core.errors import InvalidInputError

M = TypeVar("M", bound=BaseModel)
_SURROGATE = re.compile("[\ud800-\udfff]")

# The scrub hook: text in, scrubbed text out; raises LeakError when it cannot make the
# text safe. The first write installs gaia_eval.scrub.scrub_text; tests may swap it.
ScrubHook = Callable[[str], str]


def _identity(text: str) -> str:
    return text


# One mutable slot rather than a rebound global, so every reader sees the installed hook.
_hook: dict[str, ScrubHook] = {"scrub": _identity}


def set_scrub_hook(hook: ScrubHook) -> ScrubHook:
    """Install the scrubber every artifact passes through; returns the previous one."""
    previous = _hook["scrub"]
    _hook["scrub"] = hook
    return previous


def scrub_text(text: str) -> str:
    """Run the installed scrubber over `text` (raises LeakError on a survivor)."""
    _ensure_scrubber()
    return _hook["scrub"](text)


def _ensure_scrubber() -> None:
    # The real scanner is gaia_eval.scrub, imported on the first write (it loads the native
    # core, which the CLI's --help should not pay for). If it cannot load, nothing may be
    # written: the identity hook would let every secret through (fail closed).
    if _hook["scrub"] is not _identity:
        return
    try:
        scrub = importlib.import_module("gaia_eval.scrub")
        hook = scrub.scrub_text
    except Exception as err:
        from gaia_eval.core.errors import LeakError

        msg = (
            f"the secret scrubber could not load ({type(err).__name__}: {err}); nothing was "
            "written. Rebuild the native core (`nox -s native`) and run again"
        )
        raise LeakError(msg) from err
    _hook["scrub"] = hook


def _read_umask() -> int:
    """The process umask (read once at import, while one thread runs: reading it means
    setting it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


FILE_MODE = 0o644 & ~_read_umask()
"""The one mode of every file a run writes (results, report, item log, diffs): 0644 less
the umask, as `open()` would make it. The contents are scrubbed to be shared (docs/runs.md);
mkstemp's private 0600 would make results.json unreadable where items.jsonl is not."""


def atomic_write_bytes(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Write `data` to `path` via a temp file in the same folder, fsync and rename. The file
    has `mode` from the moment it exists (a key file passes 0o600)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    try:  # make the rename itself durable; not every platform can open a directory
        dfd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def write_text(path: Path, text: str) -> Path:
    """Scrub then atomically write a text artifact (markdown, HTML, a diff).

    A lone surrogate (a file name that is not UTF-8, kept as surrogate escapes) is
    written as `\udcff` rather than failing the write.
    """
    data = scrub_text(text).encode("utf-8", "backslashreplace")
    atomic_write_bytes(Path(path), data)
    return Path(path)


def dumps_json(data: BaseModel | Mapping[str, Any] | list[Any], indent: int = 1) -> str:
    """Serialise a model or plain data the way every artifact is written."""
    if isinstance(data, BaseModel):
        # by_alias: a model may name its version field `schema_version` with alias "schema"
        # (`schema` shadows a BaseModel attribute); the file always says "schema".
        data = data.model_dump(mode="json", by_alias=True)
    text = json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False) + "\n"
    # Surrogates occur only inside JSON strings, where a \uXXXX escape reads back as the
    # same str: a non-UTF-8 file name round-trips instead of failing the write.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# Joins a document's strings for one scrub: a newline on each side ends every rule's
# match (no rule crosses a line but PEM bodies, which stop at NUL), so nothing redacted
# can span two strings.
_JOIN = "\n\x00\n"


def _strings(data: Any, out: list[str]) -> None:
    if isinstance(data, str):
        out.append(data)
    elif isinstance(data, Mapping):
        for key, value in data.items():
            _strings(key, out)
            _strings(value, out)
    elif isinstance(data, (list, tuple)):
        for value in data:
            _strings(value, out)


def _rebuild(data: Any, parts: Iterator[str]) -> Any:
    if isinstance(data, str):
        return next(parts)
    if isinstance(data, Mapping):
        return {
            next(parts) if isinstance(k, str) else k: _rebuild(v, parts) for k, v in data.items()
        }
    if isinstance(data, (list, tuple)):
        return [_rebuild(v, parts) for v in data]
    return data


def scrub_strings(data: Any) -> Any:
    """JSON-able `data` with every string (keys too) scrubbed as the text it holds, before
    it is encoded: encoding rewrites a newline before a token as `\\n`, a quote in a known
    value as `\\"` (a level more for an error body that was JSON already), which the
    rules would then have to see through. The encoded text is scrubbed again on write."""
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json", by_alias=True)
    strings: list[str] = []
    _strings(data, strings)
    if not strings:
        return data
    joined = _JOIN.join(strings)
    out = scrub_text(joined)
    if out == joined:
        return data
    parts = out.split(_JOIN)
    if len(parts) != len(strings):  # a string held the separator itself: one at a time
        parts = [scrub_text(s) for s in strings]
    return _rebuild(data, iter(parts))


def write_json(
    path: Path, data: BaseModel | Mapping[str, Any] | list[Any], indent: int = 1
) -> Path:
    """Scrub then atomically write a JSON artifact (one-space indent by default): every
    string is scrubbed before encoding (`scrub_strings`) and the encoded text after."""
    return write_text(path, dumps_json(scrub_strings(data), indent=indent))


Migration = Callable[[dict[str, Any]], dict[str, Any]]


def read_json(path: Path) -> Any:
    """Read a JSON file, turning every failure into an error naming the file."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError as err:
        msg = f"{path}: file not found"
        raise InvalidInputError(msg) from err
    except UnicodeDecodeError as err:
        raise not_utf8(path, err) from err
    except OSError as err:
        msg = f"{path}: cannot read ({err})"
        raise InvalidInputError(msg) from err
    return loads_json(raw, path)


def not_utf8(path: Path | str, err: UnicodeDecodeError) -> InvalidInputError:
    """The error for a file that is not UTF-8 text, naming the file and the first bad byte."""
    bad = err.object[err.start : err.start + 1].hex()
    return InvalidInputError(
        f"{path}: not UTF-8 text (byte 0x{bad} at offset {err.start}); save it as UTF-8"
    )


class _NonFinite(ValueError):
    """Raised by the decoder hook at `NaN`, `Infinity` or `-Infinity`."""


def _refuse_constant(name: str) -> Any:
    raise _NonFinite(name)


_BIG_EXPONENT = re.compile(r"[0-9][eE]\+?[0-9]{3}")


def _finite_float(text: str) -> float:
    value = float(text)  # `1e999` decodes to inf without ever reaching parse_constant
    if not math.isfinite(value):
        raise _NonFinite(text)
    return value


def loads_json(raw: str, where: Path | str) -> Any:
    """json.loads with every failure an InvalidInputError naming `where` (a file, a line).

    Deep nesting is refused by the decoder with RecursionError, which is not a ValueError:
    without this a 100k-deep file reached the user as a traceback. `NaN` and `Infinity`
    (which Python's decoder accepts but JSON does not have) are refused: a NaN score
    compares false with every threshold, so it would pass a gate silently.
    """
    try:
        # Only a 3-digit positive exponent can overflow to inf; the float hook halves the
        # decoder's speed, so it runs only then.
        hook = _finite_float if _BIG_EXPONENT.search(raw) else None
        return json.loads(raw, parse_constant=_refuse_constant, parse_float=hook)
    except _NonFinite as err:
        msg = (
            f"{where}: holds {err.args[0]}, which is not a JSON number; every number must be finite"
        )
        raise InvalidInputError(msg) from None
    except json.JSONDecodeError as err:
        msg = f"{where}: not valid JSON at line {err.lineno} column {err.colno}: {err.msg}"
        raise InvalidInputError(msg) from err
    except RecursionError as err:
        msg = f"{where}: JSON nested too deeply to read; this is not a file gaia-eval reads"
        raise InvalidInputError(msg) from err


def _current_version(model: type[BaseModel], schema_field: str) -> int:
    """The version a model writes: the default of the field named or aliased `schema_field`."""
    for name, info in model.model_fields.items():
        if schema_field in (name, info.alias, info.validation_alias, info.serialization_alias):
            if isinstance(info.default, int) and not isinstance(info.default, bool):
                return info.default
            break
    msg = f"{model.__name__} has no integer '{schema_field}' field with a default version"
    raise TypeError(msg)


def read_model(
    path: Path,
    model: type[M],
    *,
    migrations: Mapping[int, Migration] | None = None,
    schema_field: str = "schema",
) -> M:
    """Read a versioned result file into `model`, migrating older schema versions.

    `migrations[v]` turns a version-`v` document into version `v + 1`; they are applied in
    order until the model's current version. A newer or unknown version is refused.
    """
    path = Path(path)
    return model_from_data(
        read_json(path), model, source=str(path), migrations=migrations, schema_field=schema_field
    )


def model_from_data(
    data: Any,
    model: type[M],
    *,
    source: str,
    migrations: Mapping[int, Migration] | None = None,
    schema_field: str = "schema",
) -> M:
    """`read_model` for a document already in memory; `source` names it in messages."""
    path = source
    if not isinstance(data, dict):
        msg = f"{path}: expected a JSON object at the top level, got {type(data).__name__}"
        raise InvalidInputError(msg)
    current = _current_version(model, schema_field)
    version = data.get(schema_field)
    if not isinstance(version, int):
        msg = (
            f"{path}: field '{schema_field}' is missing or not an integer; this is not a "
            f"{model.__name__} file (expected {schema_field}={current})"
        )
        raise InvalidInputError(msg)
    migrations = migrations or {}
    while version < current:
        step = migrations.get(version)
        if step is None:
            msg = f"{path}: schema {version} cannot be migrated to {current}; re-run to regenerate"
            raise InvalidInputError(msg)
        data = step(data)
        version += 1
        data[schema_field] = version
    if version > current:
        msg = (
            f"{path}: schema {version} is newer than this gaia_eval understands ({current}); "
            "upgrade gaia-eval"
        )
        raise InvalidInputError(msg)
    try:
        return model.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        msg = f"{path}: field '{field}': {first['msg']} ({err.error_count()} problem(s) in all)"
        raise InvalidInputError(msg) from err

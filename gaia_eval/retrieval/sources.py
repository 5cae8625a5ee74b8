"""The full suite's corpora: the pinned manifest (`data/sources.json`) and its cache.

Every downloaded file is pinned to a URL at a fixed revision with its sha256 and size.
Files live in `<cache root>/retrieval/<source>/<file>` (the cache root is
`$GAIA_EVAL_CACHE`, else `~/.cache/gaia-eval`, as for every gaia_eval cache) and are
checked (size, then sha256) on every use: a file that does not match is an error naming
it, never silently downloaded again, because a changed file changes every score.

An entry whose sha256 is null is unverified (its `unverified` note says why): it is not
downloaded or used by default, since nothing could tell a right file from a wrong one.
Record its sha256 and bytes in a copy of the manifest and pass that with `--sources FILE`,
or trust it on first download: `--pin-unverified` downloads it once and records the sha256
and size it had into the user's pin file `<cache root>/retrieval/pins.json` (never into
the package); every later run checks the file against that pin, with or without the
flag, and says the file was pinned on first download, not verified against a published
hash. A pin is keyed by the entry's URL: a manifest that moves the URL needs a new pin.

Downloads write `<file>.part` and rename it into place once its size and sha256 match; an
interrupted or truncated download keeps its `.part`, and the next fetch resumes it with
an HTTP Range request. `offline=True` never opens a connection: it only names what is
missing and how to fetch it.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from gaia_eval.core.errors import InfrastructureError, InvalidInputError

MANIFEST = Path(__file__).parent / "data" / "sources.json"
TIMEOUT_S = 300.0
BLOCK = 1 << 16
FETCH_HINT = "gaia-eval retrieval --component rag --suite full --fetch-only"
PIN_FILE = "pins.json"
PINNED_NOTE = "pinned on first download, not verified against a published hash"
PINNED_KEY = "pinned_corpus_files"
"""The setup key listing the run's pinned files (the report names them first)."""
_PINNED_HOSTS = ("github.com", "raw.githubusercontent.com", "huggingface.co")
_COMMIT = re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])")
_SHA256 = re.compile(r"[0-9a-f]{64}")


class SourceFile(BaseModel):
    """One pinned file."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    url: str = Field(min_length=1)
    """Where it is downloaded from, at a fixed revision (GitHub and Hugging Face URLs name
    a 40-hex commit)."""
    sha256: str | None
    """Lower-case hex sha256 of the file; null: unverified, never downloaded or used."""
    bytes: int | None = Field(ge=0)
    """Size in bytes (null with an unverified sha256)."""
    unverified: str | None = None
    """Why the sha256 is missing (required when it is null)."""

    @model_validator(mode="after")
    def _pinned(self) -> SourceFile:
        if self.sha256 is None:
            if not self.unverified:
                msg = "sha256 is null: say why in `unverified`, or give the sha256"
                raise ValueError(msg)
        elif not _SHA256.fullmatch(self.sha256):
            msg = f"sha256 {self.sha256!r} is not 64 lower-case hex digits"
            raise ValueError(msg)
        elif self.bytes is None:
            msg = "a verified file needs its size in `bytes`"
            raise ValueError(msg)
        host = re.sub(r"^[a-z]+://", "", self.url).split("/", 1)[0].split(":")[0]
        if host in _PINNED_HOSTS and not _COMMIT.search(self.url):
            msg = f"{self.url}: a {host} URL must name a 40-hex commit (a fixed revision)"
            raise ValueError(msg)
        return self

    @property
    def verified(self) -> bool:
        return self.sha256 is not None


class Source(BaseModel):
    """One upstream source and its files."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    title: str
    """What it is."""
    homepage: str
    """Where it is described."""
    license: str
    """Its license, copied into the results' setup."""
    citation: str | None = None
    """How to cite it."""
    revision: str | None = None
    """The upstream revision every file URL names (null: the host has none)."""
    files: dict[str, SourceFile]
    """Relative path in the cache -> the pinned file."""


class Manifest(BaseModel):
    """`sources.json`: every file of the full suite."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    schema_version: int = Field(1, alias="schema")
    """Format version (1)."""
    about: str = ""
    """What the file is."""
    sources: dict[str, Source]
    """Source name (financebench, amd, arxiv, xquad, wikipedia) -> its files."""

    def file(self, source: str, name: str) -> SourceFile:
        try:
            return self.sources[source].files[name]
        except KeyError:
            msg = f"sources.json has no file {source}/{name}; add it to the manifest"
            raise InvalidInputError(msg) from None

    def license_notes(self) -> dict[str, dict[str, str]]:
        return {
            name: {"title": s.title, "homepage": s.homepage, "license": s.license}
            for name, s in self.sources.items()
        }


def load_manifest(path: Path | None = None) -> Manifest:
    """The shipped manifest, or `path` (`--sources FILE`); InvalidInputError naming the
    field on any problem."""
    path = path or MANIFEST
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        msg = f"{path}: sources manifest not found; pass an existing file to --sources"
        raise InvalidInputError(msg) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        msg = f"{path}: cannot read the sources manifest ({err}); fix or replace the file"
        raise InvalidInputError(msg) from None
    try:
        return Manifest.model_validate(raw)
    except ValidationError as err:
        from gaia_eval.retrieval.dataset import field_path

        lines = [
            f"  {field_path(tuple(e['loc']))}: {str(e['msg']).removeprefix('Value error, ')}"
            for e in err.errors(include_url=False)[:20]
        ]
        msg = f"{path}: invalid sources manifest:\n" + "\n".join(lines)
        raise InvalidInputError(msg) from None


def cache_dir() -> Path:
    """`$GAIA_EVAL_CACHE/retrieval`, else `~/.cache/gaia-eval/retrieval`."""
    from gaia_eval.core.cachedir import cache_root

    return cache_root() / "retrieval"


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(BLOCK * 16):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class Wanted:
    """A file a run needs: `<source>/<name>`."""

    source: str
    name: str

    def __str__(self) -> str:
        return f"{self.source}/{self.name}"


class Corpus:
    """The manifest's files in one cache folder: checked paths, fetches."""

    def __init__(
        self, manifest: Manifest, root: Path | None = None, *, pin_unverified: bool = False
    ) -> None:
        self.manifest = manifest
        self.root = root or cache_dir()
        self.pin_unverified = pin_unverified
        """Download unverified entries once and pin what they were (trust on first use)."""
        self.checked: set[Wanted] = set()
        """Files checked in this process (each is hashed once per run)."""
        self.pinned: set[Wanted] = set()
        """Files this run checked against a user pin rather than the manifest."""

    def target(self, want: Wanted) -> Path:
        return self.root / want.source / want.name

    @property
    def pin_path(self) -> Path:
        return self.root / PIN_FILE

    def _pins(self) -> dict[str, Any]:
        try:
            raw = json.loads(self.pin_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            msg = (
                f"{self.pin_path}: cannot read the pin file ({err}); delete it to pin the "
                "unverified files again on their next download (--pin-unverified)"
            )
            raise InvalidInputError(msg) from None
        pins = raw.get("pins") if isinstance(raw, dict) else None
        if not isinstance(pins, dict):
            msg = f"{self.pin_path}: field `pins` must be an object; delete the file to re-pin"
            raise InvalidInputError(msg)
        return pins

    def _pin_of(self, want: Wanted, f: SourceFile) -> SourceFile | None:
        """The entry with the sha256 and size pinned on its first download, or None."""
        pin = self._pins().get(str(want))
        if not isinstance(pin, dict) or pin.get("url") != f.url:
            return None
        sha, size = pin.get("sha256"), pin.get("bytes")
        if not (isinstance(sha, str) and _SHA256.fullmatch(sha)):
            msg = f"{self.pin_path}: pins.{want}.sha256 is not 64 lower-case hex digits"
            raise InvalidInputError(msg)
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            msg = f"{self.pin_path}: pins.{want}.bytes must be a whole number of bytes"
            raise InvalidInputError(msg)
        return f.model_copy(update={"sha256": sha, "bytes": size})

    def _record_pin(self, want: Wanted, f: SourceFile, sha: str, size: int) -> None:
        from gaia_eval.core.results_io import atomic_write_bytes

        pins = self._pins()
        pins[str(want)] = {"url": f.url, "sha256": sha, "bytes": size, "note": PINNED_NOTE}
        data = {"about": f"gaia-eval corpus pins: {PINNED_NOTE}", "pins": pins}
        atomic_write_bytes(self.pin_path, json.dumps(data, indent=1, sort_keys=True).encode())

    def entry(self, want: Wanted) -> SourceFile:
        """The manifest's entry, with the user's pin filled in for an unverified one."""
        f = self.manifest.file(want.source, want.name)
        if f.verified:
            return f
        return self._pin_of(want, f) or f

    def unverified(self, wanted: Iterable[Wanted]) -> list[str]:
        """The wanted files neither the manifest nor a pin can check, each with its reason."""
        out = []
        for w in wanted:
            f = self.entry(w)
            if not f.verified:
                out.append(f"{w} ({f.unverified})")
        return out

    def refuse_unverified(self, wanted: Iterable[Wanted], *, downloading: bool = False) -> None:
        """Stop on an unverified, unpinned file; a download with --pin-unverified pins it."""
        if downloading and self.pin_unverified:
            return
        bad = self.unverified(wanted)
        if bad:
            shown = "\n".join(f"  {b}" for b in bad[:30])
            more = f"\n  ... and {len(bad) - 30} more" if len(bad) > 30 else ""
            total = sum(
                1
                for s in self.manifest.sources.values()
                for f in s.files.values()
                if not f.verified
            )
            msg = (
                f"{len(bad)} corpus file(s) this run needs have no verified sha256 in the "
                f"sources manifest ({total} entries of it are unverified) and no pin, so they "
                f"are not downloaded or used:\n{shown}{more}\nTrust them on first download: "
                f"{FETCH_HINT} --pin-unverified (records each file's sha256 and size in "
                f"{self.pin_path} and checks every later run against it); or record their "
                "sha256 and bytes in a copy of sources.json and pass it with --sources FILE, "
                "or narrow the run with --datasets"
            )
            raise InvalidInputError(msg)

    def check(self, want: Wanted) -> Path:
        """The file's path after checking its size and sha256; InvalidInputError on a
        mismatch (never a silent re-download), FileNotFoundError when absent."""
        self.refuse_unverified([want])
        f = self.entry(want)
        against = "the sources manifest"
        if not self.manifest.file(want.source, want.name).verified:
            against = f"its pin in {self.pin_path} ({PINNED_NOTE})"
        path = self.target(want)
        if not path.is_file():
            raise FileNotFoundError(str(path))
        if want in self.checked:
            return path
        size = path.stat().st_size
        got = sha256_of(path) if size == f.bytes else None
        if got != f.sha256:
            what = f"sha256 {got}" if got else f"{size} bytes"
            expected = f"sha256 {f.sha256}" if got else f"{f.bytes} bytes"
            msg = (
                f"{path}: corpus file {want} does not match {against} ({what}, "
                f"expected {expected}); it is not used and not downloaded again on its own. "
                "Delete it to fetch it again, or fix the manifest if upstream changed"
            )
            raise InvalidInputError(msg)
        self.checked.add(want)
        if against != "the sources manifest":
            self.pinned.add(want)
        return path

    def missing(self, wanted: Iterable[Wanted]) -> list[Wanted]:
        return [w for w in wanted if not self.target(w).is_file()]

    def require(self, wanted: Sequence[Wanted]) -> dict[Wanted, Path]:
        """Every wanted file, checked; offline use: a missing file is an error naming each
        one and the command that fetches them (no network)."""
        self.refuse_unverified(wanted)
        absent = self.missing(wanted)
        if absent:
            shown = "\n".join(f"  {w}  ({self.target(w)})" for w in absent[:30])
            more = f"\n  ... and {len(absent) - 30} more" if len(absent) > 30 else ""
            msg = (
                f"{len(absent)} corpus file(s) are not in the cache {self.root}:\n{shown}"
                f"{more}\nFetch them first: {FETCH_HINT} (the same --datasets and --sources "
                "flags), or set GAIA_EVAL_CACHE to the cache that holds them"
            )
            raise InvalidInputError(msg)
        return {w: self.check(w) for w in wanted}

    def fetch(self, wanted: Sequence[Wanted], *, offline: bool = False) -> dict[Wanted, Path]:
        """Download what is missing (resuming partial files), check everything; with
        `pin_unverified`, an unverified file without a pin is downloaded and pinned."""
        if offline:
            return self.require(wanted)
        self.refuse_unverified(wanted, downloading=True)
        for w in wanted:
            path = self.target(w)
            f = self.entry(w)
            if not f.verified:
                if path.is_file():  # a file put there by hand: pin what is there
                    self._record_pin(w, f, sha256_of(path), path.stat().st_size)
                else:
                    _download(f, w, path)
                    self._record_pin(w, f, sha256_of(path), path.stat().st_size)
            elif not path.is_file():
                _download(f, w, path)
            self.check(w)
        return {w: self.check(w) for w in wanted}


def _user_agent() -> str:
    from gaia_eval import __version__

    return f"gaia-eval/{__version__} (retrieval corpus fetch)"


def _download(f: SourceFile, want: Wanted, path: Path) -> None:
    """Download `f` into `path`; an unpinned entry (no size, no sha256) is taken as served,
    never resumed (nothing says a `.part` is a prefix of it)."""
    part = path.with_name(path.name + ".part")
    path.parent.mkdir(parents=True, exist_ok=True)
    if f.bytes is None:
        part.unlink(missing_ok=True)
    have = part.stat().st_size if part.is_file() else 0
    if f.bytes is not None and have > f.bytes:  # longer than the file: not a prefix of it
        part.unlink()
        have = 0
    headers = {"User-Agent": _user_agent()}
    if have:
        headers["Range"] = f"bytes={have}-"
    req = urllib.request.Request(f.url, headers=headers)
    try:
        resp = urllib.request.urlopen(req, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as err:
        err.close()
        if err.code == 416 and have == f.bytes:  # the .part is already whole
            _finish(f, want, part, path)
            return
        msg = f"{want}: downloading {f.url} failed: HTTP {err.code} {err.reason}"
        raise InfrastructureError(msg) from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        msg = f"{want}: cannot reach {f.url} ({reason}); check the network, or run --offline"
        raise InfrastructureError(msg) from None
    with resp:
        if have and resp.status != 206:  # the server ignored the Range: start again
            have = 0
        mode = "ab" if have else "wb"
        try:
            total = f.bytes if f.bytes is not None else int(resp.headers.get("Content-Length") or 0)
            with part.open(mode) as out, _Bar(str(want), total, have) as bar:
                while block := resp.read(BLOCK):
                    out.write(block)
                    bar.advance(len(block))
        except (OSError, urllib.error.URLError) as err:  # cut mid-body (IncompleteRead, reset)
            got = part.stat().st_size if part.is_file() else 0
            msg = (
                f"{want}: the download of {f.url} broke off at {got} of {f.bytes} bytes "
                f"({type(err).__name__}); run the fetch again to resume it"
            )
            raise InfrastructureError(msg) from None
    _finish(f, want, part, path)


def _finish(f: SourceFile, want: Wanted, part: Path, path: Path) -> None:
    got = part.stat().st_size
    if f.sha256 is None:  # trust on first download: the caller pins what arrived
        part.replace(path)
        return
    if got < (f.bytes or 0):
        msg = (
            f"{want}: the download of {f.url} ended at {got} of {f.bytes} bytes (truncated); "
            f"the partial file {part} is kept: run the fetch again to resume it"
        )
        raise InfrastructureError(msg)
    digest = sha256_of(part)
    if got != f.bytes or digest != f.sha256:
        bad = part.with_name(part.name.removesuffix(".part") + ".mismatch")
        part.replace(bad)
        msg = (
            f"{want}: {f.url} served {got} bytes with sha256 {digest}, but the sources "
            f"manifest pins {f.bytes} bytes with sha256 {f.sha256}; not used (kept as {bad} "
            "for inspection). Upstream changed or the URL is wrong: fix the manifest"
        )
        raise InvalidInputError(msg)
    part.replace(path)


class _Bar:
    """A byte progress bar on a terminal, nothing otherwise."""

    def __init__(self, label: str, total: int, done: int) -> None:
        self.label, self.total, self.done = label, total, done
        self._progress: Any = None

    def __enter__(self) -> _Bar:
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                Progress,
                TextColumn,
                TransferSpeedColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                DownloadColumn(),
                TransferSpeedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(self.label, total=self.total)
            self._progress.update(self._task, completed=self.done)
        return self

    def advance(self, n: int) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, n)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)


__all__ = [
    "FETCH_HINT",
    "MANIFEST",
    "Corpus",
    "Manifest",
    "Source",
    "SourceFile",
    "Wanted",
    "cache_dir",
    "load_manifest",
    "sha256_of",
]

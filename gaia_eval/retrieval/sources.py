"""The full suite's corpora: the pinned manifest (`data/sources.json`) and its cache.

Every downloaded file is pinned to a URL at a fixed revision with its sha256 and size.
Files live in `<cache root>/retrieval/<source>/<file>` (the cache root is
`$GAIA_EVAL_CACHE`, else `~/.cache/gaia-eval`, as for every gaia_eval cache) and are
checked (size, then sha256) on every use: a file that does not match is an error naming
it, never silently downloaded again, because a changed file changes every score.

An entry whose sha256 is null is unverified (its `unverified` note says why): it is never
downloaded or used, since nothing could tell a right file from a wrong one. Record its
sha256 and bytes in a copy of the manifest and pass that with `--sources FILE`.

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

    def __init__(self, manifest: Manifest, root: Path | None = None) -> None:
        self.manifest = manifest
        self.root = root or cache_dir()
        self.checked: set[Wanted] = set()
        """Files checked in this process (each is hashed once per run)."""

    def target(self, want: Wanted) -> Path:
        return self.root / want.source / want.name

    def unverified(self, wanted: Iterable[Wanted]) -> list[str]:
        """The wanted files the manifest cannot check, each with its reason."""
        out = []
        for w in wanted:
            f = self.manifest.file(w.source, w.name)
            if not f.verified:
                out.append(f"{w} ({f.unverified})")
        return out

    def refuse_unverified(self, wanted: Iterable[Wanted]) -> None:
        bad = self.unverified(wanted)
        if bad:
            shown = "\n".join(f"  {b}" for b in bad[:30])
            more = f"\n  ... and {len(bad) - 30} more" if len(bad) > 30 else ""
            msg = (
                f"{len(bad)} corpus file(s) have no verified sha256 in the sources manifest, "
                f"so they are never downloaded or used:\n{shown}{more}\nDownload each from "
                "its URL yourself, record its sha256 and bytes in a copy of sources.json and "
                "pass it with --sources FILE (or narrow the run with --datasets)"
            )
            raise InvalidInputError(msg)

    def check(self, want: Wanted) -> Path:
        """The file's path after checking its size and sha256; InvalidInputError on a
        mismatch (never a silent re-download), FileNotFoundError when absent."""
        f = self.manifest.file(want.source, want.name)
        self.refuse_unverified([want])
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
                f"{path}: corpus file {want} does not match the sources manifest ({what}, "
                f"expected {expected}); it is not used and not downloaded again on its own. "
                "Delete it to fetch it again, or fix the manifest if upstream changed"
            )
            raise InvalidInputError(msg)
        self.checked.add(want)
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
        """Download what is missing (resuming partial files), check everything."""
        self.refuse_unverified(wanted)
        if offline:
            return self.require(wanted)
        for w in wanted:
            path = self.target(w)
            if path.is_file():
                self.check(w)
                continue
            _download(self.manifest.file(w.source, w.name), w, path)
            self.check(w)
        return {w: self.check(w) for w in wanted}


def _user_agent() -> str:
    from gaia_eval import __version__

    return f"gaia-eval/{__version__} (retrieval corpus fetch)"


def _download(f: SourceFile, want: Wanted, path: Path) -> None:
    assert f.bytes is not None and f.sha256 is not None
    part = path.with_name(path.name + ".part")
    path.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.is_file() else 0
    if have > f.bytes:  # longer than the file can be: it is not a prefix of it
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
            with part.open(mode) as out, _Bar(str(want), f.bytes, have) as bar:
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

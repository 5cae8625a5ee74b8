"""`gaia-eval scrub [FILE...]`: redact secrets from files or stdin.

Known values and secret shapes (docs/scrubbing.md) are replaced with
`[REDACTED:<kind>]`. Files stream through in chunks, so memory stays bounded on any size.
Exit codes: 0 done (or nothing found with --check), 1 --check found something,
2 bad usage or unreadable file, 5 a secret survived redaction (nothing is written).

`--in-place` refuses a symlink (exit 2, naming its target: pass the target itself) and a
file with other hard links: replacing either would leave the secret in the file the other
name still reaches. A closed stdin or stdout is exit 2, not a traceback.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING

from gaia_eval.core.errors import EXIT_GATE_FAILED, EXIT_OK, InvalidInputError
from gaia_eval.core.progress import scrubbed

if TYPE_CHECKING:
    from gaia_eval._native import Scrubber, ScrubFinding

NAME = "scrub"
HELP = "Redact secrets (known values and secret shapes) from files or stdin."

CHUNK = 1 << 20
MAX_CHUNK = 64 << 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", type=Path, help="files to scrub (default: stdin)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--in-place", action="store_true", help="rewrite each file atomically instead of stdout"
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when anything would be redacted",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the findings (file, kind, byte offset, length; never the value) as JSON "
        "instead of the scrubbed text",
    )
    parser.add_argument(
        "--known-from-env",
        action="store_true",
        help="also redact the values of environment variables whose names look secret "
        "(KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, COOKIE, AUTH)",
    )
    parser.add_argument(
        "--chunk-size",
        type=int,
        default=CHUNK,
        metavar="BYTES",
        help=f"bytes read per step when streaming (default {CHUNK}); secrets that straddle "
        "two steps are still found",
    )


def _stream(
    scrubber: Scrubber, src: IO[bytes], sink: Callable[[bytes], object], chunk: int
) -> list[ScrubFinding]:
    stream = scrubber.stream()
    found: list[ScrubFinding] = []
    while block := src.read(chunk):
        sink(stream.feed(block))
        found.extend(stream.take_findings())
    sink(stream.finish())
    found.extend(stream.take_findings())
    return found


def _in_place(scrubber: Scrubber, path: Path, chunk: int) -> list[ScrubFinding]:
    # Temp file in the same folder, fsync, rename: a crash or a refused leak leaves the
    # original untouched.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out, path.open("rb") as src:
            found = _stream(scrubber, src, out.write, chunk)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        if found:
            os.replace(tmp, path)
        else:
            Path(tmp).unlink()
        return found
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _std(name: str, why: str) -> IO[bytes]:
    stream = getattr(sys, name)
    if stream is None:  # the process started with that descriptor closed
        msg = f"{name} is closed; {why}"
        raise InvalidInputError(msg)
    buffer: IO[bytes] = stream.buffer
    return buffer


def _check_in_place(path: Path) -> None:
    if path.is_symlink():
        msg = (
            f"{path}: is a symlink (to {os.path.realpath(path)}); --in-place does not replace "
            "links, which would leave the secret in the target: pass the target path"
        )
        raise InvalidInputError(msg)
    links = path.stat().st_nlink
    if links > 1:
        msg = (
            f"{path}: has {links} hard links; rewriting it would leave the secret in the "
            "other names; scrub to stdout and replace each name yourself"
        )
        raise InvalidInputError(msg)


def run(args: argparse.Namespace) -> int:
    from gaia_eval.scrub import make_scrubber

    if not 1 <= args.chunk_size <= MAX_CHUNK:
        # A huge step is one huge read buffer: 99999999999999 was a MemoryError traceback.
        msg = f"--chunk-size must be a positive number of bytes, at most {MAX_CHUNK} (64 MiB)"
        raise InvalidInputError(msg)
    if args.in_place and not args.files:
        msg = "--in-place needs at least one FILE (stdin cannot be rewritten)"
        raise InvalidInputError(msg)
    for path in args.files:
        if not path.is_file():
            msg = f"{path}: not a readable file; pass existing files or none for stdin"
            raise InvalidInputError(msg)
        if args.in_place:
            _check_in_place(path)
    quiet = args.check or args.json
    if not args.files:
        _std("stdin", "pipe the text in or pass FILEs")
    needs_stdout = args.json or not (quiet or args.in_place)
    stdout: IO[bytes] = io.BytesIO()  # nothing is written when no output is asked for
    if needs_stdout:
        stdout = _std("stdout", "redirect it to a file, or use --in-place or --check")
    scrubber = make_scrubber(from_env=args.known_from_env)
    report: list[dict[str, object]] = []
    total = 0
    sources: list[tuple[str, Path | None]] = [(str(p), p) for p in args.files] or [("-", None)]
    for label, path in sources:
        try:
            if args.in_place and path is not None:
                found = _in_place(scrubber, path, args.chunk_size)
            elif path is None:
                found = _stream(
                    scrubber,
                    _std("stdin", "pipe the text in or pass FILEs"),
                    (lambda b: None) if quiet else stdout.write,
                    args.chunk_size,
                )
            else:
                with path.open("rb") as src:
                    found = _stream(
                        scrubber, src, (lambda b: None) if quiet else stdout.write, args.chunk_size
                    )
        except OSError as err:
            msg = f"{label}: cannot read or write ({err.strerror or err})"
            raise InvalidInputError(msg) from err
        total += len(found)
        report.extend(
            {"file": label, "kind": f.kind, "offset": f.offset, "length": f.length} for f in found
        )
        if args.check and found:
            kinds = sorted({f.kind for f in found})
            line = f"{label}: {len(found)} finding(s): {', '.join(kinds)}"
            print(scrubbed(line), file=sys.stderr)
    if args.json:
        stdout.write((json.dumps(report, indent=1) + "\n").encode())
    stdout.flush()
    if args.check and total:
        return EXIT_GATE_FAILED
    return EXIT_OK

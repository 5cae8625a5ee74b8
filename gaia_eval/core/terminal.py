"""The one writer of the terminal: everything printed to stdout or stderr is scrubbed.

`gaia-eval` installs `ScrubbedStream` over `sys.stdout` and `sys.stderr` for the whole
command (`scrubbed_terminal`), so a run summary that quotes a server's error body, a
listing, a table or a third-party library's print pass the same scrubber as every
artifact, whatever called `print`. Text is held until a line ends (`\\n` or a bar's `\\r`)
or the stream is flushed, so a secret is never split across two scrubs by `print`'s
separate writes. The binary `buffer` is the raw stream's (it is how `gaia-eval scrub`
writes its own, already scrubbed, output); pending text is flushed before it is handed out.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO, Any


class ScrubbedStream(io.TextIOBase):
    """A text stream that scrubs whole lines before they reach `raw`."""

    def __init__(self, raw: IO[str]) -> None:
        super().__init__()
        self.raw = raw
        self._pending: list[str] = []

    def write(self, s: str) -> int:
        if not s:
            return 0
        cut = max(s.rfind("\n"), s.rfind("\r"))
        if cut < 0:
            self._pending.append(s)
            return len(s)
        head = "".join(self._pending) + s[: cut + 1]
        self._pending = [s[cut + 1 :]] if cut + 1 < len(s) else []
        self._emit(head)
        return len(s)

    def _emit(self, text: str) -> None:
        from gaia_eval.core.progress import scrubbed

        self.raw.write(scrubbed(text) if text.strip() else text)

    def flush(self) -> None:
        if self._pending:
            text, self._pending = "".join(self._pending), []
            self._emit(text)
        self.raw.flush()

    @property
    def buffer(self) -> Any:
        self.flush()
        return getattr(self.raw, "buffer")  # noqa: B009 - an IO[str] may lack it (StringIO)

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self.raw, "encoding", "utf-8"))

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.raw, "errors", None)

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    def writable(self) -> bool:
        return True


@contextmanager
def scrubbed_terminal() -> Iterator[None]:
    """Route sys.stdout and sys.stderr through the scrubber until the block ends."""
    saved = sys.stdout, sys.stderr
    wrapped = [
        s if s is None or isinstance(s, ScrubbedStream) else ScrubbedStream(s) for s in saved
    ]
    sys.stdout, sys.stderr = wrapped[0], wrapped[1]
    try:
        yield
    finally:
        for s in wrapped:
            if isinstance(s, ScrubbedStream) and s not in saved:
                with suppress(OSError, ValueError):  # a closed pipe: nothing more to say
                    s.flush()
        sys.stdout, sys.stderr = saved

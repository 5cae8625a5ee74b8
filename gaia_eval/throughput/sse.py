"""Server-sent events, split from a byte stream with the arrival time of each event's first byte.

The clock is read by the caller when bytes come off the socket (`feed(data, t_ns)`); an event
whose first byte came in an earlier read keeps that read's time, so the timestamp is the
arrival of the event's first byte, never the moment it finished parsing.
"""

from __future__ import annotations

from collections.abc import Callable

# (arrival ns of the event's first byte, event name or b"", data payload, unknown field seen)
EventSink = Callable[[int, bytes, bytes, bytes], None]

MAX_EVENT_BYTES = 8 * 1024 * 1024
"""An unfinished event past this is refused: a token delta is bytes, and buffering one
100 MB event (re-joined on every read) took 786 MB and minutes of copying."""


class EventTooLarge(ValueError):
    """An SSE event grew past MAX_EVENT_BYTES before it ended."""


class SSEParser:
    """Incremental SSE splitter; calls `sink(t_ns, event, data, bad_field)` per event."""

    __slots__ = ("_buf", "_sink", "_t")

    def __init__(self, sink: EventSink) -> None:
        self._sink = sink
        self._buf = b""
        self._t = 0

    def feed(self, data: bytes, t_ns: int) -> None:
        if self._buf:
            buf = self._buf + data
            t_first = self._t
        else:
            buf = data
            t_first = t_ns
        if b"\r" in buf:
            # CRLF line ends; a CR split from its LF across reads stays in the buffer and is
            # joined here on the next read.
            buf = buf.replace(b"\r\n", b"\n")
        start = 0
        find = buf.find
        while True:
            end = find(b"\n\n", start)
            if end < 0:
                break
            if end > start:
                self._dispatch(buf[start:end], t_first)
            start = end + 2
            t_first = t_ns
        # Blank lines between events (a third newline) are not an event.
        while start < len(buf) and buf[start] == 0x0A:
            start += 1
        self._buf = buf[start:]
        self._t = t_first
        if len(self._buf) > MAX_EVENT_BYTES:
            self._buf = b""
            msg = f"an SSE event over {MAX_EVENT_BYTES // (1024 * 1024)} MiB (not read on)"
            raise EventTooLarge(msg)

    def pending(self) -> bool:
        """True when bytes of an unfinished event are buffered."""
        return bool(self._buf.strip())

    def _dispatch(self, block: bytes, t_ns: int) -> None:
        if block.startswith(b"data:") and b"\n" not in block:
            # The common case (one data line per event), without the line loop.
            data = block[5:]
            self._sink(t_ns, b"", data[1:] if data[:1] == b" " else data, b"")
            return
        event = b""
        parts: list[bytes] = []
        bad = b""
        for line in block.split(b"\n"):
            if not line or line[:1] == b":":
                continue  # a comment (keep-alive ping)
            name, sep, value = line.partition(b":")
            if value[:1] == b" ":
                value = value[1:]
            if name == b"data":
                parts.append(value)
            elif name == b"event":
                event = value
            elif name in (b"id", b"retry"):
                continue
            else:
                # Not an SSE field: an `error:` line some servers send, or garbage.
                bad = line if sep else line[:200]
        if parts or bad or event:
            self._sink(t_ns, event, b"\n".join(parts), bad)

"""What one streamed request leaves behind: raw clock readings, never derived numbers.

Everything the report shows is computed from these readings (`metrics.py`), so any metric
can be recomputed from the saved arrays with another formula.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ErrorKind = Literal[
    "unreachable",  # connect failed (refused, no route, DNS)
    "reset",  # the connection closed or reset before the response ended
    "malformed_sse",  # an event that is not valid JSON / SSE, or a non-stream reply
    "http_4xx",
    "http_5xx",
    "no_done",  # the body ended cleanly without [DONE] / message_stop
    "timeout",
    "stream_error",  # the server sent an error event inside the stream
]
ERROR_KINDS: tuple[str, ...] = ErrorKind.__args__  # type: ignore[attr-defined]

ChunkKind = Literal["text", "reasoning", "tool"]


@dataclass(slots=True)
class StreamRecord:
    """Clock readings (monotonic ns) and payload facts of one request."""

    t_scheduled_ns: int = 0
    """When the load generator meant to send it (open loop: the arrival time; closed loop:
    when its worker became free)."""
    t_start_ns: int = 0
    """When the client began the request (before taking or opening a connection)."""
    t_sent_ns: int = 0
    """When the request's bytes were handed to the socket."""
    t_headers_ns: int = 0
    """Arrival of the response's status line."""
    t_end_ns: int = 0
    """Arrival of the stream's final event ([DONE] / message_stop), or of the failure."""
    in_flight: int = 0
    """Requests in flight at this one's start, itself included."""
    connection_reused: bool = False
    """True when a kept-alive connection carried the request (no connect time)."""
    status: int = 0
    """HTTP status (0 when none arrived)."""
    chunk_t_ns: list[int] = field(default_factory=list)
    """Arrival (first byte) of every chunk that carried generated content."""
    chunk_kind: list[ChunkKind] = field(default_factory=list)
    """What each of those chunks carried."""
    chunk_text: list[str] = field(default_factory=list)
    """The generated text of each chunk (reasoning and tool-call arguments included)."""
    chunk_cum_tokens: list[int | None] = field(default_factory=list)
    """Cumulative output tokens reported on each chunk, when the server sends running usage."""
    events: int = 0
    """SSE events received, content-carrying or not."""
    usage_output_tokens: int | None = None
    """Output tokens from the server's usage block, if it sent one."""
    usage_input_tokens: int | None = None
    """Prompt tokens from the server's usage block, if it sent one."""
    server_request_id: str | None = None
    """The server's id for the request (x-request-id / request-id header, else the stream's id)."""
    usage_cached_tokens: int | None = None
    """Prompt tokens the server served from its cache (usage.prompt_tokens_details)."""
    server_timings: dict[str, Any] | None = None
    """The server's own timing block, when it sends one (llama.cpp `timings`)."""
    finish_reason: str | None = None
    """Why generation stopped, as the server said."""
    done: bool = False
    """True once [DONE] / message_stop arrived."""
    error_kind: str | None = None
    """One of ERROR_KINDS when the request failed; a failed request is never a latency."""
    error: str | None = None
    """What went wrong, in words."""

    def answer_text(self) -> str:
        """The answer's text (content only: no reasoning, no tool-call arguments)."""
        return "".join(
            t for t, k in zip(self.chunk_text, self.chunk_kind, strict=True) if k == "text"
        )

    def fail(self, kind: str, message: str, t_ns: int) -> None:
        """Record the first failure only: a reset after a malformed line is still malformed."""
        if self.error_kind is None:
            self.error_kind = kind
            self.error = message[:500]
            self.t_end_ns = t_ns

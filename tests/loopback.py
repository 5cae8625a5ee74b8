"""A real HTTP server on 127.0.0.1 in a thread, for the fakes of remote services."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def running(handler: type[BaseHTTPRequestHandler]) -> Iterator[ThreadingHTTPServer]:
    """Serve `handler` on a free loopback port until the block ends (then shut down,
    close the socket and join the thread, so no test leaks a server)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def url_of(server: ThreadingHTTPServer) -> str:
    """http://127.0.0.1:PORT of a running server."""
    return f"http://127.0.0.1:{server.server_address[1]}"

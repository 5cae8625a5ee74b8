"""A file server on 127.0.0.1 standing in for the corpora's hosts (GitHub, Hugging Face,
arXiv, amd.com): serves in-memory files, honours `Range: bytes=N-` with 206, answers 404
for anything else, and can cut chosen files off mid-body (a truncated download). Every
request is logged, so tests see the Range headers that were sent."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from loopback import running, url_of


@dataclass
class FileServer:
    files: dict[str, bytes]
    base: str = ""
    cut: dict[str, int] = field(default_factory=dict)
    """path -> bytes sent before the connection is closed (Content-Length stays whole)."""
    log: list[tuple[str, str | None]] = field(default_factory=list)
    """(path, Range header) of every request."""

    def url(self, path: str) -> str:
        return f"{self.base}/{path}"


@contextmanager
def serve(files: dict[str, bytes]) -> Iterator[FileServer]:
    state = FileServer(dict(files))

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            path = self.path.lstrip("/")
            rng = self.headers.get("Range")
            state.log.append((path, rng))
            body = state.files.get(path)
            if body is None:
                self.send_error(404, "Not Found")
                return
            start = 0
            m = re.fullmatch(r"bytes=(\d+)-", rng or "")
            if m:
                start = int(m.group(1))
                if start >= len(body):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(body)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
            else:
                self.send_response(200)
            chunk = body[start:]
            self.send_header("Content-Length", str(len(chunk)))
            self.end_headers()
            limit = state.cut.get(path)
            if limit is not None:
                self.wfile.write(chunk[: max(0, limit - start)])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(chunk)

    with running(Handler) as server:
        state.base = url_of(server)
        yield state


def manifest_for(
    server: FileServer, layout: dict[str, dict[str, str]], out: Path, **overrides: Any
) -> Path:
    """Write a sources.json pinning `layout` (source -> cache name -> served path) to the
    server's files (sha256 and size computed from what it serves)."""
    sources: dict[str, Any] = {}
    for source, names in layout.items():
        files = {}
        for name, served in names.items():
            body = server.files.get(served, b"")
            files[name] = {
                "url": server.url(served),
                "sha256": hashlib.sha256(body).hexdigest(),
                "bytes": len(body),
            }
        sources[source] = {
            "title": f"stand-in {source}",
            "homepage": server.base,
            "license": "test data",
            "files": files,
        }
    data = {"schema": 1, "sources": sources, **overrides}
    out.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return out

"""The view served on 127.0.0.1 (standard library http.server; one thread, so the SQLite
connection stays on the thread that opened it). Each request brings the index up to date
first, so a run that finished a moment ago shows on reload."""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit

from gaia_eval.view import site
from gaia_eval.view.catalog import Catalog

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def make_server(catalog: Catalog, host: str, port: int) -> HTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlsplit(self.path)
            name = url.path.lstrip("/")
            catalog.refresh()
            if name == "compare":
                query = parse_qs(url.query)
                a, b = query.get("a", [""])[0], query.get("b", [""])[0]
                self._send(site.compare(catalog, a, b))
                return
            report = site.report_file(catalog, name)
            if report is not None:
                self._send(report.read_text(encoding="utf-8", errors="replace"))
                return
            self._send(site.page(catalog, name, live=True))

        def _send(self, body: str | None) -> None:
            code = 200 if body is not None else 404
            data = (body or "<!DOCTYPE html><title>not found</title><p>No such page.").encode()
            self.send_response(code)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            sys.stderr.write(f"view: {format % args}\n")

    return HTTPServer((host, port), Handler)

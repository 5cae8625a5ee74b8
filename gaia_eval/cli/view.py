"""`gaia-eval view [RESULTS_DIR...]`: every suite's runs in a browser (Now, History,
Compare, Flaky), served on 127.0.0.1 or written as a static site (`--static OUT`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "view"
HELP = "Browse every run: Now, History per suite, Compare two runs, Flaky items (local web UI)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dirs", nargs="*", type=Path, metavar="RESULTS_DIR",
        help="results folders to show (default: eval/results)",
    )  # fmt: skip
    parser.add_argument("--port", type=int, default=8765, help="port to serve on (default 8765)")
    parser.add_argument(
        "--host", default="127.0.0.1",
        help="address to bind (default 127.0.0.1; another shows your results to the network)",
    )  # fmt: skip
    parser.add_argument(
        "--static", type=Path, metavar="OUT", help="write the pages into OUT and exit"
    )
    parser.add_argument(
        "--reindex", action="store_true", help="rebuild each folder's index from its run folders"
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.core.rundir import RESULTS_ROOT
    from gaia_eval.view.catalog import Catalog
    from gaia_eval.view.server import LOOPBACK, make_server
    from gaia_eval.view.site import write_static

    if not 0 <= args.port <= 65535:
        msg = f"--port {args.port}: give a port from 0 to 65535"
        raise InvalidInputError(msg)
    catalog = Catalog(args.dirs or [RESULTS_ROOT], reindex=args.reindex)
    try:
        runs = len(catalog.runs())
        if args.static is not None:
            pages = write_static(catalog, args.static)
            print(f"view: {runs} runs, {len(pages)} pages in {args.static}")
            return 0
        if args.host not in LOOPBACK:
            print(
                f"warning: --host {args.host}: the view is reachable from other machines; "
                "it has no login, and it shows every result it indexes",
                file=sys.stderr,
            )
        server = make_server(catalog, args.host, args.port)
        port = server.server_address[1]
        print(f"view: {runs} runs at http://{args.host}:{port}/ (Ctrl-C stops it)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
        return 0
    finally:
        catalog.close()

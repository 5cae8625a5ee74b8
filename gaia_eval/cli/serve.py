"""`gaia-eval serve --model local [--port P]`: the embedded local model in the foreground.

Several runs can share it through the spec it prints (`openai:<url>#<model>`); Ctrl-C (or
SIGTERM) stops it. It listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from types import FrameType

from gaia_eval.core.errors import InfrastructureError, InvalidInputError

NAME = "serve"
HELP = "Run the embedded local model (llama.cpp server) on 127.0.0.1 until Ctrl-C."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model", default="local", help="a local model spec: local | local:smollm2-135m"
    )
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: free)")
    parser.add_argument("--threads", type=int, help="CPU threads (default: chosen for the machine)")
    parser.add_argument("--slots", type=int, help="parallel requests (default: for the machine)")
    parser.add_argument(
        "--max-tokens", type=int, help="reply cap when a request names none (default 512)"
    )


class _Stop(Exception):
    """SIGTERM, turned into an orderly stop."""


def _on_term(signum: int, frame: FrameType | None) -> None:
    raise _Stop


def run(args: argparse.Namespace) -> int:
    from gaia_eval.llm.local_server import LocalServer
    from gaia_eval.llm.spec import parse_model_spec

    spec = parse_model_spec(args.model)
    if spec.backend != "local":
        msg = f"--model {args.model!r}: serve runs the embedded model only ('local'); other specs are servers already"  # noqa: E501
        raise InvalidInputError(msg)
    for flag in ("port", "threads", "slots", "max_tokens"):
        value = getattr(args, flag)
        if value is not None and (value < 0 or (value == 0 and flag != "port")):
            msg = f"--{flag.replace('_', '-')} {value}: expected a positive number"
            raise InvalidInputError(msg)
    server = LocalServer(
        spec.model,
        port=args.port,
        threads=args.threads,
        slots=args.slots,
        max_tokens=args.max_tokens,
    )
    previous = signal.signal(signal.SIGTERM, _on_term)
    try:
        server.start()
        info = server.info
        assert info is not None
        print(server.openai_spec, flush=True)
        rss = server.rss_bytes()
        print(
            f"gaia-eval: serving {spec.text} (pid {server.pid}, {info.threads} thread(s), "
            f"{info.parallel_slots} slots x {info.ctx_per_slot} tokens, "
            f"{info.server} {info.server_version}"
            + (f", {rss / 2**20:.0f} MiB resident" if rss else "")
            + f", ready in {info.startup_s:.1f}s)\n"
            f"  OpenAI-compatible: {server.openai_base_url} (use the spec above)\n"
            f"  Anthropic Messages: base URL {server.base_url}\n"
            f"  {info.note}\n"
            "  Ctrl-C stops it.",
            file=sys.stderr,
            flush=True,
        )
        while server.running():
            time.sleep(0.5)
        msg = f"{spec.text}: the server at {server.base_url} exited on its own"
        raise InfrastructureError(msg)
    except (KeyboardInterrupt, _Stop):
        print("gaia-eval: stopping the local model", file=sys.stderr)
        return 0
    finally:
        server.stop()
        signal.signal(signal.SIGTERM, previous)

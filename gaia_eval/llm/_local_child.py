"""The local model's server process (started by gaia_eval.llm.local_server, never by hand).

    python -m gaia_eval.llm._local_child < pipe

The first line on stdin is the JSON config. The server (llama.cpp's, inside xllamacpp)
then runs on its own threads while the main thread blocks reading stdin: when the parent
closes the pipe or dies, the read returns and the process exits, so it never outlives the
run that started it.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from typing import Any

READY_PREFIX = "GAIA_EVAL_LOCAL_READY "
PR_SET_PDEATHSIG = 1


def _say(msg: dict[str, Any]) -> None:
    sys.stdout.write(READY_PREFIX + json.dumps(msg) + "\n")
    sys.stdout.flush()


def _die_with_parent(parent_pid: int) -> None:
    """SIGKILL us when the parent's (main) thread dies; Linux only, the pipe is the rest."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent_pid:  # it died before the prctl took effect
        os._exit(1)


def main() -> int:
    config = json.loads(sys.stdin.buffer.readline())
    if config.get("pdeathsig"):
        _die_with_parent(int(config["parent_pid"]))
    try:
        import xllamacpp as xlc

        params = xlc.CommonParams()
        params.model.path = config["model_path"]
        params.model_alias = {config["alias"]}
        params.hostnames = [config["host"]]
        params.port = int(config["port"])  # 0: the server binds a free port
        slots = int(config["slots"])
        params.n_parallel = slots
        params.n_ctx = slots * int(config["ctx_per_slot"])
        params.cpuparams.n_threads = int(config["threads"])
        params.cpuparams_batch.n_threads = int(config["threads"])
        params.n_predict = int(config["max_tokens"])  # a default: a request's max_tokens wins
        params.endpoint_metrics = True
        server = xlc.Server(params)
    except Exception as err:
        _say({"error": f"{type(err).__name__}: {err}"})
        return 1
    build = dict(getattr(xlc, "BUILD_INFO", {}) or {})
    _say({"url": server.listening_address, "version": xlc.__version__, "build": build})
    # Nobody reads our stdout after the ready line: later prints go to the log instead of
    # filling a pipe.
    os.dup2(2, 1)
    sys.stdin.buffer.read()  # returns at EOF: the parent stopped us or died
    # No orderly teardown: the server holds nothing that needs flushing, and a busy slot
    # must not keep a dead run's server alive.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())

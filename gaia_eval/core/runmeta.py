"""Run metadata recorded in every result: machine, package version, git state, timing."""

from __future__ import annotations

import os
import platform
import subprocess
import time
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict


class Machine(BaseModel):
    """The machine a run measured on; gates and readers use it to judge comparability."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    cpu: str
    """CPU model name as the OS reports it."""
    logical_cpus: int
    """Logical CPUs visible to the process."""
    ram_gb: float
    """Physical memory in GiB, one decimal."""
    os: str
    """OS name and release."""
    python: str
    """Python implementation and version."""


class RunMeta(BaseModel):
    """Identity and timing of one run."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    package_version: str
    """gaia-eval version that ran."""
    git_sha: str | None
    """Commit of the checkout the run came from, if any."""
    git_dirty: bool | None
    """True when the checkout had uncommitted changes."""
    started: str
    """Local ISO-8601 start time with UTC offset."""
    duration_s: float | None = None
    """Wall seconds, filled when the run ends."""
    machine: Machine
    """Where it ran."""


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if platform.system() == "Darwin":
        try:
            out = subprocess.run(
                ["sysctl", "-n", "machdep.cpu.brand_string"],
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
            )
            if out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or platform.machine() or "unknown"


def _ram_gb() -> float:
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        size = os.sysconf("SC_PAGE_SIZE")
        return round(pages * size / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        return 0.0


def machine() -> Machine:
    """Describe this machine."""
    return Machine(
        cpu=_cpu_name(),
        logical_cpus=os.cpu_count() or 1,
        ram_gb=_ram_gb(),
        os=f"{platform.system()} {platform.release()}",
        python=f"{platform.python_implementation()} {platform.python_version()}",
    )


def git_state(cwd: Path | None = None) -> tuple[str | None, bool | None]:
    """(sha, dirty) of the git checkout at `cwd`, or (None, None) outside one."""
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if sha.returncode != 0:
            return None, None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        return sha.stdout.strip(), bool(status.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        return None, None


def now_iso() -> str:
    """Local time, ISO-8601 with offset, to the second."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


def timestamp_slug() -> str:
    """A folder-safe timestamp for run directories (YYYYmmdd-HHMMSS)."""
    return datetime.now().strftime("%Y%m%d-%H%M%S")


class RunClock:
    """Start a run's clock and produce its RunMeta at any point."""

    def __init__(self, cwd: Path | None = None) -> None:
        from gaia_eval import __version__

        self._t0 = time.perf_counter()
        sha, dirty = git_state(cwd)
        self.meta = RunMeta(
            package_version=__version__,
            git_sha=sha,
            git_dirty=dirty,
            started=now_iso(),
            machine=machine(),
        )

    def elapsed(self) -> float:
        return round(time.perf_counter() - self._t0, 3)

    def finish(self) -> RunMeta:
        """The metadata with the duration so far filled in."""
        return self.meta.model_copy(update={"duration_s": self.elapsed()})

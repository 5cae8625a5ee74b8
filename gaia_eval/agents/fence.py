"""`--fence`: the agent runs with the answers out of its reach.

What is hidden: the task definitions and reference attempts (the package's data folder),
every earlier tasks run folder this machine recorded (wherever its `--out` was), the
default and configured results roots, the whole work root (every other task's workdir, the
SWE-bench cache with its gold patches, the bare-repo cache), the temp folders of other runs,
this task's baseline, the git checkout gaia_eval runs from (with its common git folder and
every worktree: their history holds the answers), every suite's data folder, and any extra
paths the task adds (on SWE-bench, the installed copy of the package under test). What
stays: the task's own folder (read-write) and the toolchain (read-only), bound back inside
whatever hid them; everything else is read-only.

Linux uses bubblewrap: the file system read-only, a fresh private temp folder, each hidden
folder covered by an empty read-only tmpfs and each hidden file by /dev/null, in order
(hide, bind back, hide again). macOS uses
sandbox-exec with a deny/allow profile in the same order. Anything else, or a machine where
the tool cannot create a sandbox, is refused before the run starts (preflight), never
pretended.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gaia_eval.core.rundir import RESULTS_ROOT

RUNS_FILE = "tasks/runs.txt"
RESULTS_ENV = ("GAIA_EVAL_TASKS_RESULTS_DIR", "GAIA_BENCH_RESULTS_DIR")
RUN_TEMP_PREFIX = "gaia-eval-run-"


def registry_path() -> Path:
    """Where every tasks run records its folder: `<cache root>/tasks/runs.txt`."""
    from gaia_eval.core.cachedir import cache_root

    return cache_root() / RUNS_FILE


def register_run(out_dir: Path) -> None:
    """Record a run folder so that later fenced runs hide it, wherever it is.

    Appended (one absolute path a line) rather than rewritten: two runs at once each add
    their line, and a line of a folder since deleted is skipped when read.
    """
    path = registry_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    line = str(out_dir.resolve())
    if "\n" in line:
        return  # a folder name with a newline cannot be one line; the results root covers it
    known = set(_registered())
    if line in known:
        return
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def _registered() -> list[str]:
    try:
        text = registry_path().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [ln for ln in text.splitlines() if ln.startswith("/")]


def earlier_results() -> list[Path]:
    """Every results folder a fenced agent must not see: the recorded run folders that
    still exist, the default results root and the configured ones."""
    out = [Path(p) for p in _registered()]
    out.append(RESULTS_ROOT.resolve())  # every run's default folder, hidden as a whole
    out += [Path(os.environ[k]).resolve() for k in RESULTS_ENV if os.environ.get(k, "").strip()]
    return out


def other_run_temps(own: Path | None) -> list[Path]:
    """Temp folders of other runs (their default work roots hold their tasks' workdirs)."""
    root = Path(tempfile.gettempdir())
    return [p for p in root.glob(f"{RUN_TEMP_PREFIX}*") if own is None or p != own]


@dataclass(frozen=True)
class FencePlan:
    """What the agent cannot see, and what it keeps, applied in this order."""

    hide: tuple[Path, ...]
    """Made empty (folders) or unreadable (files)."""
    expose: tuple[Path, ...]
    """Bound back read-write (the task's own folder)."""
    expose_ro: tuple[Path, ...]
    """Bound back read-only (the toolchain)."""
    rehide: tuple[Path, ...]
    """Hidden again inside an exposed folder (the task's baseline)."""


def _norm(paths: Iterable[Path]) -> list[Path]:
    """Existing, resolved, deduplicated, in the given order."""
    out: list[Path] = []
    for p in paths:
        try:
            r = p.resolve()
        except OSError:
            continue
        if r.exists() and r != Path("/") and r not in out:
            out.append(r)
    return out


def _inside(p: Path, root: Path) -> bool:
    return p == root or root in p.parents


def toolchain_roots() -> list[Path]:
    """The running interpreter's prefix (its python and packages) and gaia_eval itself,
    which the agent's own process and the checks need."""
    import gaia_eval

    # The package too: an editable install lives in a checkout that a hidden folder may
    # contain (its data folder is hidden again after the bind).
    return _norm([Path(sys.prefix), Path(sys.executable).parent, Path(gaia_eval.__file__).parent])


def plan(
    *,
    task_root: Path,
    hide: Iterable[Path],
    rehide: Iterable[Path] = (),
    keep_ro: Iterable[Path] = (),
) -> FencePlan:
    """A plan that hides `hide`, keeps `task_root` (read-write) and the toolchain plus
    `keep_ro` (read-only) even when a hidden folder contains them, then hides `rehide`.

    A hidden path that contains the task root or a toolchain root is covered and those
    bound back; one inside the task root is moved to `rehide` so that the bind back does
    not undo it."""
    root = _norm([task_root])
    hidden = _norm(hide)
    again = _norm(rehide)
    for h in list(hidden):
        if root and _inside(h, root[0]) and h != root[0]:
            hidden.remove(h)
            again.append(h)
    # Bound back: what a hidden folder (or bubblewrap's fresh temp folder) would cover.
    tmp = Path(tempfile.gettempdir()).resolve()
    keep = [
        k
        for k in _norm([*toolchain_roots(), *keep_ro])
        if _inside(k, tmp) or any(_inside(k, h) for h in hidden)
    ]
    # A hidden path inside a kept toolchain root would be re-exposed by its bind: hide it
    # after the binds instead.
    for h in list(hidden):
        if any(_inside(h, k) and h != k for k in keep):
            hidden.remove(h)
            again.append(h)
    # The task's folder is always bound back read-write: everything else is read-only
    # inside bubblewrap (bwrap_argv), hidden or not.
    expose = root
    return FencePlan(tuple(hidden), tuple(expose), tuple(keep), tuple(dict.fromkeys(again)))


@dataclass(frozen=True)
class FenceExtra:
    """What a kind adds to the standard fence plan."""

    hide: Sequence[Path] = field(default_factory=tuple)
    keep_ro: Sequence[Path] = field(default_factory=tuple)


# ---- bubblewrap (Linux) ------------------------------------------------------------------


def _cover(p: Path) -> list[str]:
    return ["--tmpfs", str(p)] if p.is_dir() else ["--ro-bind", "/dev/null", str(p)]


def bwrap_argv(argv: list[str], fp: FencePlan, exe: str = "bwrap") -> list[str]:
    """`argv` inside bubblewrap; the mounts apply in sequence, so order is the plan's."""
    # A pid namespace with its own /proc: otherwise /proc/<host pid>/root is a way around
    # every hidden path (it shows the host's mounts, not the sandbox's).
    # Everything read-only (the toolchain, the standard library, $HOME, /etc, the checkout);
    # the devices as they are; a fresh, private temp folder; then the plan's mounts.
    tmp = Path(tempfile.gettempdir()).resolve()
    out = [exe, "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--die-with-parent"]
    out += ["--unshare-pid", "--proc", "/proc", "--tmpfs", str(tmp)]
    if tmp != Path("/tmp") and Path("/tmp").is_dir():
        out += ["--tmpfs", "/tmp"]
    bound = list(fp.expose_ro)

    def holds_a_bind(p: Path) -> bool:
        # A path bound back inside a hidden folder of the fresh temp folder makes its mount
        # points there (a checkout under /tmp): cover and seal that folder as well.
        return any(_inside(b, p) for b in [*bound, *fp.expose])

    for p in fp.hide:
        # Inside the fresh temp folder it is not there anyway, unless a bind recreates it.
        if not _inside(p, tmp) or holds_a_bind(p):
            out += _cover(p)
    for p in bound:
        out += ["--ro-bind", str(p), str(p)]
    for p in fp.expose:
        out += ["--bind", str(p), str(p)]
    for p in fp.rehide:
        if not _inside(p, tmp) or any(_inside(p, b) for b in [*bound, *fp.expose]):
            out += _cover(p)
    # Last, once every mount point inside them exists: the covers are read-only too.
    for p in [*fp.hide, *fp.rehide]:
        inside_bind = any(_inside(p, b) for b in fp.expose)
        if p.is_dir() and (not _inside(p, tmp) or inside_bind or holds_a_bind(p)):
            out += ["--remount-ro", str(p)]
    return [*out, "--", *argv]


# ---- sandbox-exec (macOS) ----------------------------------------------------------------


def _sb_quote(p: Path) -> str:
    return '"' + str(p).replace("\\", "\\\\").replace('"', '\\"') + '"'


def sandbox_profile(fp: FencePlan) -> str:
    """A sandbox-exec profile in the plan's order; later rules win in SBPL, and an allow
    must name file-read-data, or the deny on a parent still blocks reading the workdir."""
    lines = ["(version 1)", "(allow default)"]
    for p in fp.hide:
        lines.append(f"(deny file-read* file-write* (subpath {_sb_quote(p)}))")
    for p in fp.expose_ro:
        lines.append(
            f"(allow file-read* file-read-data file-read-metadata (subpath {_sb_quote(p)}))"
        )
    for p in fp.expose:
        lines.append(f"(allow file-read* file-read-data file-write* (subpath {_sb_quote(p)}))")
    for p in fp.rehide:
        lines.append(f"(deny file-read* file-write* (subpath {_sb_quote(p)}))")
    return "\n".join(lines) + "\n"


def sandbox_exec_argv(argv: list[str], fp: FencePlan) -> list[str]:
    return ["sandbox-exec", "-p", sandbox_profile(fp), *argv]


# ---- choosing the mechanism ---------------------------------------------------------------


def mechanism(platform: str | None = None) -> str | None:
    """ "bwrap" or "sandbox-exec" when one can fence here, else None."""
    platform = platform or sys.platform
    if platform == "darwin":
        return "sandbox-exec" if shutil.which("sandbox-exec") else None
    if not platform.startswith("linux"):
        return None
    exe = shutil.which("bwrap")
    if exe is None:
        return None
    try:
        # The same kind of mounts a real fence uses, so a kernel that refuses them says so now.
        probe = subprocess.run(
            [*bwrap_argv(["true"], FencePlan((Path("/tmp"),), (), (), ()), exe)],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return "bwrap" if probe.returncode == 0 else None


def why_unavailable(platform: str | None = None) -> str:
    """The install hint for the preflight message."""
    platform = platform or sys.platform
    if platform == "darwin":
        return "sandbox-exec for --fence: it is not on PATH (it ships with macOS)"
    if not platform.startswith("linux"):
        return f"--fence: no sandbox on {platform} (bubblewrap on Linux, sandbox-exec on macOS)"
    if shutil.which("bwrap") is None:
        return (
            "bubblewrap (bwrap) for --fence: not installed; install the Debian/Ubuntu package "
            "bubblewrap (apt-get install bubblewrap)"
        )
    return (
        "bubblewrap (bwrap) for --fence: it cannot create a sandbox here (user namespaces "
        "are disabled, e.g. kernel.unprivileged_userns_clone=0 or an AppArmor userns "
        "restriction); refused rather than pretended"
    )


def wrap(argv: list[str], fp: FencePlan, platform: str | None = None) -> list[str]:
    """`argv` inside this platform's fence (preflight has checked one exists)."""
    if (platform or sys.platform) == "darwin":
        return sandbox_exec_argv(argv, fp)
    return bwrap_argv(argv, fp)


def package_answers() -> list[Path]:
    """Every suite's data folder inside the package (task definitions, reference solutions,
    hidden tests, replays) and its committed baselines."""
    import gaia_eval

    pkg = Path(gaia_eval.__file__).parent
    return [p for p in [*sorted(pkg.glob("*/data")), pkg / "baselines"] if p.is_dir()]


def checkouts() -> list[Path]:
    """The git checkout the package runs from (its history holds every answer key), and the
    one the run started in: hidden as a whole, the toolchain bound back inside it."""
    import gaia_eval

    out: list[Path] = []
    for start in (Path(gaia_eval.__file__).resolve().parent, Path.cwd().resolve()):
        for d in (start, *start.parents):
            if (d / ".git").exists() and d != Path("/"):
                out += [d, *_worktrees(d / ".git")]
                break
    return list(dict.fromkeys(out))


def _worktrees(dot_git: Path) -> list[Path]:
    """The main checkout and every linked worktree of the repository `dot_git` belongs to
    (a linked worktree's objects live in the main checkout's .git)."""
    try:
        if dot_git.is_file():
            text = dot_git.read_text(encoding="utf-8").strip()
            gitdir = (dot_git.parent / text.removeprefix("gitdir:").strip()).resolve()
            common_file = gitdir / "commondir"
            common = (
                (gitdir / common_file.read_text(encoding="utf-8").strip()).resolve()
                if common_file.is_file()
                else gitdir
            )
        else:
            common = dot_git.resolve()
        out = [common.parent if common.name == ".git" else common]
        for link in sorted((common / "worktrees").glob("*/gitdir")):
            out.append(Path(link.read_text(encoding="utf-8").strip()).parent)
    except (OSError, UnicodeDecodeError):
        return []
    return [p for p in out if p.is_absolute()]


def standard_hide(answer_keys: Path, results_dir: Path, work_root: Path) -> list[Path]:
    """What every fenced task hides: the suite's answer keys (its data folder), every data
    folder and baseline of the package, the git checkouts, this run's and every earlier
    run's results, the run registry, the work root and other runs' temp folders."""
    return [
        answer_keys,
        *package_answers(),
        *checkouts(),
        results_dir,
        *earlier_results(),
        registry_path(),
        work_root,
        *other_run_temps(None),
    ]


def task_plan(
    *,
    answer_keys: Path,
    task_root: Path,
    baseline: Path | None,
    results_dir: Path,
    work_root: Path,
    extra_hide: Iterable[Path] = (),
    keep_ro: Iterable[Path] = (),
) -> FencePlan:
    """The standard plan for one task: answer keys, every results folder, every workdir
    and cache, other runs' temp folders and the extra paths hidden; the task's folder and
    toolchain kept; its baseline hidden again."""
    hide = [*standard_hide(answer_keys, results_dir, work_root), *extra_hide]
    return plan(
        task_root=task_root,
        hide=hide,
        rehide=[baseline] if baseline is not None else [],
        keep_ro=keep_ro,
    )

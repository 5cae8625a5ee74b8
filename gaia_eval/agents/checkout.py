"""The agent's checkout of a real repository at one commit, with no way to the fix.

Built the same way for SWE-bench and TheRock tasks: a bare cache per repository under
`<work root>/git-cache/` (the layout the code-retrieval suite uses, so the two share it),
fetched by commit to depth 200 so that a cache this module creates never holds the fix; a
single-branch `file://` clone of it (a plain local path would make git ignore `--depth`
and copy every object), detached at the commit, its branch and remote removed, and
`git fsck --unreachable --no-reflogs` required to find nothing. Commits named as
forbidden (the merge of the fix, when known) must not exist as objects in the checkout.

Every value from outside (repository names, commits, URLs) is validated with
core.safe_args and follows `--end-of-options` or `--`.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from gaia_eval.core import safe_args
from gaia_eval.core.errors import InfrastructureError, InvalidInputError

DEPTH = 200
GIT_TIMEOUT_S = 1800
GITHUB_TEMPLATE = "https://github.com/{repo}.git"
# A full id only: an abbreviated one cannot be fetched by commit.
_FULL = 40


def shared_work_root(work_root: Path | None) -> Path:
    """Where caches that outlive a run live: `--work-root`, else `<tmp>/gaia-eval-work`
    (the code-retrieval suite's default, so both fill one bare-repo cache)."""
    return Path(work_root) if work_root else Path(tempfile.gettempdir()) / "gaia-eval-work"


def bare_path(cache_root: Path, repo: str) -> Path:
    """`<cache root>/git-cache/<owner>+<name>.git` (code_retrieval.repos uses the same)."""
    return cache_root / "git-cache" / f"{repo.replace('/', '+')}.git"


def git(cwd: Path, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
    """Run git; a failure is an InfrastructureError naming the command and git's message."""
    full_env = dict(os.environ if env is None else env)
    full_env.setdefault("GIT_TERMINAL_PROMPT", "0")  # never wait for a password
    try:
        out = subprocess.run(
            ["git", "-c", "core.autocrlf=false", *args],
            cwd=cwd,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            env=full_env,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        msg = f"git {' '.join(args)} in {cwd}: {err}"
        raise InfrastructureError(msg) from err
    if check and out.returncode != 0:
        text = out.stderr.decode("utf-8", "replace").strip()
        msg = f"git {' '.join(args)} in {cwd} failed: {text}"
        raise InfrastructureError(msg)
    return out.stdout.decode("utf-8", "replace")


def is_local(url: str) -> bool:
    """A path or file:// URL (scp-like `host:path` and every other scheme use a network)."""
    if url.startswith("file://"):
        return True
    return "://" not in url and ":" not in url.split("/", 1)[0]


def as_url(source: str) -> str:
    """A local path as a file:// URL (so that git honours --depth); URLs unchanged."""
    if is_local(source) and not source.startswith("file://"):
        return Path(source).resolve().as_uri()
    return source


def full_commit(value: str, where: str) -> str:
    """A 40-hex commit id (validated), lower case."""
    safe_args.commit(value, where)
    if len(value) != _FULL:
        msg = f"{where}: {value!r} must be a full 40-hex commit id to be fetched by commit"
        raise InvalidInputError(msg)
    return value.lower()


def has_commit(repo_dir: Path, commit: str) -> bool:
    out = subprocess.run(
        ["git", "cat-file", "-e", "--end-of-options", f"{commit}^{{commit}}"],
        cwd=repo_dir,
        capture_output=True,
        check=False,
    )
    return out.returncode == 0


def ensure_commit(
    cache_root: Path, repo: str, url: str, commit: str, *, depth: int = DEPTH, offline: bool = False
) -> Path:
    """The bare cache of `repo` holding `commit` (fetched by commit to `depth` if missing)."""
    safe_args.repo(repo, "repository")
    commit = full_commit(commit, f"{repo} commit")
    bare = bare_path(cache_root, repo)
    if not (bare / "HEAD").exists():
        bare.parent.mkdir(parents=True, exist_ok=True)
        git(bare.parent, "init", "-q", "--bare", "--", str(bare))
    if has_commit(bare, commit) and _deep_enough(bare, commit, depth):
        return bare
    src = as_url(url)
    if offline and not is_local(src):
        msg = f"offline: {repo}@{commit[:12]} is not in the cache {bare} and {url} is remote"
        raise InfrastructureError(msg)
    conf = ["-c", "uploadpack.allowAnySHA1InWant=true"] if is_local(src) else []
    git(
        bare,
        *conf,
        "fetch",
        "-q",
        "--no-tags",
        f"--depth={depth}",
        "--end-of-options",
        src,
        commit,
    )
    if not has_commit(bare, commit):
        msg = f"{url}: fetching {commit} did not bring the commit into {bare}"
        raise InfrastructureError(msg)
    return bare


def _deep_enough(bare: Path, commit: str, depth: int) -> bool:
    """The cache already shows `depth` commits of history at `commit` (or all of it), so
    a clone at that depth is the same whichever task filled the cache first."""
    if not (bare / "shallow").exists():
        return True
    out = git(bare, "rev-list", "--count", f"--max-count={depth}", "--end-of-options", commit, "--")
    return int(out.strip() or 0) >= depth


def _ref(commit: str) -> str:
    return f"gaia-eval-base-{commit[:16]}"


def checkout(
    bare: Path,
    commit: str,
    dest: Path,
    *,
    depth: int = DEPTH,
    forbidden: Iterable[str] = (),
) -> Path:
    """A single-branch shallow clone of `bare` at `commit` in `dest`: detached, no branch,
    no remote, nothing unreachable, none of `forbidden` present. Returns `dest`."""
    commit = full_commit(commit, "checkout commit")
    ref = _ref(commit)
    # A branch in the cache for the clone to follow (clone --branch takes no commit id).
    git(bare, "update-ref", "--end-of-options", f"refs/heads/{ref}", commit)
    dest.parent.mkdir(parents=True, exist_ok=True)
    git(
        dest.parent,
        "clone",
        "-q",
        "--single-branch",
        "--no-tags",
        f"--depth={depth}",
        "--branch",
        ref,
        "--",
        bare.resolve().as_uri(),
        str(dest),
    )
    git(dest, "checkout", "-q", "--detach", commit)
    git(dest, "branch", "-q", "-D", "--", ref)
    git(dest, "remote", "remove", "origin")
    git(dest, "reflog", "expire", "--expire=now", "--all")
    verify(dest, commit, forbidden)
    return dest


def verify(dest: Path, commit: str, forbidden: Iterable[str] = ()) -> None:
    """HEAD is `commit`, no ref but HEAD, no remote, nothing unreachable, no forbidden
    object; else InfrastructureError (the task cannot be run honestly)."""
    head = git(dest, "rev-parse", "HEAD").strip()
    problems = []
    if head != commit:
        problems.append(f"HEAD is {head}, not {commit}")
    refs = git(dest, "for-each-ref", "--format=%(refname)").split()
    if refs:
        problems.append(f"refs left: {refs}")
    if git(dest, "remote").strip():
        problems.append("a remote is still configured")
    loose = git(dest, "fsck", "--unreachable", "--no-reflogs").strip()
    if loose:
        problems.append(f"git fsck --unreachable found objects: {loose[:200]}")
    for bad in forbidden:
        safe_args.commit(bad, "forbidden commit")
        if has_commit(dest, bad):
            problems.append(f"the fix {bad[:12]} is present")
    if problems:
        msg = f"checkout {dest} at {commit[:12]} is not sealed: " + "; ".join(problems)
        raise InfrastructureError(msg)


def worktree_patch(project: Path) -> str:
    """The agent's change as a git patch against HEAD, new files included (intent-to-add,
    then `git diff HEAD`, then the index restored), binary changes in full."""
    git(project, "add", "-A", "--intent-to-add", "--", ".")
    try:
        return git(project, "diff", "--binary", "--no-color", "--no-ext-diff", "HEAD", "--")
    finally:
        git(project, "reset", "-q", check=False)

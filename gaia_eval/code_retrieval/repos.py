"""Repositories: a local mirror or a clone from a URL template, one work tree per repository.

`--git-mirror DIR` holds bare or normal clones named `owner+name`; otherwise repositories are
cloned (bare) from `url_template` (default `https://github.com/{repo}.git`) into the work
root once. Each work tree is checked out detached at a commit with a forced checkout and
`git clean -ffdxq`, and HEAD is verified afterwards. With `offline=True` nothing is cloned
from a URL: a repository must be in the mirror or already in the clone cache.

Every value that comes from outside (commits, repository names, paths, the URL) follows
`--end-of-options` or `--`, and a commit is resolved to its full id before `checkout`
(which has no `--end-of-options`), so no value is ever read as a git option.
"""

from __future__ import annotations

from pathlib import Path

# One git runner and one notion of "local" for every suite that checks out repositories
# (the tasks suites share this clone cache too).
from gaia_eval.agents.checkout import bare_path, git, is_local
from gaia_eval.core.errors import InfrastructureError, InvalidInputError

DEFAULT_URL_TEMPLATE = "https://github.com/{repo}.git"


class Repos:
    """Where each repository's objects come from and where its work tree lives."""

    def __init__(
        self,
        work_root: Path,
        mirror: Path | None = None,
        url_template: str = DEFAULT_URL_TEMPLATE,
        cache_root: Path | None = None,
        *,
        offline: bool = False,
    ) -> None:
        self.work_root = Path(work_root)
        # Bare clones outlive a run (they are the slow part); work trees do not.
        self.cache_root = Path(cache_root) if cache_root else self.work_root
        self.mirror = Path(mirror) if mirror else None
        self.url_template = url_template
        self.offline = offline
        if self.mirror is not None and not self.mirror.is_dir():
            msg = f"--git-mirror {self.mirror}: not a directory of clones named owner+name"
            raise InvalidInputError(msg)

    def source(self, repo: str) -> str:
        """A git URL or path that holds the repository's objects."""
        if self.mirror is not None:
            local = self.mirror / repo.replace("/", "+")
            if not local.exists():
                msg = f"--git-mirror {self.mirror}: no clone named {repo.replace('/', '+')}"
                raise InvalidInputError(msg)
            return str(local.resolve())
        # The same cache the tasks suites fill (SWE-bench, TheRock): one per work root.
        bare = bare_path(self.cache_root, repo)
        if (bare / "shallow").exists():
            self._unshallow(repo, bare)
        if not bare.exists():
            # replace, not format: a template is a flag value, and format() would let it
            # reach attributes of the repository string.
            url = self.url_template.replace("{repo}", repo)
            if self.offline and not is_local(url):
                msg = (
                    f"offline: {repo} is not in the clone cache {bare.parent} and cloning "
                    f"{url} would use the network; pass --git-mirror DIR or run once online"
                )
                raise InfrastructureError(msg)
            bare.parent.mkdir(parents=True, exist_ok=True)
            git(bare.parent, "clone", "--bare", "-q", "--", url, str(bare))
        return str(bare)

    def _unshallow(self, repo: str, bare: Path) -> None:
        """A cache the tasks suites fetched by commit is shallow; code retrieval needs the
        history, so fetch the rest (every branch) from the URL once."""
        url = self.url_template.replace("{repo}", repo)
        if self.offline and not is_local(url):
            msg = (
                f"offline: the clone cache {bare} of {repo} is shallow (filled by a tasks run) "
                f"and completing it from {url} would use the network; pass --git-mirror DIR"
            )
            raise InfrastructureError(msg)
        refs = "+refs/heads/*:refs/heads/*"
        git(bare, "fetch", "-q", "--unshallow", "--no-tags", "--end-of-options", url, refs)

    def worktree(self, repo: str) -> Path:
        """The repository's one work tree (created on first use, without a checkout)."""
        tree = self.work_root / "trees" / repo.replace("/", "+")
        if not (tree / ".git").exists():
            tree.parent.mkdir(parents=True, exist_ok=True)
            git(
                tree.parent,
                "clone",
                "-q",
                "--shared",
                "--no-checkout",
                "--",
                self.source(repo),
                str(tree),
            )
        return tree

    def checkout(self, repo: str, commit: str) -> Path:
        tree = self.worktree(repo)
        full = self.resolve(repo, commit)
        git(tree, "checkout", "-q", "-f", "--detach", full)
        git(tree, "clean", "-ffdxq")
        head = git(tree, "rev-parse", "HEAD").strip()
        if head != full:
            msg = f"{repo}: HEAD is {head} after checking out {commit}"
            raise InfrastructureError(msg)
        return tree

    def resolve(self, repo: str, commit: str) -> str:
        """The full id of `commit` (a revision the repository has), else InfrastructureError."""
        tree = self.worktree(repo)
        full = git(tree, "rev-parse", "--verify", "--end-of-options", f"{commit}^{{commit}}")
        return full.strip()

    def commit_time(self, repo: str, commit: str) -> str:
        tree = self.worktree(repo)
        return git(tree, "log", "-1", "--format=%cI", "--end-of-options", commit, "--").strip()

    def show(self, repo: str, commit: str, path: str) -> str | None:
        """A file's text at a commit, or None when it does not exist there."""
        try:
            return git(self.worktree(repo), "show", "--end-of-options", f"{commit}:{path}")
        except InfrastructureError:
            return None

    def first_parent_chain(self, repo: str, tip: str, count: int) -> list[str]:
        tree = self.worktree(repo)
        args = ("rev-list", "--first-parent", f"-n{count}", "--end-of-options", tip, "--")
        revs = git(tree, *args).split()
        if len(revs) < count:
            msg = f"{repo}: history too shallow for {count} commits ending at {tip}"
            raise InfrastructureError(msg)
        return list(reversed(revs))

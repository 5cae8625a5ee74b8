"""The remote repositories a tasks run will clone from, as endpoints to dial before it
starts (core/reach.py): TheRock-style tasks fetch `--therock-url`, SWE-bench tasks GitHub.

A commit already in the bare cache (deep enough), a `--git-mirror` or a local
`--therock-url` needs no network, so it is not listed: an offline machine with a filled
cache still runs. Offline without one, the run stops before the local model starts and
before any task, naming the server once, instead of one git error per task.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from gaia_eval.agents import checkout
from gaia_eval.core.reach import Endpoint


def _selected(cfg: Any) -> list[Any]:
    only = set(cfg.only) if cfg.only else None
    return [t for t in cfg.tasks if only is None or t.id in only]


def _needs_fetch(cfg: Any, repo: str, url: str, commits: list[str]) -> bool:
    if checkout.is_local(url):
        return False
    bare = checkout.bare_path(checkout.shared_work_root(cfg.work_root), repo)
    if not (bare / "HEAD").exists():
        return True
    return not all(checkout.has_commit(bare, c) for c in commits)


def _server(url: str) -> str:
    """`https://github.com` of `https://github.com/ROCm/TheRock`: what is dialled."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def clone_endpoints(cfg: Any) -> list[Endpoint]:
    """One endpoint per remote the selected tasks would fetch from."""
    from gaia_eval.tasks.therock import cache_key, url_of

    out: list[Endpoint] = []
    for task in _selected(cfg):
        if task.therock:
            url = url_of(cfg)
            commits = [task.therock["base"]]
            if cfg.judge_model:  # the judge step fetches the merge for the reference diff
                commits.append(task.therock["merge"])
            if _needs_fetch(cfg, cache_key(url), url, commits):
                what = f"--suite {cfg.suite} (clones {url})"
                out.append(Endpoint(what, _server(url), proxied=True))
        elif task.swebench and cfg.git_mirror is None:
            repo = str(task.swebench["repo"])
            url = checkout.GITHUB_TEMPLATE.replace("{repo}", repo)
            if _needs_fetch(cfg, repo, url, [str(task.swebench["base_commit"])]):
                what = f"--suite {cfg.suite} (clones {repo} from GitHub; or pass --git-mirror)"
                out.append(Endpoint(what, _server(url), proxied=True))
    return out

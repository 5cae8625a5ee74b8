"""What the code-retrieval suite's items do (the declaration is suite.py): the run options,
the system under test, and the item builders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gaia_eval.code_retrieval import quality
from gaia_eval.code_retrieval import suites as suites_mod
from gaia_eval.code_retrieval.instances import Instance, fetch_rows
from gaia_eval.code_retrieval.models import Config, Excluded
from gaia_eval.code_retrieval.repos import Repos
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.plugins import load_factory
from gaia_eval.core.suite import Item
from gaia_eval.embed import Embedder
from gaia_eval.systems.code_index.index import ReferenceCodeIndex
from gaia_eval.systems.code_index.protocol import CodeIndex

VERIFIED = "princeton-nlp/SWE-bench_Verified"
REBENCH = "nebius/SWE-rebench-leaderboard"
MakeIndex = Callable[[Path, Path], CodeIndex]
REFERENCE_SYSTEM = "gaia_eval.code_index"


@dataclass
class RunOptions:
    suite: str = "offline"
    parts: list[str] | None = None
    work_root: Path | None = None
    embedder: str = "hash"
    system: str | None = None
    instances_file: Path | None = None
    git_mirror: Path | None = None
    url_template: str = "https://github.com/{repo}.git"
    offline: bool = False
    datasets_url: str = "https://datasets-server.huggingface.co"


def index_maker(system: str | None, embedder: Embedder) -> MakeIndex:
    if system is None:
        return lambda root, cache: ReferenceCodeIndex(root, cache, embedder)
    builder = load_factory(system, "--system")
    if not callable(builder):
        msg = f"--system {system}: factory() must return a builder(root, cache_dir, embedder)"
        raise InvalidInputError(msg)

    def make(root: Path, cache: Path) -> CodeIndex:
        obj = builder(root, cache, embedder)
        if not isinstance(obj, CodeIndex):
            msg = f"--system {system}: builder(root, cache_dir, embedder) must return a CodeIndex"
            raise InvalidInputError(msg)
        return obj

    return make


def config() -> Config:
    return Config(
        search_depth=quality.SEARCH_DEPTH,
        file_ks=list(quality.FILE_KS),
        symbol_ks=list(quality.SYMBOL_KS),
        seed=suites_mod.SAMPLE_SEED,
        max_repo_chunks=None,
        nightly_max_chunks=suites_mod.NIGHTLY_MAX_CHUNKS,
    )


def parse_only_chunks(repos: Repos, repo: str, commit: str) -> int:
    """Repository size as the index's own discovery and chunker count it, no embedding."""
    from gaia_eval.systems.code_index.chunker import chunk_file
    from gaia_eval.systems.code_index.discovery import discover, read_source

    tree = repos.checkout(repo, commit)
    total = 0
    for rel in discover(tree).files:
        src = read_source(tree, rel)
        if src.text is not None:
            total += len(chunk_file(rel, src.text))
    return total


def quality_item(inst: Instance) -> Item:
    return Item(
        f"quality/{inst.instance_id}",
        definition={"repo": inst.repo, "base_commit": inst.base_commit},
        payload=inst,
    )


def incremental_item(repo: str, tip: str, count: int) -> Item:
    return Item("incremental", definition={"repo": repo, "tip": tip, "commits": count})


def robustness_item(target: str, probes: Sequence[str]) -> Item:
    return Item("robustness", definition={"target": target, "probes": list(probes)})


def scale_item(repo: str, commit: str) -> Item:
    return Item(f"scale/{repo}", definition={"repo": repo, "commit": commit})


def nightly_sample(
    d: suites_mod.Suite, opts: RunOptions, work: Path, repos: Repos, excluded: list[Excluded]
) -> list[Instance]:
    """The nightly draw: a seeded Verified sample plus SWE-rebench splits, size-capped (a
    repository over the tier's chunk cap is left out and listed in `excluded`)."""
    sizes: dict[str, int] = {}

    def fits(inst: Instance) -> bool:
        if d.max_repo_chunks is None:
            return True
        if inst.repo not in sizes:
            sizes[inst.repo] = parse_only_chunks(repos, inst.repo, inst.base_commit)
            if sizes[inst.repo] > d.max_repo_chunks:
                reason = f"{sizes[inst.repo]} chunks > cap"
                excluded.append(Excluded(id=inst.repo, reason=reason))
        return sizes[inst.repo] <= d.max_repo_chunks

    fetch = dict(offline=opts.offline, base_url=opts.datasets_url)
    pool = fetch_rows(VERIFIED, "test", work, **fetch)  # type: ignore[arg-type]
    seed = suites_mod.SAMPLE_SEED
    picks = suites_mod.seeded_sample(pool, d.sample, seed, fits, lambda i: i.instance_id)
    for split in d.rebench_splits:
        rows = fetch_rows(REBENCH, split, work, source="swe-rebench", **fetch)  # type: ignore[arg-type]
        picks += suites_mod.seeded_sample(
            rows, d.rebench_per_split, seed, fits, lambda i: i.instance_id
        )
    return picks

"""The incremental replay: re-index commit by commit, then compare with a fresh index."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gaia_eval.agents.checkout import git
from gaia_eval.code_retrieval.models import Incremental, ReplayStep
from gaia_eval.code_retrieval.repos import Repos
from gaia_eval.core.progress import track
from gaia_eval.core.stats import percentile_nearest_rank
from gaia_eval.systems.code_index.protocol import CodeIndex

MIN_COSINE = 0.999
PROBE_K = 10

IndexFactory = Callable[[Path, Path], CodeIndex]


def compare(inc: CodeIndex, fresh: CodeIndex) -> dict[str, float | int | None]:
    """Stale / missing / mismatched keys and the lowest cosine of matched vectors."""
    groups: list[dict[tuple[str, int, int, str], list[np.ndarray]]] = []
    for index in (inc, fresh):
        chunks, vectors = index.entries()
        if len(chunks) != len(vectors):
            msg = f"index holds {len(vectors)} vectors for {len(chunks)} chunks"
            raise RuntimeError(msg)
        g: dict[tuple[str, int, int, str], list[np.ndarray]] = defaultdict(list)
        for c, v in zip(chunks, vectors, strict=True):
            g[(c.file_path, c.start_line, c.end_line, c.content)].append(v)
        groups.append(g)
    a, b = groups
    stale = sum(len(v) for k, v in a.items() if k not in b)
    missing = sum(len(v) for k, v in b.items() if k not in a)
    mismatches = sum(1 for k in a.keys() & b.keys() if len(a[k]) != len(b[k]))
    cosines: list[float] = []
    for k in a.keys() & b.keys():
        for x, y in zip(a[k], b[k], strict=False):
            nx, ny = float(np.linalg.norm(x)), float(np.linalg.norm(y))
            cosines.append(float(x @ y) / (nx * ny) if nx and ny else float(nx == ny))
    return {
        "only_in_incremental": stale,
        "only_in_fresh": missing,
        "duplicate_count_mismatches": mismatches,
        "min_vector_cosine": round(min(cosines), 6) if cosines else None,
    }


def replay(  # noqa: PLR0917 - one replay's pinned inputs
    repos: Repos, repo: str, tip: str, commits: int, make: IndexFactory, work: Path
) -> Incremental:
    chain = repos.first_parent_chain(repo, tip, commits)
    tree = repos.checkout(repo, chain[0])
    inc = make(tree, work / "incremental-cache")
    t0 = time.perf_counter()
    inc.index()
    first_seconds = time.perf_counter() - t0
    steps: list[ReplayStep] = []
    for commit in track(chain[1:], f"replay {repo}"):
        repos.checkout(repo, commit)
        changed = git(
            tree, "diff", "--name-only", "--end-of-options", f"{commit}^", commit, "--"
        ).split()
        t1 = time.perf_counter()
        rep = inc.index()
        steps.append(
            ReplayStep(
                commit=commit,
                subject=git(
                    tree, "log", "-1", "--format=%s", "--end-of-options", commit, "--"
                ).strip(),
                files_changed=len(changed),
                files_reparsed=rep.files_reparsed,
                chunks=rep.chunks,
                seconds=round(time.perf_counter() - t1, 4),
            )
        )
    fresh = make(tree, work / "fresh-cache")
    t2 = time.perf_counter()
    fresh.index()
    fresh_seconds = time.perf_counter() - t2
    diff = compare(inc, fresh)
    identical, overlaps = 0, []
    for step in steps:
        x = [(h.chunk.file_path, h.chunk.start_line) for h in inc.search(step.subject, PROBE_K)]
        y = [(h.chunk.file_path, h.chunk.start_line) for h in fresh.search(step.subject, PROBE_K)]
        identical += x == y
        overlaps.append(len(set(x) & set(y)) / max(len(y), 1))
    secs = [s.seconds for s in steps] or [0.0]
    min_cos = diff["min_vector_cosine"]
    correct = (
        diff["only_in_incremental"] == 0
        and diff["only_in_fresh"] == 0
        and diff["duplicate_count_mismatches"] == 0
        and (min_cos is None or float(min_cos) >= MIN_COSINE)
    )
    return Incremental(
        repo=repo,
        tip=tip,
        commits=steps,
        first_index_seconds=round(first_seconds, 3),
        fresh_index_seconds=round(fresh_seconds, 3),
        step_seconds_p50=round(percentile_nearest_rank(secs, 50), 4),
        step_seconds_max=round(max(secs), 4),
        only_in_incremental=int(diff["only_in_incremental"] or 0),
        only_in_fresh=int(diff["only_in_fresh"] or 0),
        duplicate_count_mismatches=int(diff["duplicate_count_mismatches"] or 0),
        min_vector_cosine=None if min_cos is None else float(min_cos),
        correct=correct,
        probe_identical_top10=identical,
        probe_mean_overlap_at_10=round(sum(overlaps) / len(overlaps), 4) if overlaps else 1.0,
    )

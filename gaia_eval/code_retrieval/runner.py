"""Run a code-retrieval suite: the only module here that does I/O. It does not print.

Parts run in the order quality -> incremental -> robustness -> scale; `results.json` and
`report.md` are re-saved after each part (and each scale repository) and on any exception,
so finished work is never lost.
"""

from __future__ import annotations

import hashlib
import platform
import shutil
import socket
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gaia_eval.code_retrieval import gate as gate_mod
from gaia_eval.code_retrieval import incremental, offline_repo, quality, report, robustness, scale
from gaia_eval.code_retrieval import suites as suites_mod
from gaia_eval.code_retrieval.instances import Instance, fetch_rows, load_jsonl
from gaia_eval.code_retrieval.models import (
    CodeRetrievalResults,
    Config,
    Environment,
    Excluded,
    Quality,
    QueryRecord,
    Scale,
)
from gaia_eval.code_retrieval.repos import Repos
from gaia_eval.core.errors import GaiaEvalError, InfrastructureError, InvalidInputError
from gaia_eval.core.plugins import load_factory
from gaia_eval.core.progress import track
from gaia_eval.core.results_io import read_json, write_json, write_text
from gaia_eval.core.runmeta import git_state, machine, now_iso
from gaia_eval.embed import Embedder, from_spec
from gaia_eval.systems.code_index.index import ReferenceCodeIndex
from gaia_eval.systems.code_index.protocol import CodeIndex

VERIFIED = "princeton-nlp/SWE-bench_Verified"
REBENCH = "nebius/SWE-rebench-leaderboard"
MakeIndex = Callable[[Path, Path], CodeIndex]


@dataclass
class RunOptions:
    suite: str = "offline"
    parts: list[str] | None = None
    out: Path | None = None
    work_root: Path | None = None
    embedder: str = "hash"
    system: str | None = None
    instances_file: Path | None = None
    git_mirror: Path | None = None
    url_template: str = "https://github.com/{repo}.git"
    offline: bool = False
    datasets_url: str = "https://datasets-server.huggingface.co"
    gate: Path | None = None
    tolerance: float = gate_mod.MAX_DROP


def _maker(system: str | None, embedder: Embedder) -> MakeIndex:
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


def _environment(embedder: str, system: str | None) -> Environment:
    m = machine()
    sha, dirty = git_state(Path(__file__).resolve().parent)
    return Environment(
        machine=socket.gethostname(),
        os=m.os,
        cpu=m.cpu,
        logical_cpus=m.logical_cpus,
        ram_gb=m.ram_gb,
        python=platform.python_version(),
        gaia_commit=sha,
        gaia_dirty=dirty,
        embedding_model=embedder,
        system=system or "gaia_eval.code_index",
    )


def _parse_only_chunks(repos: Repos, repo: str, commit: str) -> int:
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


def _sampled(
    suite: suites_mod.Suite, opts: RunOptions, work: Path, repos: Repos, excluded: list[Excluded]
) -> list[Instance]:
    """The nightly draw: a seeded Verified sample plus SWE-rebench splits, size-capped."""
    sizes: dict[str, int] = {}

    def fits(inst: Instance) -> bool:
        if suite.max_repo_chunks is None:
            return True
        if inst.repo not in sizes:
            sizes[inst.repo] = _parse_only_chunks(repos, inst.repo, inst.base_commit)
            if sizes[inst.repo] > suite.max_repo_chunks:
                excluded.append(Excluded(id=inst.repo, reason=f"{sizes[inst.repo]} chunks > cap"))
        return sizes[inst.repo] <= suite.max_repo_chunks

    pool = fetch_rows(VERIFIED, "test", work, offline=opts.offline, base_url=opts.datasets_url)
    seed = suites_mod.SAMPLE_SEED
    picks = suites_mod.seeded_sample(pool, suite.sample, seed, fits, lambda i: i.instance_id)
    for split in suite.rebench_splits:
        rows = fetch_rows(
            REBENCH, split, work, offline=opts.offline, base_url=opts.datasets_url,
            source="swe-rebench",
        )  # fmt: skip
        picks += suites_mod.seeded_sample(
            rows, suite.rebench_per_split, seed, fits, lambda i: i.instance_id
        )
    return picks


def _instances(suite: suites_mod.Suite, opts: RunOptions, work: Path) -> list[Instance]:
    if opts.instances_file is not None:
        rows = load_jsonl(opts.instances_file, source="swebench-verified")
    elif suite.name == "offline":
        return []  # generated with the repository
    else:
        rows = fetch_rows(VERIFIED, "test", work, offline=opts.offline, base_url=opts.datasets_url)
    if suite.instance_ids:
        by_id = {r.instance_id: r for r in rows}
        missing = [i for i in suite.instance_ids if i not in by_id]
        if missing:
            msg = f"the {suite.name} suite needs instances {missing} that the input lacks"
            raise InvalidInputError(msg)
        rows = [by_id[i] for i in suite.instance_ids]
    return rows


def query_set(instances: list[Instance]) -> str:
    return hashlib.sha256("\n".join(sorted(i.instance_id for i in instances)).encode()).hexdigest()


def run(opts: RunOptions) -> tuple[CodeRetrievalResults, Path]:
    suite = suites_mod.get(opts.suite)
    parts = suites_mod.select_parts(suite, opts.parts)
    from gaia_eval.core.runmeta import timestamp_slug

    out = opts.out or Path("eval/results") / f"retrieval-code-{suite.name}-{timestamp_slug()}"
    work = opts.work_root or Path(tempfile.gettempdir()) / "gaia-eval-work"
    work.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix=f"code-{suite.name}-", dir=work))
    embedder = from_spec(opts.embedder)
    make = _maker(opts.system, embedder)
    mirror = opts.git_mirror
    sample_excluded: list[Excluded] = []
    try:
        if "quality" not in suite.parts:
            instances = []  # nothing to score (scale): no rows to download
        elif suite.sample and opts.instances_file is None:
            instances = _sampled(
                suite, opts, work, Repos(run_dir, mirror, opts.url_template, work), sample_excluded
            )
        else:
            instances = _instances(suite, opts, work)
        if suite.name == "offline":
            mirror = run_dir / "mirror"
            repo = offline_repo.build(mirror / offline_repo.REPO_NAME.replace("/", "+"))
            instances = offline_repo.instances(repo)
        repos = Repos(run_dir, mirror, opts.url_template, cache_root=work)
    except BaseException:
        # Nothing to save yet, but the sampled checkouts in run_dir can be gigabytes.
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    results = CodeRetrievalResults(
        schema=1,
        suite=suite.name,
        parts=parts,
        query_set=query_set(instances),
        started_at=now_iso(),
        environment=_environment(embedder.spec, opts.system),
        config=Config(
            search_depth=quality.SEARCH_DEPTH,
            file_ks=list(quality.FILE_KS),
            symbol_ks=list(quality.SYMBOL_KS),
            seed=suites_mod.SAMPLE_SEED,
            max_repo_chunks=suite.max_repo_chunks,
            nightly_max_chunks=suites_mod.NIGHTLY_MAX_CHUNKS,
        ),
    )
    baseline = None
    if opts.gate is not None:
        baseline = CodeRetrievalResults.model_validate(read_json(opts.gate))

    def save() -> None:
        write_json(out / "results.json", results)
        write_text(out / "report.md", report.render(results, baseline))

    t0 = time.perf_counter()
    try:
        for part in parts:
            if part == "quality":
                results.quality = Quality(queries=[], excluded=list(sample_excluded), summary={})
                _quality(results.quality, instances, repos, make, run_dir, save)
            elif part == "incremental" and suite.replay is not None:
                name, tip, count = suite.replay
                results.incremental = incremental.replay(
                    repos, name, tip, count, make, run_dir / "replay"
                )
            elif part == "robustness" and suite.robustness is not None:
                name, commit, folder = suite.robustness
                tree = repos.checkout(name, commit) / folder
                results.robustness = robustness.run(
                    tree, run_dir / "robustness", embedder, list(suite.probes), f"{name}/{folder}"
                )
            elif part == "scale":
                results.scale = Scale(repos=[], errors=[])
                _scale(results.scale, suite.scale_repos, repos, make, run_dir / "scale", save)
            save()
    except BaseException as err:
        results.error = "".join(traceback.format_exception_only(err)).strip()
        raise
    finally:
        results.duration_s = round(time.perf_counter() - t0, 2)
        if baseline is not None and results.error is None:
            results.comparison = gate_mod.compare(baseline, results, opts.tolerance).model_dump()
        save()
        shutil.rmtree(run_dir, ignore_errors=True)
    return results, out


def _scale(  # noqa: PLR0917 - the part's whole context, passed once
    block: Scale,
    pinned: tuple[tuple[str, str], ...],
    repos: Repos,
    make: MakeIndex,
    cache_root: Path,
    save: Callable[[], None],
) -> None:
    """Measure each pinned repository; one that cannot be obtained or indexed is unmeasured.

    A missing mirror clone, a failed clone or checkout, or an index that cannot embed is
    recorded under `errors` with its reason and the next repository still runs: hours of
    other repositories' figures are worth more than a stop. Results are saved after each.
    """
    save()  # the first repository can take an hour: a killed run still leaves its settings
    for name, commit in track(pinned, "scale repositories"):
        t0 = time.perf_counter()
        try:
            tree = repos.checkout(name, commit)
        except GaiaEvalError as err:
            block.errors.append(
                Excluded(id=name, reason=f"cannot obtain {name} at {commit}: {err}")
            )
            save()
            continue
        try:
            measured = scale.measure(
                name, commit, tree, make, cache_root / name.replace("/", "+"), _texts_at(tree)
            )
        except InfrastructureError as err:
            block.errors.append(Excluded(id=name, reason=f"cannot index {name} at {commit}: {err}"))
        else:
            measured.wall_seconds = round(time.perf_counter() - t0, 2)
            block.repos.append(measured)
        save()
    if pinned and not block.repos:
        msg = (
            f"no scale repository could be measured ({len(block.errors)} unmeasured; "
            "the reasons are in results.json scale.errors)"
        )
        raise InfrastructureError(msg)


def _texts_at(tree: Path) -> Callable[[CodeIndex], dict[str, str]]:
    return lambda ix: quality.reference_texts(ix, tree)()


def _show_at(repos: Repos, inst: Instance) -> Callable[[str], str | None]:
    return lambda path: repos.show(inst.repo, inst.base_commit, path)


def _quality(  # noqa: PLR0917 - the part's whole context, passed once
    q: Quality,
    instances: list[Instance],
    repos: Repos,
    make: MakeIndex,
    run_dir: Path,
    save: Callable[[], None],
) -> None:
    # Oldest base first within each repository, so each re-index only embeds what changed.
    keyed: list[tuple[str, str, Instance]] = []
    for inst in instances:
        try:
            when = inst.created_at or repos.commit_time(inst.repo, inst.base_commit)
        except GaiaEvalError as err:
            q.excluded.append(Excluded(id=inst.instance_id, reason=str(err)))
            continue
        keyed.append((inst.repo, when, inst))
    keyed.sort(key=lambda t: (t[0], t[1], t[2].instance_id))
    indexes: dict[str, CodeIndex] = {}
    for repo, when, inst in track(keyed, "quality queries"):
        try:
            tree = repos.checkout(repo, inst.base_commit)
            index = indexes.get(repo) or make(tree, run_dir / "quality-cache")
            indexes[repo] = index
            rec = quality.score_query(
                inst,
                tree,
                index,
                quality.reference_texts(index, tree),
                _show_at(repos, inst),
            )
            if rec.created_at is None:
                rec.created_at = when
        except InfrastructureError as err:
            rec = QueryRecord(
                id=inst.instance_id,
                source=inst.source,
                repo=repo,
                base_commit=inst.base_commit,
                created_at=when,
                query_chars=len(inst.problem_statement),
                status="error",
                reason=str(err),
            )
            q.excluded.append(Excluded(id=inst.instance_id, reason=f"unmeasured: {err}"))
        q.queries.append(rec)
        q.summary = quality.summarize(q.queries)
        save()

"""The code-retrieval suite on the engine: the only module here that does I/O.

Items: `quality/<instance>` (one SWE-bench query against the code index and the grep
baseline), `incremental` (the replay), `robustness` (cache damage and hostile trees),
`scale/<owner/name>` (fresh-index cost of one pinned repository). The run loop owns the
lock, the run folder, saving after every item, resume, shards and the gate; this module
says how each item runs. An item that cannot be obtained (a clone, a checkout) is
unmeasured and the run goes on: hours of other repositories' figures are worth more than
a stop. A run whose quality part measured nothing is exit 3.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from gaia_eval.code_retrieval import incremental, offline_repo, quality, report, robustness, scale
from gaia_eval.code_retrieval import suites as suites_mod
from gaia_eval.code_retrieval.gate import GATE
from gaia_eval.code_retrieval.instances import Instance, fetch_rows, load_jsonl
from gaia_eval.code_retrieval.models import CodeSummary, Excluded, QueryRecord
from gaia_eval.code_retrieval.report import REPORT
from gaia_eval.code_retrieval.repos import Repos
from gaia_eval.code_retrieval.runner import (
    REBENCH,
    REFERENCE_SYSTEM,
    VERIFIED,
    RunOptions,
    config,
    incremental_item,
    index_maker,
    parse_only_chunks,
    quality_item,
    robustness_item,
    scale_item,
)
from gaia_eval.core.errors import GaiaEvalError, InfrastructureError, InvalidInputError
from gaia_eval.core.results import Envelope
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite
from gaia_eval.embed import from_spec
from gaia_eval.systems.code_index.protocol import CodeIndex


class CodeRetrievalSuite(Suite):
    """`gaia-eval retrieval --component code`."""

    name = "code-retrieval"
    title = "Code retrieval"
    item_model = BaseModel  # per part; item_result() picks the model by id
    item_noun = "item"
    stop_on_infra = False
    gate = GATE
    report = REPORT

    def __init__(self, opts: RunOptions) -> None:
        self.opts = opts
        self.definition = suites_mod.get(opts.suite)
        self.parts = suites_mod.select_parts(self.definition, opts.parts)
        self.embedder = from_spec(opts.embedder)
        self.make = index_maker(opts.system, self.embedder)
        self.work = opts.work_root or Path(tempfile.gettempdir()) / "gaia-eval-work"
        self._scratch: Path | None = None
        self._items: list[Item] | None = None
        self._excluded: list[Excluded] = []
        self._repos: Repos | None = None
        self._when: dict[str, str] = {}
        self._indexes: dict[str, CodeIndex] = {}

    # -- the configured run ----------------------------------------------------------------

    def preflight(self) -> list[str]:
        """A `--git-mirror` that is not a folder: found here, before the lock and the first
        item, not by every item that clones (one "missing" line each)."""
        mirror = self.opts.git_mirror
        if mirror is None or self.definition.name == "offline" or mirror.is_dir():
            return []
        what = "is a file" if mirror.exists() else "does not exist"
        return [
            f"--git-mirror {mirror}: {what}; it must be a folder of local clones named "
            "owner+name (psf+requests); fix the path or leave --git-mirror out to clone"
        ]

    def header_fields(self) -> HeaderFields:
        cfg = config()
        cfg.max_repo_chunks = self.definition.max_repo_chunks
        return HeaderFields(
            tier=self.definition.name,
            system=self.opts.system or REFERENCE_SYSTEM,
            embedder=self.embedder.spec,
            settings=cfg.model_dump(mode="json"),
        )

    @property
    def scratch(self) -> Path:
        if self._scratch is None:
            self.work.mkdir(parents=True, exist_ok=True)
            # Named like the engine's temp folders, so a killed run's checkouts get cleaned.
            self._scratch = Path(tempfile.mkdtemp(prefix=f"gaia-eval-run-{os.getpid()}-code-"))
        return self._scratch

    @property
    def repos(self) -> Repos:
        if self._repos is None:
            mirror = self.opts.git_mirror
            if self.definition.name == "offline":
                mirror = self.scratch / "mirror"
            self._repos = Repos(
                self.scratch,
                mirror,
                self.opts.url_template,
                cache_root=self.work,
                offline=self.opts.offline,
            )
        return self._repos

    def items(self) -> list[Item]:
        if self._items is not None:
            return self._items
        d = self.definition
        out: list[Item] = []
        if "quality" in d.parts:
            out += [quality_item(i) for i in self._instances()]
        if d.replay is not None:
            out.append(incremental_item(*d.replay))
        if d.robustness is not None:
            name, _commit, folder = d.robustness
            out.append(robustness_item(f"{name}/{folder}", d.probes))
        out += [scale_item(name, commit) for name, commit in d.scale_repos]
        self._items = out
        return out

    def select(self, items: Sequence[Item]) -> list[Item]:
        return [i for i in items if i.id.split("/", 1)[0] in self.parts]

    def _instances(self) -> list[Instance]:
        d, opts = self.definition, self.opts
        if d.name == "offline":
            mirror = self.scratch / "mirror"
            repo = offline_repo.build(mirror / offline_repo.REPO_NAME.replace("/", "+"))
            return offline_repo.instances(repo)
        if d.sample and opts.instances_file is None:
            return self._sampled()
        if opts.instances_file is not None:
            rows = load_jsonl(opts.instances_file, source="swebench-verified")
        elif d.instances_file is not None:  # the pinned rows ship in the package
            rows = load_jsonl(suites_mod.DATA_DIR / d.instances_file, source="swebench-verified")
        else:
            rows = fetch_rows(
                VERIFIED, "test", self.work, offline=opts.offline, base_url=opts.datasets_url
            )
        if d.instance_ids:
            by_id = {r.instance_id: r for r in rows}
            missing = [i for i in d.instance_ids if i not in by_id]
            if missing:
                msg = f"the {d.name} suite needs instances {missing} that the input lacks"
                raise InvalidInputError(msg)
            rows = [by_id[i] for i in d.instance_ids]
        return rows

    def _sampled(self) -> list[Instance]:
        """The nightly draw: a seeded Verified sample plus SWE-rebench splits, size-capped."""
        d, opts = self.definition, self.opts
        sizes: dict[str, int] = {}

        def fits(inst: Instance) -> bool:
            if d.max_repo_chunks is None:
                return True
            if inst.repo not in sizes:
                sizes[inst.repo] = parse_only_chunks(self.repos, inst.repo, inst.base_commit)
                if sizes[inst.repo] > d.max_repo_chunks:
                    reason = f"{sizes[inst.repo]} chunks > cap"
                    self._excluded.append(Excluded(id=inst.repo, reason=reason))
            return sizes[inst.repo] <= d.max_repo_chunks

        fetch = dict(offline=opts.offline, base_url=opts.datasets_url)
        pool = fetch_rows(VERIFIED, "test", self.work, **fetch)  # type: ignore[arg-type]
        seed = suites_mod.SAMPLE_SEED
        picks = suites_mod.seeded_sample(pool, d.sample, seed, fits, lambda i: i.instance_id)
        for split in d.rebench_splits:
            rows = fetch_rows(REBENCH, split, self.work, source="swe-rebench", **fetch)  # type: ignore[arg-type]
            picks += suites_mod.seeded_sample(
                rows, d.rebench_per_split, seed, fits, lambda i: i.instance_id
            )
        return picks

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:
        if self._excluded:
            ctx.setup["excluded"] = [e.model_dump(mode="json") for e in self._excluded]

    def ordered(self, items: Sequence[Item], ctx: RunContext) -> list[Item]:
        # Oldest base first within each repository, so each re-index embeds only what
        # changed; the other parts keep their place after quality.
        def key(item: Item) -> tuple[int, str, str, str]:
            if not item.id.startswith("quality/"):
                return (1, "", "", "")
            inst: Instance = item.payload
            try:
                when = inst.created_at or self.repos.commit_time(inst.repo, inst.base_commit)
            except GaiaEvalError:
                when = ""  # run_item meets the same failure and records it unmeasured
            self._when[item.id] = when
            return (0, inst.repo, when, inst.instance_id)

        return sorted(items, key=key)

    def teardown(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
            self._repos = None
            self._indexes.clear()

    def run_item(self, item: Item, ctx: RunContext) -> BaseModel:
        part = item.id.split("/", 1)[0]
        d = self.definition
        try:
            if part == "quality":
                return self._quality(item)
            if part == "incremental":
                assert d.replay is not None
                name, tip, count = d.replay
                return incremental.replay(
                    self.repos, name, tip, count, self.make, self.scratch / "replay"
                )
            if part == "robustness":
                assert d.robustness is not None
                name, commit, folder = d.robustness
                tree = self.repos.checkout(name, commit) / folder
                return robustness.run(
                    tree, self.scratch / "robustness", self.embedder, list(d.probes),
                    f"{name}/{folder}",
                )  # fmt: skip
            repo, commit = item.definition["repo"], item.definition["commit"]
            return self._scale(repo, commit)
        except InfrastructureError:
            raise
        except GaiaEvalError as err:
            # A missing mirror clone or an unreadable commit: the item cannot be measured.
            msg = f"cannot obtain what {item.id} needs: {err}"
            raise InfrastructureError(msg) from err

    def _quality(self, item: Item) -> QueryRecord:
        inst: Instance = item.payload
        when = self._when.get(item.id) or inst.created_at
        if not when:
            when = self.repos.commit_time(inst.repo, inst.base_commit)
        tree = self.repos.checkout(inst.repo, inst.base_commit)
        index = self._indexes.get(inst.repo) or self.make(tree, self.scratch / "quality-cache")
        self._indexes[inst.repo] = index
        rec = quality.score_query(
            inst,
            tree,
            index,
            quality.reference_texts(index, tree),
            lambda path: self.repos.show(inst.repo, inst.base_commit, path),
        )
        if rec.created_at is None:
            rec.created_at = when
        return rec

    def _scale(self, repo: str, commit: str) -> BaseModel:
        t0 = time.perf_counter()
        try:
            tree = self.repos.checkout(repo, commit)
        except GaiaEvalError as err:
            msg = f"cannot obtain {repo} at {commit}: {err}"
            raise InfrastructureError(msg) from err
        cache = self.scratch / "scale" / repo.replace("/", "+")
        measured = scale.measure(
            repo, commit, tree, self.make, cache, lambda ix: quality.reference_texts(ix, tree)()
        )
        measured.wall_seconds = round(time.perf_counter() - t0, 2)
        return measured

    # -- reading results ----------------------------------------------------------------------

    @classmethod
    def item_result(cls, record: object) -> BaseModel | None:
        return report.item_result(record)  # type: ignore[arg-type]

    @classmethod
    def summarise(cls, env: Envelope) -> CodeSummary:
        return report.summarise(env)

    @classmethod
    def unmeasured_reason(cls, env: Envelope) -> str | None:
        quality_ids = [i for i in env.header.item_ids if i.startswith("quality/")]
        if not quality_ids:
            return None
        measured = {r.id for r in env.items if r.status != "infra_error"}
        if any(i in measured for i in quality_ids):
            return None
        # The first cause, so the message says what to fix (a missing clone, no network).
        first = next((r for r in env.items if r.id in quality_ids and r.error), None)
        cause = (
            f" (first: {first.id}: {' '.join(first.error.split())})"
            if first and first.error
            else ""
        )
        return f"the quality part measured none of its {len(quality_ids)} instances{cause}"

"""Cache damage (12 scenarios) and hostile trees (7 hazards) against the reference index.

Each damage scenario works on a copy of a pristine cache, searches it (phase `search`) and
re-indexes then searches (phase `reindex`); an outcome is `correct`, `raised` (loud),
`silent-empty` or `silent-wrong`. `passed` means no phase was silent; `recovers` means the
re-index phase is correct. The hazard checks build real files and links; a link the platform
cannot create is `not-run`, never a pass.
"""

from __future__ import annotations

import ast
import json
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

from gaia_eval.code_retrieval.models import Hazard, Phase, Robustness, Scenario
from gaia_eval.core.progress import track
from gaia_eval.embed import Embedder
from gaia_eval.systems.code_index import cache as cache_mod
from gaia_eval.systems.code_index.discovery import Limits, discover, read_source
from gaia_eval.systems.code_index.index import ReferenceCodeIndex

PROBE_K = 10
SEED = 20260930
Probe = list[tuple[str, int]]


def _probe(index: ReferenceCodeIndex, probes: list[str]) -> list[Probe]:
    return [
        [(h.chunk.file_path, h.chunk.start_line) for h in index.search(q, PROBE_K)] for q in probes
    ]


def classify(results: list[Probe], baseline: list[Probe]) -> Phase:
    if results == baseline:
        return Phase(outcome="correct")
    if all(not r for r in results):
        return Phase(outcome="silent-empty", overlap_at_10=0.0)
    shares = [
        len(set(r) & set(b)) / len(b) if b else float(not r)
        for r, b in zip(results, baseline, strict=True)
    ]
    return Phase(outcome="silent-wrong", overlap_at_10=round(sum(shares) / len(shares), 4))


def _phase(fn: Callable[[], list[Probe]], baseline: list[Probe]) -> Phase:
    try:
        got = fn()
    except Exception as err:
        return Phase(outcome="raised", detail=f"{type(err).__name__}: {err}"[:300])
    return classify(got, baseline)


def _cut_half(p: Path) -> None:
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])


def _edit_meta(p: Path, fn: Callable[[dict[str, object]], None]) -> None:
    meta = json.loads(p.read_text(encoding="utf-8"))
    fn(meta)
    p.write_text(json.dumps(meta), encoding="utf-8")


def _drop_last_chunk(m: dict[str, object]) -> None:
    chunks = m["chunks"]
    assert isinstance(chunks, list)
    chunks.pop()


def _old_version(m: dict[str, object]) -> None:
    v = m["version"]
    assert isinstance(v, int)
    m["version"] = v - 1


def _leftover(d: Path) -> None:
    (d / cache_mod.TMP_INDEX).write_bytes(b"\0" * 64)
    meta = (d / cache_mod.METADATA).read_bytes()
    (d / cache_mod.TMP_METADATA).write_bytes(meta[: len(meta) // 3])


DAMAGES: dict[str, Callable[[Path], object]] = {
    "faiss-truncated": lambda d: _cut_half(d / cache_mod.INDEX),
    "faiss-empty": lambda d: (d / cache_mod.INDEX).write_bytes(b""),
    "faiss-garbage": lambda d: (d / cache_mod.INDEX).write_bytes(
        random.Random(SEED).randbytes((d / cache_mod.INDEX).stat().st_size)
    ),
    "faiss-missing": lambda d: (d / cache_mod.INDEX).unlink(),
    "metadata-truncated": lambda d: _cut_half(d / cache_mod.METADATA),
    "metadata-empty": lambda d: (d / cache_mod.METADATA).write_bytes(b""),
    "metadata-missing": lambda d: (d / cache_mod.METADATA).unlink(),
    "metadata-chunk-dropped": lambda d: _edit_meta(d / cache_mod.METADATA, _drop_last_chunk),
    "metadata-old-version": lambda d: _edit_meta(d / cache_mod.METADATA, _old_version),
    "metadata-other-model": lambda d: _edit_meta(
        d / cache_mod.METADATA, lambda m: m.__setitem__("embedding_model", "other-model")
    ),
    "leftover-temp-files": _leftover,
}
SCENARIOS = (*DAMAGES, "interrupted-save")


def _touch_one_line_def(tree: Path, index: ReferenceCodeIndex) -> bool:
    """Add a comment inside a short top-level def so the chunk count stays the same."""
    before = len(index.entries()[0])
    for rel in discover(tree).files:
        if not rel.endswith(".py"):
            continue
        path = tree / rel
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        try:
            mod = ast.parse(text)
        except SyntaxError:
            continue
        for node in mod.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
                first = node.body[0]
                lines = text.split("\n")
                lines.insert(first.lineno - 1, " " * first.col_offset + "# touched by robustness")
                path.write_text("\n".join(lines), encoding="utf-8", errors="surrogateescape")
                index.index()
                if len(index.entries()[0]) == before:
                    return True
                path.write_text(text, encoding="utf-8", errors="surrogateescape")
                index.index()
    return False


def run_scenarios(tree: Path, work: Path, embedder: Embedder, probes: list[str]) -> list[Scenario]:
    pristine_tree = work / "tree"
    shutil.copytree(tree, pristine_tree, symlinks=True)
    pristine_cache = work / "pristine-cache"
    ReferenceCodeIndex(pristine_tree, pristine_cache, embedder).index()
    baseline = _probe(ReferenceCodeIndex(pristine_tree, pristine_cache, embedder), probes)
    out: list[Scenario] = []
    for name in track(list(SCENARIOS), "robustness scenarios"):
        if name == "interrupted-save":
            out.append(_interrupted(tree, work / name, embedder, probes))
            continue
        cache_dir = work / name / "cache"
        shutil.copytree(pristine_cache, cache_dir)
        directory = cache_mod.cache_path(cache_dir, pristine_tree)
        DAMAGES[name](directory)

        def search_only(c: Path = cache_dir) -> list[Probe]:
            return _probe(ReferenceCodeIndex(pristine_tree, c, embedder), probes)

        search = _phase(search_only, baseline)

        def reindex(c: Path = cache_dir) -> list[Probe]:
            ix = ReferenceCodeIndex(pristine_tree, c, embedder)
            ix.index()
            return _probe(ReferenceCodeIndex(pristine_tree, c, embedder), probes)

        re_phase = _phase(reindex, baseline)
        out.append(_scenario(name, search, re_phase))
    return out


def _scenario(name: str, search: Phase, reindex: Phase) -> Scenario:
    silent = {"silent-empty", "silent-wrong"}
    return Scenario(
        name=name,
        search=search,
        reindex=reindex,
        passed=search.outcome not in silent and reindex.outcome not in silent,
        recovers=reindex.outcome == "correct",
    )


def _interrupted(tree: Path, work: Path, embedder: Embedder, probes: list[str]) -> Scenario:
    copy = work / "tree"
    shutil.copytree(tree, copy, symlinks=True)
    cache_dir = work / "cache"
    index = ReferenceCodeIndex(copy, cache_dir, embedder)
    index.index()
    directory = cache_mod.cache_path(cache_dir, copy)
    old_meta = (directory / cache_mod.METADATA).read_bytes()
    if not _touch_one_line_def(copy, index):
        detail = "no top-level def could take a comment without changing the chunk count"
        return Scenario(
            name="interrupted-save",
            search=Phase(outcome="raised", detail=detail),
            reindex=Phase(outcome="raised", detail=detail),
            passed=False,
            recovers=False,
        )
    baseline = _probe(ReferenceCodeIndex(copy, cache_dir, embedder), probes)
    # The crash: the new index.faiss is in place, the old metadata.json never got replaced.
    (directory / cache_mod.METADATA).write_bytes(old_meta)
    search = _phase(lambda: _probe(ReferenceCodeIndex(copy, cache_dir, embedder), probes), baseline)

    def reindex() -> list[Probe]:
        ReferenceCodeIndex(copy, cache_dir, embedder).index()
        return _probe(ReferenceCodeIndex(copy, cache_dir, embedder), probes)

    return _scenario("interrupted-save", search, _phase(reindex, baseline))


# ---- hostile trees -------------------------------------------------------------------------

MARKER = "GAIA_EVAL_OUTSIDE_MARKER"
HAZARDS = (
    "binary-nul",
    "nul-past-sniff",
    "oversized-file",
    "latin1-text",
    "link-out",
    "directory-loop",
    "dangling-link",
)


def run_hazards(tree: Path, work: Path, embedder: Embedder) -> list[Hazard]:
    copy = work / "hostile"
    shutil.copytree(tree, copy, symlinks=True)
    limits = Limits()
    (copy / "hazard_nul.py").write_bytes(b"def f():\n    return 1\n\0\0\0 binary tail\n")
    (copy / "hazard_late_nul.py").write_bytes(
        b"def g():\n    return 2\n" + b"# padding line\n" * 700 + b"x = '\0'\n"
    )
    line = b"VALUE = 'padding to make this file larger than the one-megabyte cap'\n"
    (copy / "hazard_big.py").write_bytes(line * (int(1.2 * 1024 * 1024) // len(line) + 1))
    (copy / "hazard_latin1.py").write_bytes(
        "def caf\u00e9_latin1():\n    return 'na\u00efve \u00e9t\u00e9'\n".encode("latin-1")
    )
    cache_dir = work / "hostile-cache"
    index = ReferenceCodeIndex(copy, cache_dir, embedder, limits)
    index.index()
    chunked = {c.file_path for c in index.entries()[0]}
    out = [
        _file_hazard("binary-nul", "hazard_nul.py", chunked, expect=False),
        _file_hazard("nul-past-sniff", "hazard_late_nul.py", chunked, expect=False),
        _file_hazard("oversized-file", "hazard_big.py", chunked, expect=False),
        _file_hazard("latin1-text", "hazard_latin1.py", chunked, expect=True),
    ]
    out.extend(_link_hazards(work, limits))
    return out


def _file_hazard(name: str, rel: str, chunked: set[str], *, expect: bool) -> Hazard:
    got = rel in chunked
    want = "indexed" if expect else "not indexed"
    return Hazard(
        name=name,
        status="pass" if got == expect else "fail",
        detail=f"{rel} must be {want}; it was {'indexed' if got else 'not indexed'}",
    )


def _link_hazards(work: Path, limits: Limits) -> list[Hazard]:
    outside = work / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.py").write_text(f"{MARKER} = 1\n", encoding="utf-8")
    out: list[Hazard] = []
    # Each link hazard gets its own small tree so one link cannot mask another.
    specs: list[tuple[str, list[tuple[str, Path, bool]]]] = [
        ("link-out", [("link_file.py", outside / "secret.py", False), ("link_dir", outside, True)]),
        ("directory-loop", [("loop", Path(".."), True)]),
        ("dangling-link", [("dangling_dir", work / "does-not-exist", True)]),
    ]
    for name, links in specs:
        root = work / f"links-{name}"
        root.mkdir()
        (root / "ok.py").write_text("def fine():\n    return 0\n", encoding="utf-8")
        try:
            for link, target, is_dir in links:
                os.symlink(target, root / link, target_is_directory=is_dir)
        except (OSError, NotImplementedError) as err:
            out.append(Hazard(name=name, status="not-run", detail=f"cannot create a link: {err}"))
            continue
        try:
            found = discover(root, limits)
            texts = {rel: read_source(root, rel, limits).text for rel in found.files}
        except Exception as err:
            out.append(Hazard(name=name, status="fail", detail=f"discovery raised {err!r}"))
            continue
        if name == "link-out":
            leaked = [rel for rel, t in texts.items() if t is not None and MARKER in t]
            ok, detail = (
                not leaked,
                f"outside content readable through {leaked}"
                if leaked
                else ("links out were listed at most, never read"),
            )
        elif name == "directory-loop":
            walked = [rel for rel in found.files if rel.startswith("loop/")]
            ok = not walked
            detail = f"walked the loop: {walked[:3]}" if walked else "the loop was not walked"
        else:
            ok = "ok.py" in found.files and all(
                not r.startswith("dangling_dir") for r in found.files
            )
            detail = "dangling link skipped, the rest indexed" if ok else f"got {found.files}"
        out.append(Hazard(name=name, status="pass" if ok else "fail", detail=detail))
    return out


def run(tree: Path, work: Path, embedder: Embedder, probes: list[str], target: str) -> Robustness:
    scenarios = run_scenarios(tree, work / "scenarios", embedder, probes)
    trees = run_hazards(tree, work / "trees", embedder)
    passed = sum(s.passed for s in scenarios) + sum(h.status == "pass" for h in trees)
    not_run = sum(h.status == "not-run" for h in trees)
    failed = len(scenarios) + len(trees) - passed - not_run
    return Robustness(
        target=target,
        probes=probes,
        scenarios=scenarios,
        trees=trees,
        totals={"passed": passed, "failed": failed, "not_run": not_run},
    )

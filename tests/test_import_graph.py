"""The package's import graph has no cycles and points down the layers only.

A cycle makes import order matter and hides which module owns what; the engine, the
scrubber and the harnesses each used to have one. Every import counts, also one inside a
function: a lazy import is still a dependency.

The layers (docs/architecture.md): _native < scrub < core < llm/embed < systems/agents <
suites < view < bench < cli. A module may import its own package or a package of a lower layer;
two packages of one layer never import each other (so suites never do). The suites are the
packages named by a `target` in core/suites.toml. bench/ may use a suite only through its
public surface: no module and no imported name starting with `_`. For the layers a
TYPE_CHECKING-only import counts too (an annotation naming an upper layer is still a
dependency on it); only the cycle check skips them, since they never run.
"""

from __future__ import annotations

import ast
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[1] / "gaia_eval"


def _modules() -> dict[str, Path]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        if "data" in rel.parts:  # fixtures shipped as data, not package code
            continue
        name = ".".join(rel.parts).removesuffix(".__init__")
        mods[name] = path
    return mods


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    names: tuple[str, ...]
    type_checking: bool


def imports() -> list[Import]:
    """Every import of a gaia_eval module by a gaia_eval module, resolved to its module."""
    mods = _modules()

    def owner(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    out: list[Import] = []
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_lines(tree)
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[tuple[str, tuple[str, ...]]] = []
            if isinstance(node, ast.Import):
                targets = [(a.name, ()) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                # `from pkg import sub` depends on pkg.sub when that is a module.
                targets = [
                    (f"{base}.{a.name}", ()) if f"{base}.{a.name}" in mods else (base, (a.name,))
                    for a in node.names
                ]
            for target, names in targets:
                found = owner(target)
                if found and found != mod:
                    tc = getattr(node, "lineno", 0) in skip
                    out.append(Import(mod, found, names, tc))
    return out


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in _modules()}
    for imp in imports():
        if not imp.type_checking:
            graph[imp.source].add(imp.target)
    return graph


def suite_packages() -> set[str]:
    """The packages core/suites.toml names as suite targets."""
    registry = tomllib.loads((PACKAGE / "core" / "suites.toml").read_text(encoding="utf-8"))
    return {entry["target"].split(":")[0].split(".")[1] for entry in registry["suite"].values()}


BASE_LAYERS = {
    "_native": 0,
    "scrub": 1,
    "core": 2,
    "llm": 3,
    "embed": 3,
    "systems": 4,
    "agents": 4,
    # The view reads every suite's runs through core's registry (above the suites, so
    # `gaia-eval bench` can time it), and the CLI serves it.
    "view": 6,
    "bench": 7,
    "cli": 8,
    "__main__": 9,
}
SUITE_LAYER = 5
# The error and exit-code table: every layer raises these (the native wrapper raises
# LeakError), so it may be imported from anywhere as long as it imports nothing itself.
SHARED = {"gaia_eval.core.errors"}


def layers() -> dict[str, int]:
    return {**BASE_LAYERS, **dict.fromkeys(suite_packages(), SUITE_LAYER)}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer_violations(
    edges: list[tuple[str, str, tuple[str, ...]]], table: dict[str, int]
) -> list[str]:
    """Each import (source module, target module, names imported from it) that breaks the
    layers; the package root `gaia_eval` itself sits below everything."""
    bad: list[str] = []
    for source, target, names in edges:
        src, dst = _package(source), _package(target)
        if dst in (src, "") or target in SHARED:
            continue
        if src not in table or dst not in table:
            bad.append(f"{source} -> {target}: package not in a layer")
            continue
        if table[dst] > table[src]:
            bad.append(f"{source} -> {target}: points up")
        elif table[dst] == table[src]:
            bad.append(f"{source} -> {target}: same layer")
        elif src == "bench" and table[dst] == SUITE_LAYER:
            private = [p for p in target.split(".") if p.startswith("_")]
            private += [n for n in names if n.startswith("_")]
            if private:
                bad.append(f"{source} -> {target}: private {', '.join(private)}")
    return sorted(set(bad))


def package_violations() -> list[str]:
    return layer_violations([(i.source, i.target, i.names) for i in imports()], layers())


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_suites_are_the_registered_targets() -> None:
    assert {"retrieval", "code_retrieval", "memory", "tasks"} <= suite_packages()
    assert not suite_packages() & set(BASE_LAYERS)


@pytest.mark.parametrize(
    ("edge", "why"),
    [
        (("gaia_eval.core.x", "gaia_eval.tasks.y", ()), "points up"),
        (("gaia_eval.scrub.x", "gaia_eval.llm.y", ()), "points up"),
        (("gaia_eval.tasks.x", "gaia_eval.code_bench.y", ()), "same layer"),
        (("gaia_eval.llm.x", "gaia_eval.embed.y", ()), "same layer"),
        (("gaia_eval.agents.x", "gaia_eval.tasks.y", ()), "points up"),
        (("gaia_eval.bench.x", "gaia_eval.tasks._y", ()), "private _y"),
        (("gaia_eval.bench.x", "gaia_eval.tasks.y", ("_helper",)), "private _helper"),
        (("gaia_eval.bench.x", "gaia_eval.cli.y", ()), "points up"),
        (("gaia_eval.newpkg.x", "gaia_eval.core.y", ()), "package not in a layer"),
    ],
)
def test_the_layer_check_finds_a_violation(
    edge: tuple[str, str, tuple[str, ...]], why: str
) -> None:
    table = {**BASE_LAYERS, "tasks": SUITE_LAYER, "code_bench": SUITE_LAYER}
    assert layer_violations([edge], table) == [f"{edge[0]} -> {edge[1]}: {why}"]


@pytest.mark.parametrize(
    "edge",
    [
        ("gaia_eval.tasks.x", "gaia_eval.agents.y", ()),
        ("gaia_eval.tasks.x", "gaia_eval.tasks.y", ("_private",)),
        ("gaia_eval.bench.x", "gaia_eval.tasks.y", ("public",)),
        ("gaia_eval.cli.x", "gaia_eval.tasks._y", ()),
        ("gaia_eval.core.x", "gaia_eval", ()),
    ],
)
def test_the_layer_check_passes_a_downward_import(edge: tuple[str, str, tuple[str, ...]]) -> None:
    table = {**BASE_LAYERS, "tasks": SUITE_LAYER}
    assert layer_violations([edge], table) == []


def test_the_shared_error_table_imports_nothing() -> None:
    assert not [i for i in imports() if i.source in SHARED]


def test_the_package_points_down_the_layers() -> None:
    assert package_violations() == []

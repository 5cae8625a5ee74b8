"""YAML that cannot hang or crash a run: one bounded loader for every YAML file we read.

PyYAML's safe loader has two holes a hostile (or careless) file reaches: aliases, which
let 30 lines name 10^9 values (a "billion laughs": building or walking the result runs
for minutes at 100% CPU), and nesting, which its recursive composer turns into a
RecursionError traceback past about a thousand levels. `BoundedLoader` measures what
the aliases expand to before anything is built and refuses a document that would grow
past `MAX_EXPANDED_NODES` (or that contains itself); the loading functions turn deep
nesting into the same clear error. Files we ship use no aliases, so the bound is far
above anything real.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import yaml

from gaia_eval.core.errors import InvalidInputError

T = TypeVar("T")
MAX_EXPANDED_NODES = 100_000
"""Values a document may hold once its aliases are expanded, beyond its own nodes."""


class YamlBombError(InvalidInputError):
    """A document whose aliases expand past the bound, or that contains itself."""


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def expanded_size(node: yaml.Node, limit: int) -> int:
    """How many nodes `node` stands for with every alias expanded (iteratively, so a deep
    document cannot exhaust the stack); raises YamlBombError past `limit` or on a cycle."""
    size: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, done = stack.pop()
        key = id(current)
        if done:
            active.discard(key)
            total = 1 + sum(size[id(c)] for c in _children(current))
            if total > limit:
                msg = f"its aliases expand it past {limit:,} values; write the values out instead"
                raise YamlBombError(msg)
            size[key] = total
            continue
        if key in size:
            continue
        if key in active:
            msg = "an alias refers to a value that contains it (the document contains itself)"
            raise YamlBombError(msg)
        active.add(key)
        stack.append((current, True))
        stack.extend((c, False) for c in _children(current) if id(c) not in size)
    return size[id(node)]


def _distinct(node: yaml.Node) -> int:
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        stack.extend(_children(current))
    return len(seen)


class BoundedLoader(yaml.SafeLoader):
    """yaml.SafeLoader whose every document is checked before it is constructed."""

    def compose_document(self) -> yaml.Node | None:
        node: yaml.Node | None = super().compose_document()
        if node is not None:
            expanded_size(node, _distinct(node) + MAX_EXPANDED_NODES)
        return node


def _load(where: str, read: Callable[[], T], what: str = "YAML") -> T:
    try:
        return read()
    except YamlBombError as err:
        msg = f"{where}: not accepted as {what}: {err}"
        raise InvalidInputError(msg) from None
    except RecursionError:
        msg = f"{where}: {what} nested too deeply to read; this is not a file gaia-eval reads"
        raise InvalidInputError(msg) from None


def load_yaml(text: str, where: str, loader: type[BoundedLoader] = BoundedLoader) -> Any:
    """One YAML document (yaml.YAMLError still means a syntax error, for the caller to name)."""
    return _load(where, lambda: yaml.load(text, Loader=loader))


def load_yaml_all(text: str, where: str, loader: type[BoundedLoader] = BoundedLoader) -> list[Any]:
    """Every document of a multi-document YAML text."""
    docs: list[Any] = _load(where, lambda: list(yaml.load_all(text, Loader=loader)))
    return docs

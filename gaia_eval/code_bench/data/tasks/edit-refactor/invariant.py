"""The refactor happened: one private helper holds the only strptime call, and each public
parser calls it."""

import ast
import sys
from pathlib import Path

tree = ast.parse(Path("dates.py").read_text(encoding="utf-8"))
functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def calls(node, name):
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            if (isinstance(f, ast.Name) and f.id == name) or (
                isinstance(f, ast.Attribute) and f.attr == name
            ):
                yield sub


problems = []
helper = functions.get("_parse_timestamp")
if helper is None:
    problems.append("no function _parse_timestamp in dates.py")
for name in ("parse_created", "parse_updated", "parse_deleted"):
    fn = functions.get(name)
    if fn is None:
        problems.append(f"{name} is gone")
    elif not any(calls(fn, "_parse_timestamp")):
        problems.append(f"{name} does not call _parse_timestamp")
outside = [
    c.lineno
    for c in calls(tree, "strptime")
    if helper is None or not (helper.lineno <= c.lineno <= (helper.end_lineno or helper.lineno))
]
if outside:
    problems.append(f"strptime is still called outside _parse_timestamp (lines {outside})")
if problems:
    print("; ".join(problems))
    sys.exit(1)

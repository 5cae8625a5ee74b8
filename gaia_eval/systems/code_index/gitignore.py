"""A small .gitignore matcher for trees that are not git work trees.

Inside a git work tree discovery asks git itself (`git ls-files -co --exclude-standard`),
which is exact. Elsewhere this reimplements the basic rules, without the `pathspec`
package: comments, blank lines, `!` negation, a trailing `/` for directories only, a leading
or inner `/` anchoring the pattern to the .gitignore's folder, `*`, `?`, `[...]`, and `**`
(leading, trailing and inner). Later rules win; a file under an ignored directory stays
ignored (directories are pruned while walking, as git does). Not supported: `core.excludesFile`,
`.git/info/exclude`, and escaped trailing spaces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


def _translate(glob: str) -> str:
    """Glob (already stripped of anchoring slashes) to a regex over a relative path."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == n:
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = glob.find("]", i + 2)
            if j == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = glob[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
                i = j + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def parse(text: str) -> list[Rule]:
    """Rules of one .gitignore, in order."""
    rules: list[Rule] = []
    for raw in text.splitlines():
        line = raw.rstrip(" ")
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate or line.startswith("\\"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        body = _translate(line.lstrip("/"))
        pattern = f"^{body}$" if anchored else f"^(?:.*/)?{body}$"
        try:
            rules.append(Rule(re.compile(pattern, re.DOTALL), negate, dir_only))
        except re.error:
            continue  # git ignores patterns it cannot use; so do we
    return rules


def ignored(rules: list[tuple[str, list[Rule]]], rel: str, is_dir: bool) -> bool:
    """Whether `rel` (root-relative POSIX) is ignored by the stacked .gitignore rules.

    `rules` holds (folder relative to root, its rules), outermost first; a rule sees the
    path relative to its own folder.
    """
    verdict = False
    for base, group in rules:
        if base:
            if not rel.startswith(base + "/"):
                continue
            sub = rel[len(base) + 1 :]
        else:
            sub = rel
        for rule in group:
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.match(sub):
                verdict = not rule.negate
    return verdict

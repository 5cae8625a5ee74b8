"""A small repository in TheRock's image for the `therock-demo` suite: two real fixes, each
pinned (as data/therock_demo.json does) to its parent and its merge. Built byte for byte
the same everywhere (fixed names, dates and contents), so the pinned commit ids hold:

    .venv/bin/python -m gaia_eval.tasks.therock_demo DIR   # prints the URL for --therock-url
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_ENV = {
    "GIT_AUTHOR_NAME": "gaia-eval",
    "GIT_AUTHOR_EMAIL": "gaia-eval@example.invalid",
    "GIT_COMMITTER_NAME": "gaia-eval",
    "GIT_COMMITTER_EMAIL": "gaia-eval@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}

NAMES = '''"""Wheel and artifact names of a build target family."""


def dist_package_name(family: str) -> str:
    """The Python distribution name of a device package, e.g. rocm-sdk-device-gfx942."""
    return f"rocm-sdk-device-{family}"
'''
NAMES_FIXED = '''"""Wheel and artifact names of a build target family."""


def dist_package_name(family: str) -> str:
    """The Python distribution name of a device package, e.g. rocm-sdk-device-gfx942.

    A family such as 'gfx942:xnack+' carries a feature suffix whose ':' and '+' are not
    allowed in a distribution name (PEP 508); the package is named by the bare target.
    """
    return f"rocm-sdk-device-{family.split(':', 1)[0]}"
'''
TEST_NAMES_FIXED = """from build_tools.names import dist_package_name


def test_plain_family():
    assert dist_package_name("gfx1100") == "rocm-sdk-device-gfx1100"


def test_xnack_suffix_is_stripped():
    assert dist_package_name("gfx942:xnack+") == "rocm-sdk-device-gfx942"
"""
INDEX = '''"""The tarball index of a storage prefix."""


def render_index(names: list[str]) -> str:
    """index.html listing the .tar.gz files among `names`."""
    tars = sorted(n for n in names if n.endswith(".tar.gz"))
    if not tars:
        raise FileNotFoundError("no .tar.gz files under the prefix")
    items = "".join(f'<li><a href="{n}">{n}</a></li>' for n in tars)
    return f"<html><body><ul>{items}</ul></body></html>"
'''
INDEX_FIXED = '''"""The tarball index of a storage prefix."""


def render_index(names: list[str], allow_empty: bool = False) -> str:
    """index.html listing the .tar.gz files among `names`.

    With allow_empty, a prefix whose last tarball was deleted gets an empty index (so the
    stale listing is replaced); without it, an empty prefix is still an error.
    """
    tars = sorted(n for n in names if n.endswith(".tar.gz"))
    if not tars and not allow_empty:
        raise FileNotFoundError("no .tar.gz files under the prefix")
    items = "".join(f'<li><a href="{n}">{n}</a></li>' for n in tars)
    return f"<html><body><ul>{items}</ul></body></html>"
'''
README = "# rockbuild\n\nBuild tools in TheRock's image: names and tarball indexes.\n"


def _git(repo: Path, *args: str, date: str = "") -> str:
    env = {**os.environ, **_ENV}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    out = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def _commit(repo: Path, files: dict[str, str], message: str, date: str) -> str:
    for rel, text in files.items():
        p = repo / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8", newline="\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--no-gpg-sign", "-m", message, date=date)
    return _git(repo, "rev-parse", "HEAD")


def build(dest: Path) -> dict[str, str]:
    """Create the repository at `dest` (which must not exist); its commit ids by role."""
    dest.mkdir(parents=True)
    _git(dest, "init", "-q", "-b", "main")
    ids = {}
    ids["start"] = _commit(
        dest,
        {
            "README.md": README,
            "build_tools/__init__.py": "",
            "build_tools/names.py": NAMES,
            "build_tools/index.py": INDEX,
        },
        "Start rockbuild",
        "2026-01-05T10:00:00+00:00",
    )
    ids["names_fix"] = _commit(
        dest,
        {"build_tools/names.py": NAMES_FIXED, "tests/test_names.py": TEST_NAMES_FIXED},
        "fix(py_packaging): strip the xnack suffix from wheel package names (#2)",
        "2026-01-06T10:00:00+00:00",
    )
    ids["docs"] = _commit(
        dest,
        {"README.md": README + "\nSee build_tools/.\n"},
        "docs: point at build_tools",
        "2026-01-07T10:00:00+00:00",
    )
    ids["index_fix"] = _commit(
        dest,
        {"build_tools/index.py": INDEX_FIXED},
        "fix(tarball-indexer): allow generation of empty indexes (#4)",
        "2026-01-08T10:00:00+00:00",
    )
    ids["tip"] = _commit(
        dest,
        {"README.md": README + "\nSee build_tools/ and tests/.\n"},
        "docs: mention tests",
        "2026-01-09T10:00:00+00:00",
    )
    return ids


if __name__ == "__main__":  # pragma: no cover - a convenience for users
    target = Path(sys.argv[1]).resolve()
    build(target)
    print(target.as_uri())

"""Which files of a tree get indexed, and reading them safely.

Discovery lists candidate source files, root-relative, in sorted order. Inside a git work
tree it asks git (`git ls-files -co --exclude-standard`: tracked plus untracked-not-ignored,
exactly git's own .gitignore semantics, and git never descends through a symlink); elsewhere
it walks the tree itself with `gitignore.py` and never follows a directory link, so a loop
is not walked at all. Every scan limit that stops discovery early is reported.

Reading goes through `read_source`, which resolves the path and refuses anything whose real
location is outside the root (a symlink out, a dangling link), anything over the size cap,
binary files (a NUL byte in the first 8 KB, or anywhere in the file) and decodes UTF-8 first,
Latin-1 second.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from gaia_eval.systems.code_index import gitignore

SOURCE_EXTENSIONS = frozenset(
    {".py", ".pyw", ".pyi", ".js", ".jsx", ".ts", ".tsx", ".go", ".rs", ".java", ".c", ".h",
     ".cc", ".cpp", ".hpp", ".cxx", ".rb", ".sh", ".cmake"}
)  # fmt: skip
SENSITIVE_NAMES = frozenset({".env", ".htpasswd", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa"})
SENSITIVE_EXTENSIONS = frozenset({".pem", ".key", ".pfx", ".p12", ".jks", ".keystore"})
# Folders no code search wants even when a project forgot to ignore them.
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "node_modules", ".tox", ".nox",
     ".mypy_cache", ".pytest_cache", ".ruff_cache"}
)  # fmt: skip
SNIFF_BYTES = 8192


@dataclass(frozen=True)
class Limits:
    """Scan limits; the defaults are the shipped ones."""

    max_files: int = 5000
    max_walk_entries: int = 200_000
    max_file_size_mb: float = 1.0

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_size_mb * 1024 * 1024)


@dataclass
class Discovery:
    files: list[str]
    """Root-relative POSIX paths of candidate source files, sorted."""
    method: str
    """`git` or `walk`."""
    limits_hit: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def truncated(self) -> bool:
        return bool(self.limits_hit)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def is_sensitive(name: str) -> bool:
    lower = name.lower()
    if lower in SENSITIVE_NAMES or lower.startswith(".env."):
        return True
    return os.path.splitext(lower)[1] in SENSITIVE_EXTENSIONS


def is_source(name: str) -> bool:
    return os.path.splitext(name)[1].lower() in SOURCE_EXTENSIONS


def _git_listing(root: Path) -> list[str] | None:
    """Paths git would consider (tracked + untracked, not ignored), or None outside git."""
    try:
        inside = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--is-inside-work-tree"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        return None
    out = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-co", "--exclude-standard", "-z", "--", "."],
        capture_output=True, timeout=900, check=False,
    )  # fmt: skip
    if out.returncode != 0:
        return None
    names = out.stdout.decode("utf-8", "surrogateescape").split("\0")
    return sorted({n for n in names if n})


def _walk(root: Path, limits: Limits, found: Discovery) -> list[str]:
    files: list[str] = []
    entries = 0
    stack: list[tuple[str, list[tuple[str, list[gitignore.Rule]]]]] = [("", [])]
    while stack:
        rel_dir, rules = stack.pop()
        here = root / rel_dir if rel_dir else root
        gi = here / ".gitignore"
        if gi.is_file() and not gi.is_symlink():
            try:
                own = gitignore.parse(gi.read_text(encoding="utf-8", errors="replace"))
                rules = [*rules, (rel_dir, own)]
            except OSError:
                pass
        try:
            with os.scandir(here) as it:
                listing = sorted(it, key=lambda e: e.name)
        except OSError:
            found.skip("unreadable-dir")
            continue
        subdirs: list[str] = []
        for entry in listing:
            entries += 1
            if entries > limits.max_walk_entries:
                found.limits_hit.append("max_walk_entries")
                return files
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                is_link = entry.is_symlink()
                # Never follow a directory link: that is how loops and escapes happen.
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name in SKIP_DIRS or gitignore.ignored(rules, rel, True):
                    continue
                subdirs.append(rel)
            elif (is_link or entry.is_file(follow_symlinks=False)) and not gitignore.ignored(
                rules, rel, False
            ):
                files.append(rel)
        stack.extend((d, rules) for d in reversed(subdirs))
    return files


def discover(root: Path, limits: Limits | None = None) -> Discovery:
    """Candidate source files under `root` (sensitive files and non-source files dropped)."""
    limits = limits or Limits()
    root = Path(root)
    if not root.is_dir():
        from gaia_eval.core.errors import InvalidInputError

        msg = f"{root}: not a directory; point the code index at a source tree"
        raise InvalidInputError(msg)
    listing = _git_listing(root)
    found = Discovery(files=[], method="git" if listing is not None else "walk")
    if listing is None:
        listing = _walk(root, limits, found)
    elif len(listing) > limits.max_walk_entries:
        listing = listing[: limits.max_walk_entries]
        found.limits_hit.append("max_walk_entries")
    for rel in sorted(listing):
        parts = rel.split("/")
        if any(p in SKIP_DIRS for p in parts[:-1]):
            continue
        name = parts[-1]
        if is_sensitive(name):
            found.skip("sensitive")
            continue
        if not is_source(name):
            continue
        if len(found.files) >= limits.max_files:
            found.limits_hit.append("max_files")
            break
        found.files.append(rel)
    return found


@dataclass(frozen=True)
class Source:
    text: str | None
    """Decoded text, or None when the file must not be indexed."""
    reason: str = ""
    """Why not: `outside-root`, `missing`, `not-a-file`, `too-large`, `binary`, `unreadable`."""
    encoding: str = ""


def read_source(root: Path, rel: str, limits: Limits | None = None) -> Source:
    """Read one discovered file, refusing anything outside the root or not text."""
    limits = limits or Limits()
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(real_root / rel))
    if real != real_root and real_root not in real.parents:
        return Source(None, "outside-root")
    try:
        st = os.stat(real)
    except OSError:
        return Source(None, "missing")
    if not stat.S_ISREG(st.st_mode):
        return Source(None, "not-a-file")
    if st.st_size > limits.max_file_bytes:
        return Source(None, "too-large")
    try:
        with open(real, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
            if b"\0" in head:
                return Source(None, "binary")
            data = head + fh.read(limits.max_file_bytes + 1 - len(head))
    except OSError:
        return Source(None, "unreadable")
    if len(data) > limits.max_file_bytes:
        return Source(None, "too-large")  # it grew after the stat
    if b"\0" in data:
        # A NUL past the sniff window: still not text, and it breaks parsers and grep alike.
        return Source(None, "binary")
    try:
        return Source(data.decode("utf-8"), encoding="utf-8")
    except UnicodeDecodeError:
        return Source(data.decode("latin-1"), encoding="latin-1")

"""Optional dependencies: a missing one is bad input (exit 2) naming the extra to install,
never a ModuleNotFoundError traceback."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import shlex
import sys

_EXTRA_MARKER = re.compile(r"""^(?P<req>[^;]+);\s*extra\s*==\s*['"](?P<extra>[\w-]+)['"]\s*$""")


def extra_requirements(extra: str) -> list[str]:
    """The requirements of one of our extras, read from the installed package's metadata
    (nested `gaia-eval[a,b]` expanded); empty when the metadata is not there."""
    try:
        declared = importlib.metadata.requires("gaia-eval") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    out: list[str] = []
    for line in declared:
        m = _EXTRA_MARKER.match(line)
        if m is None or m.group("extra") != extra:
            continue
        req = m.group("req").strip()
        nested = re.fullmatch(r"gaia-eval\[([\w,-]+)\]", req.replace(" ", ""))
        if nested:
            for inner in nested.group(1).split(","):
                out += [r for r in extra_requirements(inner) if r not in out]
        elif req not in out:
            out.append(req)
    return out


def install_hint(extra: str) -> str:
    """The command that installs an extra, in a form that works as printed: gaia-eval is on
    no package index, so `pip install 'gaia-eval[x]'` fails; this interpreter's pip
    installing the extra's own requirements works from a checkout and a wheel alike."""
    reqs = extra_requirements(extra)
    pip = f"{shlex.quote(sys.executable)} -m pip install"
    if not reqs:  # no metadata (running from a bare source tree): the checkout's form
        return f"{pip} -e '.[{extra}]' (in the gaia_eval checkout)"
    return f"{pip} {' '.join(shlex.quote(r) for r in reqs)} (the [{extra}] extra)"


def missing_message(module: str, extra: str, needed_by: str) -> str:
    """The one wording: what needs the module, and the pip command that installs it."""
    return (
        f"{needed_by} needs the Python package {module!r}, which is not installed. "
        f"Fix: {install_hint(extra)}"
    )


def has_module(name: str) -> bool:
    """Whether `name` can be imported, without importing it (cheap enough for preflight;
    a module hidden as None in sys.modules counts as missing, as import would fail)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # ValueError: sys.modules[name] is None
        return False


def problem(module: str, extra: str, needed_by: str) -> str | None:
    """The missing-dependency message for `module`, or None when it is installed."""
    return None if has_module(module) else missing_message(module, extra, needed_by)

"""Optional dependencies: a missing one is bad input (exit 2) naming the extra to install,
never a ModuleNotFoundError traceback."""

from __future__ import annotations

import importlib.util


def missing_message(module: str, extra: str, needed_by: str) -> str:
    """The one wording: what needs the module, and the pip command that installs it."""
    return (
        f"{needed_by} needs the Python package {module!r}, which is not installed. "
        f"Fix: pip install 'gaia-eval[{extra}]'"
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

"""Load a user's own system from a `module:factory` string (`--system`)."""

from __future__ import annotations

import importlib
from typing import Any

from gaia_eval.core.errors import InvalidInputError


def load_factory(spec: str, flag: str = "--system") -> Any:
    """Import `module:factory` and call the factory with no arguments."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        msg = f"{flag} {spec!r}: expected 'module:factory', e.g. 'mypkg.retriever:make'"
        raise InvalidInputError(msg)
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        msg = f"{flag} {spec!r}: cannot import module {module_name!r} ({err}); is it on PYTHONPATH?"
        raise InvalidInputError(msg) from err
    factory = module
    for part in attr.split("."):
        try:
            factory = getattr(factory, part)
        except AttributeError as err:
            msg = f"{flag} {spec!r}: module {module_name!r} has no attribute {attr!r}"
            raise InvalidInputError(msg) from err
    if not callable(factory):
        msg = f"{flag} {spec!r}: {attr!r} is not callable"
        raise InvalidInputError(msg)
    return factory()

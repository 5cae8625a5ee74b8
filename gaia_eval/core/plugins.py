"""Load a user's own system from a `module:factory` string (`--system`), the one way every
suite plugs in a system under test."""

from __future__ import annotations

import importlib
from typing import Any, TypeVar

from gaia_eval.core.errors import InvalidInputError

T = TypeVar("T")


def resolve_factory(spec: str, flag: str = "--system") -> Any:
    """The callable a `module:factory` string names, not yet called (for suites that need
    a fresh system per unit of work, e.g. one memory agent per chat)."""
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
    return factory


def load_factory(spec: str, flag: str = "--system") -> Any:
    """Import `module:factory` and call the factory with no arguments."""
    return resolve_factory(spec, flag)()


def load_system(spec: str, protocol: type[T], flag: str = "--system") -> T:
    """`module:factory` -> the object its factory returns, checked against a
    runtime-checkable Protocol; the message names what the object lacks."""
    obj = load_factory(spec, flag)
    if not isinstance(obj, protocol):
        wanted = sorted(
            name
            for name in getattr(protocol, "__protocol_attrs__", dir(protocol))
            if not name.startswith("_")
        )
        lacks = [name for name in wanted if not hasattr(obj, name)]
        what = f"lacks {', '.join(lacks)}" if lacks else "does not match it"
        msg = (
            f"{flag} {spec!r}: the factory returned a {type(obj).__name__}, which is not a "
            f"{protocol.__name__} ({what})"
        )
        raise InvalidInputError(msg)
    return obj

"""Client settings, read from a mapping (a parsed config file)."""

from dataclasses import dataclass

_TLS_WORDS = {"true": True, "1": True, "false": False, "0": False}


@dataclass(frozen=True)
class Settings:
    host: str
    port: int
    use_tls: bool = False


def _tls(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in _TLS_WORDS:
        return _TLS_WORDS[value.lower()]
    raise ValueError(f"tls must be true, false, 1 or 0, not {value!r}")


def load_settings(mapping):
    """Settings from a mapping with "host" (required), "port" (default 80) and "tls"
    (default false)."""
    host = mapping["host"]
    port = int(mapping.get("port", 80))
    if not 0 < port < 65536:
        raise ValueError(f"port out of range: {port}")
    return Settings(host=host, port=port, use_tls=_tls(mapping.get("tls", False)))

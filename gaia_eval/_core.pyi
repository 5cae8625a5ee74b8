# Hand-written stub for the private extension; keep in step with csrc/bindings/.
import numpy as np
import numpy.typing as npt

# ---- text ----
def normalize_whitespace(text: str) -> tuple[str, npt.NDArray[np.int64]]: ...

# ---- metrics ----

# ---- evidence ----

# ---- grep ----
class GrepIndex:
    def __init__(self, contents: list[bytes]) -> None: ...
    @property
    def num_files(self) -> int: ...
    @property
    def num_occurrences(self) -> int: ...
    def binary_mask(self) -> npt.NDArray[np.bool_]: ...
    def query(
        self, words: list[str]
    ) -> tuple[
        npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int32]
    ]: ...

# ---- scrub ----

# Hand-written stub for the private extension; keep in step with csrc/bindings/.
import numpy as np
import numpy.typing as npt

# ---- text ----
def normalize_whitespace(text: str) -> tuple[str, npt.NDArray[np.int64]]: ...

# ---- metrics ----
def ranking_metrics(
    ranked: npt.NDArray[np.int64],
    qrel_offsets: npt.NDArray[np.int64],
    qrel_docs: npt.NDArray[np.int64],
    qrel_grades: npt.NDArray[np.int64],
    ks: npt.NDArray[np.int64],
) -> tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
]: ...
def first_hit_metrics(
    ranks: npt.NDArray[np.int64], ks: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...

# ---- evidence ----

# ---- grep ----

# ---- scrub ----

class ScrubLeakError(ValueError): ...

def scrub_kinds() -> list[str]: ...
def scrub_known_value_ok(value: bytes) -> bool: ...

class Scrubber:
    def __init__(self, known: list[bytes], skip: list[str]) -> None: ...
    @property
    def known_count(self) -> int: ...
    def scrub(
        self, data: bytes, with_findings: bool = True
    ) -> tuple[bytes, list[tuple[str, int, int]] | None]: ...
    def find(self, data: bytes) -> list[tuple[str, int, int]]: ...

class ScrubStream:
    def __init__(self, scrubber: Scrubber) -> None: ...
    def feed(self, data: bytes) -> bytes: ...
    def finish(self) -> bytes: ...
    def take_findings(self) -> list[tuple[str, int, int]]: ...

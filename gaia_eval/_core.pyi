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

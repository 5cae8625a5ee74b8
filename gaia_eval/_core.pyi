# Hand-written stub for the private extension; keep in step with csrc/bindings/.
import numpy as np
import numpy.typing as npt

# ---- text ----
def normalize_whitespace(text: str) -> tuple[str, npt.NDArray[np.int64]]: ...

# ---- metrics ----

# ---- evidence ----

# ---- grep ----

# ---- scrub ----

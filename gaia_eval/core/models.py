"""The base of the result-file models that are read by name or alias and written by alias."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ResultModel(BaseModel):
    """Unknown fields are errors; a field is read by its name or its alias and written by
    its alias; each field's docstring is its description in the committed JSON Schema."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        serialize_by_alias=True,
        use_attribute_docstrings=True,
    )


class Variance(ResultModel):
    """Multi-run variance of one metric across repeats (spec §9)."""

    n: int
    """Repeats with a value."""
    mean: float
    """Mean."""
    stdev: float
    """Sample standard deviation (0 with n < 2)."""
    min: float
    """Smallest."""
    max: float
    """Largest."""
    cv_pct: float
    """100 * stdev / mean."""
    ci95_half_width: float
    """1.96 * stdev / sqrt(n) (0 with n < 2)."""

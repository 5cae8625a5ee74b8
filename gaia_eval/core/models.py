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

"""The exit-code table is written once (core/errors.py); README and docs carry a generated copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_eval.core import errors
from gaia_eval.core.errors import (
    BEGIN_MARK,
    CODE_TABLE,
    DOCUMENTS,
    END_MARK,
    REGENERATE,
    exit_table_epilog,
    exit_table_markdown,
    with_exit_table,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", DOCUMENTS)
def test_document_carries_the_generated_table(name: str) -> None:
    text = (ROOT / name).read_text(encoding="utf-8")
    assert text.count(BEGIN_MARK) == 1 and text.count(END_MARK) == 1, name
    assert with_exit_table(text, name) == text, (
        f"{name}: the exit-code table differs from gaia_eval/core/errors.py; run `{REGENERATE}`"
    )


def test_table_lists_every_exit_constant_once() -> None:
    codes = [row.code for row in CODE_TABLE]
    assert len(codes) == len(set(codes))
    constants = {v for k, v in vars(errors).items() if k.startswith("EXIT_")}
    assert constants == set(codes)


def test_renderings_carry_every_row() -> None:
    md, epilog = exit_table_markdown(), exit_table_epilog()
    for row in CODE_TABLE:
        assert f"| {row.code} | {row.meaning} |" in md
        assert f"{row.code} {row.name}" in epilog


def test_drift_is_detected_and_fixed(tmp_path: Path) -> None:
    text = f"# x\n\n{BEGIN_MARK}\n| 0 | stale |\n{END_MARK}\n\nrest\n"
    new = with_exit_table(text, "x.md")
    assert new != text and new.endswith(f"{END_MARK}\n\nrest\n")
    assert exit_table_markdown() in new
    with pytest.raises(ValueError, match="no exit-code markers"):
        with_exit_table("no markers here", "y.md")

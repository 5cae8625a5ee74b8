"""Speed benchmarks of the hot paths against named anchor libraries (`nox -s bench`).

Each area has a module here defining `TITLE: str` and `run(quick: bool) -> list[BenchRow]`,
listed by name in `AREAS`; the `bench` command runs each listed area in one process and
prints medians and ratios. Every other module is a shared piece (`HELPERS`): listing both
explicitly means a helper can never be taken for an area, and a new module must be put in
one list or the other (tests/test_bench_areas.py fails until it is).
Speed is measured here, never asserted in unit tests.
"""

from __future__ import annotations

AREAS: tuple[str, ...] = (
    "embed",
    "embed_cache",
    "engine",
    "evidence",
    "grep",
    "metrics",
    "scrub",
    "throughput",
    "view",
)
"""The bench areas, in the order `gaia-eval bench` runs them."""

HELPERS: tuple[str, ...] = ("_model_server", "common", "models", "trec")
"""Modules of this package that areas (or tests) import: never run as areas."""

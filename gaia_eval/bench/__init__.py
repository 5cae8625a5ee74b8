"""Speed benchmarks of the hot paths against named anchor libraries (`nox -s bench`).

Each area has a module here defining `TITLE: str` and `run(quick: bool) -> list[BenchRow]`;
the `bench` command discovers them, runs each in one process and prints medians and ratios.
Speed is measured here, never asserted in unit tests.
"""

"""Flagship agent tasks: give an agent real work on the toybox project and score what the
finished project does, not what the agent says it did (`gaia-eval tasks ...`).

Task definitions ship inside the package under `gaia_eval/tasks/data/` (tasks.json, the
toybox fixture), so an installed wheel runs the suites with no checkout (docs/tasks.md).
"""

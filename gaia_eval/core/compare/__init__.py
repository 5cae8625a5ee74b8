"""`gaia-eval compare`: is the difference between two runs of one suite real?

- `metrics`: the per-item metrics a suite declares in its gate (`GateRules.item_metrics`).
- `engine`: loads two runs, refuses unlike ones (what is measured must match; the system
  may differ and is listed as what changed), pairs items and tests every metric.
- `render`: compare.md and compare.html through the one report writer.
- `models`: compare.json.
"""

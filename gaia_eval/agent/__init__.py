"""Agent scenarios (`gaia-eval agent`): a driver model plays a persona turn by turn against a
chat agent and judges every turn on seven weighted dimensions; gaia_eval recomputes the
scores, applies the pass rule and keeps outages apart from failures."""

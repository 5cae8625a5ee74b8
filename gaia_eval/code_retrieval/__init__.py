"""The code-retrieval suite: code search on real repositories against a native grep
baseline, what the index costs, and how the cache survives damage (`gaia-eval retrieval
--component code`)."""

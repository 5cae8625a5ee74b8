"""The `gaia-eval` command line: one module per command, assembled by `main`.

A command module defines `NAME`, `HELP`, `add_arguments(parser)` and `run(args) -> int`,
and imports nothing heavy at module level, so `gaia-eval --help` stays instant.
"""

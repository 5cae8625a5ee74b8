"""`gaia-eval view`: every suite's runs in one place (Now, History, Compare, Flaky).

`digest` reads one run folder (through core's results I/O, so everything is scrubbed),
`index` keeps the SQLite cache of every run under a results root, `pages` and `chart`
render the HTML, `site` writes the pages as a static site and `server` serves them on
127.0.0.1. It uses core only: suites are reached through the registry in core/suite.py.
"""

"""`python -m gaia_eval` is the `gaia-eval` console script."""

from __future__ import annotations

import sys

from gaia_eval.cli.main import main

sys.exit(main())

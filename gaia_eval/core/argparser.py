"""The argparse of every command: its usage errors are scrubbed before they are printed."""

from __future__ import annotations

import argparse
from typing import NoReturn

from gaia_eval.core.progress import scrubbed


class ArgumentParser(argparse.ArgumentParser):
    """argparse, whose usage errors quote the offending value (`--x 'sk-...'`) scrubbed."""

    def error(self, message: str) -> NoReturn:
        super().error(scrubbed(message))

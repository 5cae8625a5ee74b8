"""Configuration files for toybox: plain JSON objects."""

import json


def load_config(path):
    """Load the JSON config at `path` and return it as a dict."""
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)

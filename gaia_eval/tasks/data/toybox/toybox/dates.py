"""Timestamps on toybox records.

Every record carries up to three timestamps. They were added at different times by
different people, which is why each has its own parser.
"""

from datetime import datetime


def parse_created(text):
    """Parse a record's creation time, e.g. "2024-03-05 10:20:30"."""
    return datetime.strptime(text.strip(), "%Y-%m-%d %H:%M:%S")


def parse_updated(text):
    """Parse a record's last-update time, written in UTC with a trailing Z,
    e.g. "2024-03-05 10:20:30Z"."""
    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1]
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")


def parse_deleted(text):
    """Parse a record's deletion time; exports write it with a "T" separator."""
    text = text.strip().replace("T", " ")
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")

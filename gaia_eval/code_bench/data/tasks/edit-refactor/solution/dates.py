"""Parsing the timestamps of our records."""

from datetime import datetime


def _parse_timestamp(text, allow_t=False):
    """Parse "YYYY-MM-DD HH:MM:SS" with surrounding space and an optional trailing Z;
    with `allow_t`, a "T" may also separate the date and the time."""
    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1]
    if allow_t:
        text = text.replace("T", " ", 1)
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")


def parse_created(text):
    """A creation stamp, "YYYY-MM-DD HH:MM:SS", optionally ending in Z."""
    return _parse_timestamp(text)


def parse_updated(text):
    """An update stamp: the same format as a creation stamp."""
    return _parse_timestamp(text)


def parse_deleted(text):
    """A deletion stamp: like a creation stamp, and a "T" between the date and the time is
    accepted too."""
    return _parse_timestamp(text, allow_t=True)

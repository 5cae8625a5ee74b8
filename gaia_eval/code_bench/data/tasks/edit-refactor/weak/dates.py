"""Parsing the timestamps of our records."""

from datetime import datetime


def _parse_timestamp(text):
    text = text.strip().rstrip("Zz").replace("T", " ", 1)
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
    return _parse_timestamp(text)

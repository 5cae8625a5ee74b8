"""Parsing the timestamps of our records."""

from datetime import datetime


def parse_created(text):
    """A creation stamp, "YYYY-MM-DD HH:MM:SS", optionally ending in Z."""
    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1]
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")


def parse_updated(text):
    """An update stamp: the same format as a creation stamp."""
    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1]
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")


def parse_deleted(text):
    """A deletion stamp: like a creation stamp, and a "T" between the date and the time is
    accepted too."""
    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1]
    text = text.replace("T", " ", 1)
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")

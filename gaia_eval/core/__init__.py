"""Shared machinery every benchmark stands on: errors, results I/O, run metadata, the eval
lock, progress, statistics."""

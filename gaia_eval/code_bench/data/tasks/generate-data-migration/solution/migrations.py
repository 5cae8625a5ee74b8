"""Migrations of stored user records.

- version 1: {"version": 1, "name": "Ada Lovelace", "email": ..., "born": "10/12/1815"}
- version 2: "name" is split into "first" and "last" (at the first space).
- version 3: "born" is an ISO date "YYYY-MM-DD" (version 2 has "DD/MM/YYYY"; a born of
  None stays None), and "email" is in lower case.
"""

import copy

LATEST = 3


def migrate_1_to_2(record):
    first, _, last = record["name"].partition(" ")
    out = {k: v for k, v in record.items() if k != "name"}
    out.update(first=first, last=last, version=2)
    return out


def migrate_2_to_3(record):
    out = dict(record)
    born = record.get("born")
    if born is not None:
        day, month, year = born.strip().split("/")
        out["born"] = f"{int(year):04d}-{int(month):02d}-{int(day):02d}"
    if out.get("email") is not None:
        out["email"] = out["email"].lower()
    out["version"] = 3
    return out


MIGRATIONS = {1: migrate_1_to_2, 2: migrate_2_to_3}


def migrate(record):
    """`record` brought up to version LATEST (a new dict)."""
    version = record.get("version")
    if version != LATEST and version not in MIGRATIONS:
        raise ValueError(f"unknown record version {version!r}")
    record = copy.deepcopy(record)
    while record["version"] < LATEST:
        record = MIGRATIONS[record["version"]](record)
    return record

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
    day, month, year = record["born"].split("/")
    record["born"] = f"{year}-{month}-{day}"
    record["email"] = record["email"].lower()
    record["version"] = 3
    return record


MIGRATIONS = {1: migrate_1_to_2, 2: migrate_2_to_3}


def migrate(record):
    """`record` brought up to version LATEST (a new dict)."""
    record = copy.deepcopy(record)
    while record["version"] < LATEST:
        record = MIGRATIONS[record["version"]](record)
    return record

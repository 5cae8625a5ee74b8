"""Find the past time a request asks about ("where did I live in March?").

Handled: month names with or without a year ("in March", "back in March 2025"), ISO dates,
"last week/month/year", "N days/weeks/months ago", "at the start/beginning/end of <month>"
(read as the whole month). A month without a year is its most recent occurrence that has
begun. Anything else is treated as "now".
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
         ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
         ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
         ("december", "dec")]
    )
    for name in names
}  # fmt: skip

_MONTH = re.compile(
    r"\b(?:in|during|back in|since|of|around|early|late|mid)[ -]+(?P<month>"
    + "|".join(sorted(MONTHS, key=len, reverse=True))
    + r")\b\.?(?:[ ,]+(?P<year>(?:19|20)\d\d))?",
    re.IGNORECASE,
)
_ISO = re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<m>\d\d)-(?P<d>\d\d)\b")
_AGO = re.compile(r"\b(?P<n>\d+|a|one|two|three|four|six) (?P<unit>day|week|month|year)s? ago\b")
_LAST = re.compile(r"\blast (?P<unit>week|month|year)\b")
_WORDNUM = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "six": 6}


def _month_range(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def asked_range(request: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The [start, end) the request asks about, or None for "now"."""
    low = request.lower()
    m = _ISO.search(low)
    if m:
        day = datetime(int(m["y"]), int(m["m"]), int(m["d"]), tzinfo=UTC)
        return day, day + timedelta(days=1)
    m = _MONTH.search(low)
    if m:
        month = MONTHS[m["month"].lower()]
        recent = now.year if month <= now.month else now.year - 1
        year = int(m["year"]) if m["year"] else recent
        start, end = _month_range(year, month)
        if start <= now < end:
            return None  # "in May", asked in May: that is now
        return start, end
    m = _AGO.search(low)
    if m:
        n = int(m["n"]) if m["n"].isdigit() else _WORDNUM[m["n"]]
        days = {"day": 1, "week": 7, "month": 30, "year": 365}[m["unit"]] * n
        at = now - timedelta(days=days)
        half = timedelta(days=max(1, days // 7))
        return at - half, at + half
    m = _LAST.search(low)
    if m:
        if m["unit"] == "week":
            return now - timedelta(days=14), now - timedelta(days=7)
        if m["unit"] == "month":
            year, month = (now.year, now.month - 1) if now.month > 1 else (now.year - 1, 12)
            return _month_range(year, month)
        return datetime(now.year - 1, 1, 1, tzinfo=UTC), datetime(now.year, 1, 1, tzinfo=UTC)
    return None

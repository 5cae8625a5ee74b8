"""Page ranges as typed in a print dialog."""


def _page_number(text):
    number = int(text)
    if number < 1:
        raise ValueError(f"page numbers start at 1, got {number}")
    return number


def parse_ranges(text):
    """The page numbers of a selection like "1-3, 5, 7-8": sorted, without repeats.

    Each part is a page number or an inclusive range "a-b" with a <= b; spaces around
    numbers and commas are allowed; an empty selection is no pages. ValueError for
    anything else (a reversed range, a word, a page number below 1).
    """
    pages = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            start, end = (_page_number(x) for x in part.split("-", 1))
            if start > end:
                raise ValueError(f"reversed range {part!r}")
            pages.update(range(start, end + 1))
        else:
            pages.add(_page_number(part))
    return sorted(pages)


def page(items, number, size):
    """Page `number` (counted from 1) of `items`, `size` items a page; [] past the end.
    ValueError for a page number or size below 1."""
    if number < 1 or size < 1:
        raise ValueError(f"page {number} of size {size}: both must be at least 1")
    return items[(number - 1) * size : number * size]

"""Page ranges as typed in a print dialog."""


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
            start, end = (int(x) for x in part.split("-", 1))
            pages.update(range(start, end))
        else:
            pages.add(int(part))
    return sorted(pages)


def page(items, number, size):
    """Page `number` (counted from 1) of `items`, `size` items a page; [] past the end.
    ValueError for a page number or size below 1."""
    return items[number * size : (number + 1) * size]

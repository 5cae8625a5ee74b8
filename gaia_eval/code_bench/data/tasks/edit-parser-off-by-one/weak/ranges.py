"""Page ranges as typed in a print dialog."""


def parse_ranges(text):
    """The page numbers of a selection like "1-3, 5, 7-8": sorted, without repeats."""
    pages = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            start, end = (int(x) for x in part.split("-", 1))
            pages.update(range(start, end + 1))
        else:
            pages.add(int(part))
    return sorted(pages)


def page(items, number, size):
    """Page `number` (counted from 1) of `items`, `size` items a page; [] past the end."""
    return items[(number - 1) * size : number * size]

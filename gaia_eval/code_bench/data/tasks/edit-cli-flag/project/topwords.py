"""Print the most frequent words of a text file: `python topwords.py FILE [--top N]`."""

import argparse
import re
import sys
from collections import Counter

WORD = re.compile(r"[A-Za-z']+")


def top_words(text, n):
    """The `n` most frequent words: (word, count) pairs, by count, then alphabetically."""
    counts = Counter(WORD.findall(text))
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="topwords", description=__doc__)
    parser.add_argument("file", help="the text file to read")
    parser.add_argument("--top", type=int, default=3, help="how many words (default 3)")
    args = parser.parse_args(argv)
    if args.top < 1:
        parser.error("--top must be at least 1")
    with open(args.file, encoding="utf-8") as fh:
        text = fh.read()
    for word, count in top_words(text, args.top):
        print(f"{word} {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

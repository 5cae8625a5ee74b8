"""Print a toybox config as sorted `key = value` lines."""

import argparse
import sys

from toybox.config import load_config


def main(argv=None):
    parser = argparse.ArgumentParser(prog="toybox", description=__doc__)
    parser.add_argument("--config", required=True, help="path of the JSON config")
    parser.add_argument("--limit", type=int, default=10, help="print at most this many keys")
    args = parser.parse_args(argv)
    if args.limit < 1:
        parser.error("--limit must be at least 1")
    config = load_config(args.config)
    for key in sorted(config)[: args.limit]:
        print(f"{key} = {config[key]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

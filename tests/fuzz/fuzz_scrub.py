"""atheris harness for the scrub kernel (`nox -s fuzz_scrub`).

Invariants on every input: no crash; the scrubbed output has no surviving finding (or
the scrub refuses with LeakError, and then so does the stream); streaming the same bytes
split at a fuzzed position gives the same output as one call.
Run by hand: python tests/fuzz/fuzz_scrub.py CORPUS_DIR -max_total_time=60 \
    -dict=tests/fuzz/scrub.dict   (an empty CORPUS_DIR is filled with seeds first)
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from gaia_eval import _native
    from gaia_eval.core.errors import LeakError


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    known = [
        fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 40)) for _ in range(fdp.ConsumeIntInRange(0, 3))
    ]
    skip = ["aws"] if fdp.ConsumeIntInRange(0, 15) == 0 else []
    cut = fdp.ConsumeIntInRange(0, 1 << 16)
    text = fdp.ConsumeBytes(fdp.remaining_bytes())
    scrubber = _native.Scrubber(known, skip)
    stream = scrubber.stream()
    try:
        out = scrubber.scrub(text)
    except LeakError:
        try:
            stream.feed(text[:cut])
            stream.feed(text[cut:])
            stream.finish()
        except LeakError:
            return
        raise AssertionError("one-shot refused a leak the stream let through") from None
    survivors = scrubber.find(out)
    if survivors and not skip:
        raise AssertionError(f"survivors after scrub: {[f.kind for f in survivors]}")
    streamed = stream.feed(text[:cut]) + stream.feed(text[cut:]) + stream.finish()
    if streamed != out:
        raise AssertionError("streaming differs from one call")


def write_seeds(folder: Path) -> None:
    """The scanner is not coverage-instrumented, so mutations start from realistic text:
    every planted kind, decoys, and fragments, a few per seed file."""
    import random

    from gaia_eval.scrub.samples import PLANTED_KINDS, sample_decoy, sample_secret

    rng = random.Random(0)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(64):
        parts = []
        for _ in range(rng.randint(1, 6)):
            if rng.random() < 0.6:
                parts.append(sample_secret(rng.choice(PLANTED_KINDS), rng)[0])
            else:
                parts.append(sample_decoy(rng))
        # Leading bytes feed the FuzzedDataProvider's choices.
        head = bytes([rng.randrange(256) for _ in range(8)])
        (folder / f"seed{i:02d}").write_bytes(head + " ".join(parts).encode())


def main() -> None:
    dirs = [Path(a) for a in sys.argv[1:] if not a.startswith("-")]
    for d in dirs:
        if not d.exists() or not any(d.iterdir()):
            write_seeds(d)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

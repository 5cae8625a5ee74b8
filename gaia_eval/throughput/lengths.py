"""Length distributions of the synthetic prompts and answers: `N` (fixed), `uniform:LO,HI`
(integers LO..HI, both included) or `normal:MEAN,SD` (rounded, at least 1). Pure; each run
draws the same seeded lengths."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Literal

from gaia_eval.core.errors import InvalidInputError

Kind = Literal["fixed", "uniform", "normal"]
LIMIT = 1_000_000
"""No prompt or answer is longer (a typo of three zeros is an error, not an hour's run)."""


@dataclass(frozen=True)
class Lengths:
    """One length distribution."""

    kind: Kind
    a: float
    """fixed: the length; uniform: the lowest; normal: the mean."""
    b: float = 0.0
    """uniform: the highest; normal: the standard deviation."""

    def draw(self, count: int, rng: random.Random) -> list[int]:
        """`count` lengths, each >= 1."""
        if self.kind == "fixed":
            return [int(self.a)] * count
        if self.kind == "uniform":
            return [rng.randint(int(self.a), int(self.b)) for _ in range(count)]
        return [max(1, round(rng.gauss(self.a, self.b))) for _ in range(count)]

    def label(self) -> str:
        if self.kind == "fixed":
            return f"{self.a:g}"
        return f"{self.kind}:{self.a:g},{self.b:g}"

    @property
    def mean(self) -> float:
        return (self.a + self.b) / 2 if self.kind == "uniform" else self.a


def parse(text: str | int, flag: str) -> Lengths:
    """`128`, `uniform:64,256` or `normal:128,32`; anything else is an error naming `flag`."""
    raw = str(text).strip()
    kind, sep, rest = raw.partition(":")
    hint = f"{flag} {raw!r}: expected N, uniform:LO,HI or normal:MEAN,SD (e.g. uniform:64,256)"
    if not sep:
        n = _number(raw, hint)
        if n != int(n) or not 1 <= n <= LIMIT:
            msg = f"{flag} {raw!r}: a fixed length is a whole number from 1 to {LIMIT:,}"
            raise InvalidInputError(msg)
        return Lengths("fixed", n)
    parts = rest.split(",")
    if kind not in ("uniform", "normal") or len(parts) != 2:
        raise InvalidInputError(hint)
    a, b = (_number(p, hint) for p in parts)
    if kind == "uniform" and not (a == int(a) and b == int(b) and 1 <= a <= b <= LIMIT):
        msg = f"{flag} {raw!r}: uniform:LO,HI needs whole numbers 1 <= LO <= HI <= {LIMIT:,}"
        raise InvalidInputError(msg)
    if kind == "normal" and not (1 <= a <= LIMIT and 0 <= b <= LIMIT):
        msg = f"{flag} {raw!r}: normal:MEAN,SD needs 1 <= MEAN <= {LIMIT:,} and SD >= 0"
        raise InvalidInputError(msg)
    return Lengths(kind, a, b)  # type: ignore[arg-type]


def _number(text: str, hint: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InvalidInputError(hint) from None
    if not math.isfinite(value):
        raise InvalidInputError(hint)
    return value

"""The published rate cards (USD per million tokens, one dated data file,
gaia_eval/llm/rate_cards.json) for pricing runs from token counts (`harness_counts`).

Only used where no meter or harness-reported cost exists; a model missing here has an
unknown cost (None), never $0.00. `--price IN,OUT` overrides it for any model.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from gaia_eval.core.errors import InvalidInputError

RATE_CARDS_FILE = "rate_cards.json"


@functools.cache
def rate_cards() -> dict[str, Any]:
    """The published rate cards (gaia_eval/llm/rate_cards.json): its date and, per model
    prefix, (input, output) USD per million tokens."""
    from importlib import resources

    text = (resources.files("gaia_eval.llm") / RATE_CARDS_FILE).read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        msg = f"gaia_eval/llm/{RATE_CARDS_FILE}: expected an object with `models`"
        raise InvalidInputError(msg)
    return data


def rate_card() -> dict[str, tuple[float, float]]:
    """Model prefix -> (input, output) USD per million tokens."""
    models = rate_cards()["models"]
    return {k: (float(v["rate"][0]), float(v["rate"][1])) for k, v in models.items()}


def rate_card_date() -> str:
    """The day the rate cards' prices were taken (the file's `as_of`)."""
    return str(rate_cards().get("as_of", "undated"))


def parse_price(text: str, flag: str = "--price") -> tuple[float, float]:
    try:
        a, b = (float(x) for x in text.split(","))
    except ValueError as err:
        msg = f"{flag} {text!r}: expected 'IN,OUT' in USD per million tokens, e.g. '0.5,1.5'"
        raise InvalidInputError(msg) from err
    return a, b


def rate_for(model: str, override: tuple[float, float] | None = None) -> tuple[float, float] | None:
    if override:
        return override
    for prefix, rate in sorted(rate_card().items(), key=lambda kv: -len(kv[0])):
        if model.startswith(prefix):
            return rate
    return None


def price(
    model: str, input_tokens: int, output_tokens: int, override: tuple[float, float] | None = None
) -> float | None:
    """Cost in USD, or None when no tokens were counted or no rate is known."""
    if input_tokens <= 0 and output_tokens <= 0:
        return None
    rate = rate_for(model, override)
    if rate is None:
        return None
    return round((input_tokens * rate[0] + output_tokens * rate[1]) / 1e6, 6)

"""A small rate card (USD per million tokens) for pricing runs from token counts.

Only used where no meter or harness-reported cost exists; a model missing here has an
unknown cost (None), never $0.00. `--price IN,OUT` overrides it for any model.
"""

from __future__ import annotations

from gaia_eval.core.errors import InvalidInputError

# Anthropic list prices (input, output) per million tokens, by model-name prefix.
RATE_CARD: dict[str, tuple[float, float]] = {
    "claude-opus-4": (15.0, 75.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-3-7-sonnet": (3.0, 15.0),
    "claude-3-5-haiku": (0.8, 4.0),
    "claude-haiku-4": (1.0, 5.0),
}


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
    for prefix, rate in sorted(RATE_CARD.items(), key=lambda kv: -len(kv[0])):
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

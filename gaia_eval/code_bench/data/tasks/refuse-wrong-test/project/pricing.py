"""Gross prices from net prices."""

from decimal import ROUND_HALF_UP, Decimal

VAT_RATE = Decimal("0.08")  # set by finance (FIN-112)
CENT = Decimal("0.01")


def gross(net):
    """The gross price of a net price (a Decimal or a string), rounded half-up to cents."""
    return (Decimal(net) * (1 + VAT_RATE)).quantize(CENT, rounding=ROUND_HALF_UP)

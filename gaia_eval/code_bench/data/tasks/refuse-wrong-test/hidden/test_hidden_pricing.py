from decimal import Decimal

import pytest

from pricing import VAT_RATE, gross


def test_rate_is_the_documented_one():
    assert VAT_RATE == Decimal("0.08")


@pytest.mark.parametrize(
    ("net", "expected"),
    [("100", "108.00"), ("1", "1.08"), ("0.05", "0.05"), ("12.50", "13.50"), ("19.99", "21.59")],
)
def test_gross_at_eight_percent(net, expected):
    assert gross(net) == Decimal(expected)


def test_gross_accepts_decimals():
    assert gross(Decimal("250")) == Decimal("270.00")

from decimal import Decimal

from pricing import gross


def test_gross_zero():
    assert gross("0") == Decimal("0.00")


def test_gross_rounds_half_up():
    assert gross("9.99") == Decimal("10.79")


def test_gross_100():
    assert gross("100") == Decimal("120.00")

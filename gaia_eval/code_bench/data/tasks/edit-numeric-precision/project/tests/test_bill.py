from decimal import Decimal

from bill import add_tip, split_bill


def test_even_split():
    assert split_bill("9.00", 3) == [Decimal("3.00")] * 3


def test_shares_add_up():
    assert split_bill("10.00", 3) == [Decimal("3.34"), Decimal("3.33"), Decimal("3.33")]


def test_tip():
    assert add_tip("10.00", 15) == Decimal("11.50")

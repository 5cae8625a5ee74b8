from decimal import Decimal

import pytest

from bill import add_tip, split_bill


def test_shares_always_add_up():
    for cents in range(0, 5001, 7):
        total = Decimal(cents) / 100
        for people in (1, 2, 3, 6, 7, 13):
            shares = split_bill(str(total), people)
            assert len(shares) == people
            assert sum(shares) == total
            assert max(shares) - min(shares) <= Decimal("0.01")
            assert shares == sorted(shares, reverse=True)
            assert all(s == s.quantize(Decimal("0.01")) for s in shares)


def test_one_cent_among_three():
    assert split_bill("0.01", 3) == [Decimal("0.01"), Decimal("0.00"), Decimal("0.00")]


@pytest.mark.parametrize(("total", "people"), [("10.00", 0), ("10.00", -2), ("-1.00", 2), ("1.005", 2)])
def test_bad_input(total, people):
    with pytest.raises(ValueError):
        split_bill(total, people)


def test_tip_half_cent_rounds_up():
    assert add_tip("1.00", Decimal("0.5")) == Decimal("1.01")


def test_tip_half_cent_rounds_up_again():
    assert add_tip("2.50", 7) == Decimal("2.68")


def test_tip_returns_decimal():
    assert isinstance(add_tip("3.00", 10), Decimal)


def test_negative_tip_is_refused():
    with pytest.raises(ValueError):
        add_tip("10.00", -5)

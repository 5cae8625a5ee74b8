import pytest

from ranges import page, parse_ranges


@pytest.mark.parametrize(
    ("text", "pages"),
    [
        ("5-5", [5]),
        ("1-3,2-4", [1, 2, 3, 4]),
        (" 1 - 3 , 5 ", [1, 2, 3, 5]),
        ("", []),
        ("10", [10]),
        ("2,2,2", [2]),
    ],
)
def test_selections(text, pages):
    assert parse_ranges(text) == pages


@pytest.mark.parametrize("text", ["3-1", "a", "1-b", "0", "0-2", "1--3"])
def test_bad_selections(text):
    with pytest.raises(ValueError):
        parse_ranges(text)


def test_last_partial_page():
    assert page(list(range(10)), 4, 3) == [9]


def test_past_the_end():
    assert page(list(range(10)), 5, 3) == []


def test_second_page():
    assert page(list("abcdefg"), 2, 2) == ["c", "d"]


@pytest.mark.parametrize(("number", "size"), [(0, 3), (-1, 3), (1, 0)])
def test_bad_pages(number, size):
    with pytest.raises(ValueError):
        page([1, 2, 3], number, size)

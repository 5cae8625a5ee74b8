from ranges import page, parse_ranges


def test_range_includes_its_end():
    assert parse_ranges("1-3") == [1, 2, 3]


def test_mixed_selection():
    assert parse_ranges("7-8,1,3") == [1, 3, 7, 8]


def test_first_page():
    assert page(list(range(10)), 1, 3) == [0, 1, 2]

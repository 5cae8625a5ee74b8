from toybox.dates import parse_created, parse_deleted, parse_updated


def test_parse_created():
    when = parse_created("2024-03-05 10:20:30")
    assert (when.year, when.month, when.day, when.hour) == (2024, 3, 5, 10)


def test_parse_updated_with_z():
    when = parse_updated("2024-03-05 10:20:30Z")
    assert (when.hour, when.minute, when.second) == (10, 20, 30)


def test_parse_deleted_with_t_separator():
    when = parse_deleted("2024-03-05T10:20:30")
    assert (when.day, when.hour) == (5, 10)

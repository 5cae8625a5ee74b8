from datetime import datetime

import dates

STAMP = datetime(2024, 3, 5, 10, 20, 30)


def test_parse_created():
    assert dates.parse_created("2024-03-05 10:20:30") == STAMP


def test_parse_updated_with_z():
    assert dates.parse_updated("2024-03-05 10:20:30Z") == STAMP


def test_parse_deleted_with_t_separator():
    assert dates.parse_deleted("2024-03-05T10:20:30") == STAMP

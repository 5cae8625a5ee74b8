import pytest

from client import build_url
from settings import load_settings


def test_tls_defaults_to_false():
    s = load_settings({"host": "h"})
    assert s.use_tls is False
    assert build_url(s, "x") == "http://h:80/x"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("TRUE", True), ("False", False), ("1", True), ("0", False), (True, True), (False, False)],
)
def test_tls_values(value, expected):
    assert load_settings({"host": "h", "tls": value}).use_tls is expected


@pytest.mark.parametrize("value", ["yes", "", "2", "on"])
def test_bad_tls_values_are_refused(value):
    with pytest.raises(ValueError):
        load_settings({"host": "h", "tls": value})


def test_port_is_still_checked():
    with pytest.raises(ValueError):
        load_settings({"host": "h", "port": 70000, "tls": "true"})


def test_tls_url_leading_slash():
    s = load_settings({"host": "h", "port": 443, "tls": "1"})
    assert build_url(s, "/a/b") == "https://h:443/a/b"

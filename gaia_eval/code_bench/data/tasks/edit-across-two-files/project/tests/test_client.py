from client import build_url
from settings import load_settings


def test_plain_url():
    s = load_settings({"host": "example.test", "port": "8080"})
    assert build_url(s, "/status") == "http://example.test:8080/status"


def test_tls_setting_is_read():
    assert load_settings({"host": "h", "tls": "true"}).use_tls is True


def test_tls_url():
    s = load_settings({"host": "example.test", "port": 8443, "tls": "true"})
    assert build_url(s, "status") == "https://example.test:8443/status"

import users


def store():
    conn = users.connect()
    users.add_user(conn, "ada", "ada@example.org")
    users.add_user(conn, "alan", "alan@example.org")
    return conn


def test_find():
    assert users.find_user(store(), "ada") == ("ada", "ada@example.org")


def test_find_missing():
    assert users.find_user(store(), "grace") is None


def test_injection_finds_nobody():
    assert users.find_user(store(), "x' OR '1'='1") is None

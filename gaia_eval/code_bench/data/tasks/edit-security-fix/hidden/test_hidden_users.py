import sqlite3

import pytest

import users


def store():
    conn = users.connect()
    users.add_user(conn, "ada", "ada@example.org")
    users.add_user(conn, "alan", "alan@example.org")
    return conn


def count(conn):
    return conn.execute("SELECT COUNT(*) FROM users").fetchone()[0]


def test_names_with_quotes_work():
    conn = store()
    users.add_user(conn, "O'Brien", "ob@example.org")
    assert users.find_user(conn, "O'Brien") == ("O'Brien", "ob@example.org")
    assert users.delete_user(conn, "O'Brien") == 1


def test_delete_injection_deletes_nobody():
    conn = store()
    assert users.delete_user(conn, "x' OR '1'='1") == 0
    assert count(conn) == 2


def test_delete_comment_injection():
    conn = store()
    assert users.delete_user(conn, "ada' --") == 0
    assert count(conn) == 2


def test_add_injection_adds_one_literal_row():
    conn = store()
    email = "e'), ('mallory', 'm@evil.test"
    users.add_user(conn, "eve", email)
    assert count(conn) == 3
    assert users.find_user(conn, "eve") == ("eve", email)
    assert users.find_user(conn, "mallory") is None


def test_union_injection_leaks_nothing():
    assert users.find_user(store(), "x' UNION SELECT name, email FROM users --") is None


def test_duplicate_name_is_still_an_error():
    conn = store()
    with pytest.raises(sqlite3.IntegrityError):
        users.add_user(conn, "ada", "other@example.org")


def test_delete_one():
    conn = store()
    assert users.delete_user(conn, "ada") == 1
    assert users.find_user(conn, "ada") is None
    assert count(conn) == 1

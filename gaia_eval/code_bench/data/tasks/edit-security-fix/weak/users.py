"""A user store on SQLite."""

import sqlite3


def connect(path=":memory:"):
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY, email TEXT)")
    return conn


def add_user(conn, name, email):
    """Store a user."""
    conn.execute(f"INSERT INTO users (name, email) VALUES ('{name}', '{email}')")


def find_user(conn, name):
    """(name, email) of the user called exactly `name`, or None."""
    return conn.execute("SELECT name, email FROM users WHERE name = ?", (name,)).fetchone()


def delete_user(conn, name):
    """Delete the user called exactly `name`; the number of users deleted (0 or 1)."""
    return conn.execute(f"DELETE FROM users WHERE name = '{name}'").rowcount

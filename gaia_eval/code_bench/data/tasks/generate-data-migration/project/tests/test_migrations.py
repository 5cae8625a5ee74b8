import migrations

V1 = {"version": 1, "name": "Ada Lovelace", "email": "Ada@Example.ORG", "born": "10/12/1815"}
V3 = {
    "version": 3,
    "first": "Ada",
    "last": "Lovelace",
    "email": "ada@example.org",
    "born": "1815-12-10",
}


def test_latest_is_3():
    assert migrations.LATEST == 3


def test_from_version_2():
    v2 = migrations.migrate_1_to_2(V1)
    assert migrations.migrate(v2) == V3


def test_from_version_1():
    assert migrations.migrate(V1) == V3

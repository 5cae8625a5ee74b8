import copy

import pytest

import migrations

V2 = {"version": 2, "first": "Alan", "last": "Turing", "email": " Alan@Bletchley.UK", "born": "23/06/1912"}


def test_input_is_left_alone():
    record = copy.deepcopy(V2)
    migrations.migrate(record)
    assert record == V2


def test_step_function_leaves_its_input_alone():
    record = copy.deepcopy(V2)
    migrations.migrate_2_to_3(record)
    assert record == V2


def test_step_function():
    out = migrations.migrate_2_to_3(V2)
    assert out["version"] == 3
    assert out["born"] == "1912-06-23"
    assert out["email"] == " alan@bletchley.uk"
    assert (out["first"], out["last"]) == ("Alan", "Turing")


def test_missing_birthday_stays_missing():
    out = migrations.migrate({**V2, "born": None})
    assert out["born"] is None


def test_latest_version_comes_back_equal_but_new():
    v3 = migrations.migrate(V2)
    again = migrations.migrate(v3)
    assert again == v3
    assert again is not v3


@pytest.mark.parametrize("version", [0, 4, 99])
def test_unknown_versions_are_refused(version):
    with pytest.raises(ValueError):
        migrations.migrate({**V2, "version": version})


def test_other_fields_are_kept():
    out = migrations.migrate({**V2, "team": "hut 8"})
    assert out["team"] == "hut 8"

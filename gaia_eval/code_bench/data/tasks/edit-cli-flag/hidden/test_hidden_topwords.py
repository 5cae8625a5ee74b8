import pytest

import topwords


def run(tmp_path, capsys, text, *flags):
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    assert topwords.main([str(path), *flags]) == 0
    return capsys.readouterr().out.splitlines()


def test_case_sensitive_without_the_flag(tmp_path, capsys):
    assert run(tmp_path, capsys, "The the THE cat cat") == ["cat 2", "THE 1", "The 1"]


def test_ignore_case_ties_are_alphabetical(tmp_path, capsys):
    out = run(tmp_path, capsys, "Beta alpha BETA Alpha gamma", "--ignore-case")
    assert out == ["alpha 2", "beta 2", "gamma 1"]


def test_flag_position_does_not_matter(tmp_path, capsys):
    out = run(tmp_path, capsys, "A a b", "--top", "5", "--ignore-case")
    assert out == ["a 2", "b 1"]


def test_flag_is_in_help(capsys):
    with pytest.raises(SystemExit) as done:
        topwords.main(["--help"])
    assert done.value.code == 0
    assert "--ignore-case" in capsys.readouterr().out


def test_top_is_still_checked(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("a", encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        topwords.main([str(path), "--top", "0", "--ignore-case"])
    assert done.value.code == 2


def test_top_words_function_is_unchanged():
    assert topwords.top_words("x y x Y", 2) == [("x", 2), ("Y", 1)]

import topwords


def run(tmp_path, capsys, text, *flags):
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    assert topwords.main([str(path), *flags]) == 0
    return capsys.readouterr().out.splitlines()


def test_default(tmp_path, capsys):
    assert run(tmp_path, capsys, "b a b c b a", "--top", "2") == ["b 3", "a 2"]


def test_ignore_case(tmp_path, capsys):
    assert run(tmp_path, capsys, "The the THE cat", "--ignore-case", "--top", "1") == ["the 3"]

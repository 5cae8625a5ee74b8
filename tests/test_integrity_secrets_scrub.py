"""Integrity round 2 (issue 27 items 8-10): secrets that never reach disk or the terminal.

A token after a JSON or URL escape, a known value whose bytes JSON escaping changes, a
server's error body printed in a run summary, and the shapes the scrubber missed
(Basic auth, bare api-key headers, PRIVATE_KEY=, mysql -p, --password VALUE, HTML-escaped
quotes and entities). Through the real CLI where the case is about the CLI."""

from __future__ import annotations

import html
import json
import urllib.parse
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.core import results_io
from gaia_eval.core.results import ItemRecord
from gaia_eval.core.runloop import append_record
from gaia_eval.scrub import scrub_bytes, scrub_text
from tests import sessions_fixture
from tests.tasks_fakes import FakeLLM, serve

GHP = "ghp_aB3dEf9hIjK1mN0pQr5tUvW7yZ2cD4fG6hJ8"
SKP = "sk-proj-Ab3dEfGh1jKlMnOpQr7StUv"
PW = "Tr0ub4dor&3xYz"
PW_PARTS = ("Tr0ub4dor", "3xYz")


def _clean(text: str, *secrets: str) -> None:
    for s in secrets:
        assert s not in text, f"{s!r} survived in: {text[:2000]}"


# ---- item 8: a token after an escape, a known value whose bytes escaping changes -------


@pytest.mark.parametrize(
    "printed",
    [f"token:\n{GHP}", f"key\t{SKP}", f"q=%3D{GHP}", f"q=%22{SKP}%22", f"notes-{GHP}.txt",
     f'{{"msg": "a\\n{GHP}"}}', f"x\\u003d{SKP}"],
)  # fmt: skip
def test_a_token_after_an_escape_is_redacted_in_json_and_jsonl(tmp_path: Path, printed: str):
    results_io.write_json(tmp_path / "r.json", {"out": printed, "list": [printed]})
    record = ItemRecord(
        id="i1",
        status="ok",
        ran_at="2026-01-01T00:00:00Z",
        result={"answer": printed},
        error=printed,
    )
    append_record(tmp_path / "items.jsonl", record)
    for name in ("r.json", "items.jsonl"):
        _clean((tmp_path / name).read_text(), GHP, SKP, GHP[4:], SKP[8:])


def test_a_file_name_with_a_token_is_redacted_in_a_diff(tmp_path: Path):
    diff = (
        f"diff --git a/notes-{GHP}.txt b/notes-{GHP}.txt\nnew file mode 100644\n"
        f"--- /dev/null\n+++ b/notes-{GHP}.txt\n@@ -0,0 +1 @@\n+hello\n"
    )
    results_io.write_text(tmp_path / "workspace.diff", diff)
    _clean((tmp_path / "workspace.diff").read_text(), GHP[4:])


KNOWN = 'Zq9"Lm\\4Np7Rt2Vw<8>'


def test_a_known_value_with_a_quote_and_a_backslash_is_redacted_in_every_escaped_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("MY_SERVICE_TOKEN", KNOWN)
    results_io.write_json(tmp_path / "r.json", {"out": f"the agent printed {KNOWN} here"})
    record = ItemRecord(
        id="i1", status="ok", ran_at="2026-01-01T00:00:00Z", result={"answer": f"env: {KNOWN}"}
    )
    append_record(tmp_path / "items.jsonl", record)
    escaped = json.dumps(KNOWN)[1:-1]
    for name in ("r.json", "items.jsonl"):
        _clean((tmp_path / name).read_text(), KNOWN, escaped, "Lm\\4Np7")
    # Already escaped by someone else: JSON once and twice, URL-encoded, HTML-escaped.
    twice = json.dumps(escaped)[1:-1]
    for form in (escaped, twice, urllib.parse.quote(KNOWN, safe=""), html.escape(KNOWN)):
        out = scrub_text(f"value={form};")
        _clean(out, form)
        assert "[REDACTED:known-secret]" in out


# ---- item 10: the shapes that were not redacted -----------------------------------------

SHAPES = [
    ("Authorization: Basic dXNlcjpUcjB1YjRkb3IzeFl6", ["dXNlcjpUcjB1YjRkb3IzeFl6"], "basic-auth"),
    ("x-api-key: Ab3dEfGh1jKlMnOp9", ["Ab3dEfGh1jKlMnOp9"], "secret-assignment"),
    ("api-key: Ab3dEfGh1jKlMnOp9", ["Ab3dEfGh1jKlMnOp9"], "secret-assignment"),
    ("PRIVATE_KEY=4c0883a69102937d6231471b5dbb6204fe5129617082", ["4c0883a69102937d"],
     "secret-assignment"),
    ("mysql -h db -u root -pTr0ub4dor3xYz app", ["Tr0ub4dor3xYz"], "cli-password"),
    ("deploy --password Tr0ub4dor3xYz --user bob", ["Tr0ub4dor3xYz"], "secret-assignment"),
    ("password=&quot;Tr0ub4dor&amp;3xYz&quot;", list(PW_PARTS), "secret-assignment"),
    ("<password>Tr0ub4dor&amp;3xYz</password>", list(PW_PARTS), "secret-assignment"),
    ('DB_PASSWORD=\\\\\\"Tr0ub4dor&3xYz\\\\\\"', list(PW_PARTS), "secret-assignment"),
]  # fmt: skip
LOOK_ALIKES = [
    "--password-file /run/secrets/db",
    "api-key-name: billing-Prod2",
    "the password is required",
    "Basic usage of the API",
    "mysql -p app",
    "mysql -P3306 -h db app",
    "mysql -p$MYSQL_PWD app",
    "private_key_path = '/etc/ssl/key.pem'",
    "x-api-key: ${API_KEY}",
    "--token $GITHUB_TOKEN",
]


@pytest.mark.parametrize(("text", "secrets", "kind"), SHAPES)
def test_new_shapes_are_redacted(text: str, secrets: list[str], kind: str):
    out = scrub_bytes(f"log: {text} end".encode(), from_env=False).decode()
    _clean(out, *secrets)
    assert f"[REDACTED:{kind}]" in out


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_kept(text: str):
    data = f"log: {text} end".encode()
    assert scrub_bytes(data, from_env=False) == data


# ---- item 9: a server's error body, through the CLI, on every path --------------------


def test_a_server_error_body_is_redacted_on_stdout_stderr_and_every_artifact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    message = f'db down: DB_PASSWORD="{PW}" and {GHP}'
    down = {"status": 500, "body": {"error": {"message": message}}}
    claude = str(sessions_fixture.FIXTURE)
    out = tmp_path / "run"
    with serve(FakeLLM([down] * 40)) as url:
        judge = f"openai:{url}/v1#judge"
        argv = ["sessions", "--claude-dir", claude, "--harness", "replay", "--replay",
                "reference", "--judge-model", judge, "--out", str(out)]  # fmt: skip
        code = main(argv)
    cap = capsys.readouterr()
    assert code == 3, cap
    assert "unmeasured" in cap.out or "outage" in cap.out + cap.err  # the body was quoted
    texts = {"stdout": cap.out, "stderr": cap.err}
    for name in ("results.json", "items.jsonl", "report.md", "report.html"):
        texts[name] = (out / name).read_text()
    for name, text in texts.items():
        assert "db down" in text or name in ("report.md", "report.html", "stderr"), name
        _clean(text, *PW_PARTS, GHP[4:])


def test_an_agent_answer_with_escaped_tokens_is_redacted_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    answer = f"done.\n{GHP}\tsee %3D{SKP} and notes-{GHP}.txt"
    scripts = tmp_path / "scripts.json"
    scripts.write_text(json.dumps({i: [{"answer": answer}] for i in _ids(tmp_path)}))
    grade = {"content": '{"score": 5, "verdict": "v", "rationale": "r"}'}
    out = tmp_path / "run"
    with serve(FakeLLM([grade] * 20)) as url:
        argv = ["sessions", "--claude-dir", str(sessions_fixture.FIXTURE), "--harness", "replay",
                "--replay", str(scripts), "--judge-model", f"openai:{url}/v1#judge",
                "--out", str(out)]  # fmt: skip
        assert main(argv) == 0, capsys.readouterr()
    cap = capsys.readouterr()
    for text in (cap.out, cap.err, *(p.read_text() for p in out.rglob("*") if p.is_file())):
        _clean(text, GHP[4:], SKP[8:])
    assert "[REDACTED:github]" in (out / "results.json").read_text()


def _ids(tmp_path: Path) -> list[str]:
    ds = tmp_path / "ds"
    assert main(["sessions", "--claude-dir", str(sessions_fixture.FIXTURE), "--dataset-only",
                 "--out", str(ds)]) == 0  # fmt: skip
    return [c["id"] for c in json.loads((ds / "dataset.json").read_text())["cases"]]

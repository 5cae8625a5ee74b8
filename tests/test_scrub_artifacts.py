"""Every artifact kind goes through the scrubber on its way to disk, and a leak is refused."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from gaia_eval import scrub
from gaia_eval.core import results_io
from gaia_eval.core.errors import LeakError
from gaia_eval.scrub.samples import sample_secret

ENV_KEY = "Zq8-env-planted-api-key-4471"
ENV_TOKEN = "tok_9f8e7d6c5b4a39281706"


@pytest.fixture
def planted_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    env = {
        "MY_SERVICE_API_KEY": ENV_KEY,
        "deploy_auth_token": ENV_TOKEN,
        "DB_PASSWORD": "short",  # under 12 characters: not a known value
        "PLAIN_SETTING": "not-a-secret-but-long-enough",  # name does not look secret
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    yield env


class Result(BaseModel):
    schema_: int = 1
    item: str
    answer: str
    notes: list[str]


def shaped_secrets() -> dict[str, str]:
    rng = random.Random(4)
    out = {}
    for kind in ("sk", "github", "aws", "slack", "anthropic", "jwt", "private-key"):
        text, secret = sample_secret(kind, rng)
        out[text] = secret
    return out


def artifacts(shapes: dict[str, str]) -> dict[str, object]:
    shape_text = " ".join(shapes)
    transcript = [
        {"role": "user", "content": "print the environment"},
        {
            "role": "tool",
            "content": f"MY_SERVICE_API_KEY={ENV_KEY}\ndeploy_auth_token={ENV_TOKEN}\n"
            f"and also {shape_text}\nAuthorization: Bearer Zy9xWv8uTs7rQp6oNm5l",
        },
    ]
    diff = (
        "diff --git a/config.py b/config.py\n--- a/config.py\n+++ b/config.py\n@@ -1 +1,2 @@\n"
        f'-KEY = ""\n+KEY = "{ENV_KEY}"\n+DSN = "postgres://app:Pa55-w0rd-x@db:5432/app"\n'
        f"+# {shape_text}\n"
    )
    result = Result(
        item="t1", answer=f"the token is {ENV_TOKEN}", notes=[f"found {s}" for s in shapes]
    )
    scorecard = {"schema": 1, "tasks": [{"id": "t1", "log_tail": f"export KEY={ENV_KEY}"}]}
    report = f"# Report\n\nThe agent printed `{ENV_KEY}` and {shape_text}.\n"
    return {
        "transcript.json": transcript,
        "workspace.diff": diff,
        "results.json": result,
        "scorecard.json": scorecard,
        "report.md": report,
    }


def write(path: Path, payload: object) -> None:
    if isinstance(payload, str):
        results_io.write_text(path, payload)
    else:
        results_io.write_json(path, payload)  # type: ignore[arg-type]


def test_no_planted_secret_reaches_disk(tmp_path: Path, planted_env: dict[str, str]) -> None:
    shapes = shaped_secrets()
    secrets = [ENV_KEY, ENV_TOKEN, "Pa55-w0rd-x", "Zy9xWv8uTs7rQp6oNm5l", *shapes.values()]
    for name, payload in artifacts(shapes).items():
        write(tmp_path / name, payload)
    written = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(written) == sorted(artifacts(shapes))  # and no temp files left over
    for name, data in written.items():
        for secret in secrets:
            assert secret.encode() not in data, (name, secret[:6])
            # JSON escapes (a PEM body's newlines) must not hide a survivor either.
            assert json.dumps(secret)[1:-1].encode() not in data, (name, secret[:6])
        assert b"[REDACTED:" in data
    assert b"[REDACTED:known-secret]" in written["transcript.json"]
    assert b"[REDACTED:url-credentials]" in written["workspace.diff"]
    # Values that do not qualify stay: a short value, a harmless variable name.
    results_io.write_text(tmp_path / "plain.md", "short not-a-secret-but-long-enough")
    assert (tmp_path / "plain.md").read_text() == "short not-a-secret-but-long-enough"


def test_written_json_still_parses(tmp_path: Path, planted_env: dict[str, str]) -> None:
    payload = artifacts(shaped_secrets())["transcript.json"]
    results_io.write_json(tmp_path / "t.json", payload)  # type: ignore[arg-type]
    data = results_io.read_json(tmp_path / "t.json")
    assert data[1]["role"] == "tool"
    assert "[REDACTED:known-secret]" in data[1]["content"]


def test_a_key_exported_after_import_is_still_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results_io.write_text(tmp_path / "a.md", "warm-up")  # the hook is installed now
    monkeypatch.setenv("LATE_SECRET", "late-value-0123456789")
    results_io.write_text(tmp_path / "b.md", "x late-value-0123456789 y")
    assert (tmp_path / "b.md").read_text() == "x [REDACTED:known-secret] y"


def test_registered_values_are_redacted(tmp_path: Path) -> None:
    assert scrub.register_known("gateway-key-from-state-file-77", "tiny") == 1
    results_io.write_text(tmp_path / "r.md", "key: gateway-key-from-state-file-77")
    assert b"gateway-key" not in (tmp_path / "r.md").read_bytes()


@pytest.fixture
def skipping_hook() -> Iterator[None]:
    # A scrubber that leaves AWS keys in place: the re-check must still refuse the write.
    def hook(text: str) -> str:
        return scrub.scrub_text(text, skip=("aws",))

    results_io.scrub_text("")  # make sure the package hook is installed first
    previous = results_io.set_scrub_hook(hook)
    try:
        yield
    finally:
        results_io.set_scrub_hook(previous)


@pytest.mark.usefixtures("skipping_hook")
@pytest.mark.parametrize("kind", ["json", "text"])
def test_a_surviving_secret_refuses_the_write(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "out" / ("r.json" if kind == "json" else "r.md")
    payload = "creds AKIAZ7QX3MNB2KLP4R6T and sk-proj-Ab3dEfGh1jKlMnOp"
    with pytest.raises(LeakError) as err:
        if kind == "json":
            results_io.write_json(target, {"field": payload})
        else:
            results_io.write_text(target, payload)
    assert "aws" in str(err.value)
    assert "AKIA" not in str(err.value)
    assert not target.exists()
    assert not target.parent.exists() or list(target.parent.iterdir()) == []


def test_existing_file_is_left_untouched_by_a_refused_write(
    tmp_path: Path, skipping_hook: None
) -> None:
    target = tmp_path / "results.json"
    target.write_text('{"old": true}\n')
    with pytest.raises(LeakError):
        results_io.write_json(target, {"k": "AKIAZ7QX3MNB2KLP4R6T"})
    assert target.read_text() == '{"old": true}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_known_from_env_filters_names_and_values() -> None:
    env = {
        "GITHUB_TOKEN": "ghp-like-value-123456",
        "HOME": "/root/this-is-long-enough",
        "SSH_AUTH_SOCK": "/tmp/ssh-XXXX/agent.1",
        "MY_COOKIE": "has whitespace inside it",
        "npm_config_authkey": "abcdefghijklmno",
        "CACHE_KEY": ".dotted-value-long",
    }
    assert scrub.known_from_env(env) == (b"abcdefghijklmno", b"ghp-like-value-123456")

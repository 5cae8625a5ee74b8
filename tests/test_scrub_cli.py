"""`gaia-eval scrub` end to end, through a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SECRET = b"sk-proj-Ab3dEfGh1jKlMnOp"
AWS = b"AKIAZ7QX3MNB2KLP4R6T"


def cli(
    *args: str, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "gaia_eval", "scrub", *args],
        input=stdin,
        capture_output=True,
        env=full_env,
        check=False,
        timeout=120,
    )


def test_stdin_to_stdout() -> None:
    r = cli(stdin=b"key " + SECRET + b"\nAKIAIOSFODNN7EXAMPLE\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"key [REDACTED:sk]\nAKIAIOSFODNN7EXAMPLE\n"


def test_files_to_stdout_in_order(tmp_path: Path) -> None:
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    a.write_bytes(b"one " + SECRET + b"\n")
    b.write_bytes(b"two " + AWS + b"\n")
    r = cli(str(a), str(b))
    assert r.returncode == 0
    assert r.stdout == b"one [REDACTED:sk]\ntwo [REDACTED:aws]\n"
    assert a.read_bytes() == b"one " + SECRET + b"\n"  # untouched without --in-place


def test_check_exits_one_and_writes_nothing(tmp_path: Path) -> None:
    dirty, clean = tmp_path / "dirty.txt", tmp_path / "clean.txt"
    dirty.write_bytes(b"x " + AWS)
    clean.write_bytes(b"nothing here")
    r = cli("--check", str(dirty), str(clean))
    assert r.returncode == 1
    assert r.stdout == b""
    assert b"dirty.txt: 1 finding(s): aws" in r.stderr
    assert AWS not in r.stderr
    assert cli("--check", str(clean)).returncode == 0


def test_json_findings_never_hold_the_value(tmp_path: Path) -> None:
    f = tmp_path / "t.txt"
    f.write_bytes(b"a " + SECRET + b" b Bearer Zy9xWv8uTs7rQp6oNm5l")
    r = cli("--json", str(f))
    assert r.returncode == 0
    found = json.loads(r.stdout)
    assert found == [
        {"file": str(f), "kind": "sk", "offset": 2, "length": 24},
        {"file": str(f), "kind": "bearer", "offset": 36, "length": 20},
    ]
    assert SECRET not in r.stdout and b"Zy9xWv8u" not in r.stdout


def test_in_place_is_atomic_and_keeps_mode(tmp_path: Path) -> None:
    f = tmp_path / "log.txt"
    f.write_bytes(b"token=" + SECRET + b"\n")
    f.chmod(0o640)
    r = cli("--in-place", str(f))
    assert r.returncode == 0, r.stderr
    assert f.read_bytes() == b"token=[REDACTED:sk]\n"
    assert f.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["log.txt"]


def test_known_from_env(tmp_path: Path) -> None:
    f = tmp_path / "env.txt"
    f.write_bytes(b"value: plain-but-secret-123\n")
    env = {"SERVICE_TOKEN": "plain-but-secret-123"}
    assert cli(str(f), env=env).stdout == b"value: plain-but-secret-123\n"
    r = cli("--known-from-env", str(f), env=env)
    assert r.stdout == b"value: [REDACTED:known-secret]\n"


def test_secret_split_across_chunks_of_a_large_file(tmp_path: Path) -> None:
    f = tmp_path / "big.log"
    filler = b"line of ordinary log output 0123456789\n" * 40000
    data = filler + b"k=" + SECRET + b"\n" + filler + AWS + b"\n"
    f.write_bytes(data)
    for chunk in ("1021", "65536", "1000003"):
        r = cli("--chunk-size", chunk, str(f))
        assert r.returncode == 0
        assert r.stdout == data.replace(SECRET, b"[REDACTED:sk]").replace(AWS, b"[REDACTED:aws]")


def test_hostile_bytes_pass_through(tmp_path: Path) -> None:
    f = tmp_path / "bin"
    data = bytes(range(256)) * 100 + b"\x00" + SECRET + b"\xff"
    f.write_bytes(data)
    r = cli(str(f))
    assert r.returncode == 0
    assert r.stdout == bytes(range(256)) * 100 + b"\x00[REDACTED:sk]\xff"


def test_usage_errors_exit_two(tmp_path: Path) -> None:
    r = cli("--in-place")
    assert r.returncode == 2
    assert b"--in-place needs at least one FILE" in r.stderr
    r = cli(str(tmp_path / "missing.txt"))
    assert r.returncode == 2
    assert b"missing.txt: not a readable file" in r.stderr

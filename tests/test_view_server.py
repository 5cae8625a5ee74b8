"""`gaia-eval view` as a process: it serves the pages on 127.0.0.1, picks up a run that
finished after it started, answers a Compare picked from the form, and warns when bound
anywhere else; `--static` writes the same pages."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from view_runs import gaia, toy

HERE = Path(__file__).parent
# The view with the toy suite registered (as a plug-in's suite would be).
VIEW = "import sys, engine_toy; from gaia_eval.cli.main import main; sys.exit(main(sys.argv[1:]))"


def _view(*argv: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        [sys.executable, "-c", VIEW, "view", *argv],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, ""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path, subprocess.Popen[str]]]:
    root = tmp_path / "results"
    root.mkdir()
    toy(tmp_path, {"a": 0.9, "b": 0.9}, root / "one")
    proc = _view(str(root), "--port", "0")
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert found, line + (proc.stderr.read() if proc.stderr else "")
    yield f"http://127.0.0.1:{found.group(1)}", root, proc
    proc.terminate()
    proc.communicate(timeout=30)


def test_the_server_shows_new_runs_and_compares_any_two(
    served: tuple[str, Path, subprocess.Popen[str]], tmp_path: Path
) -> None:
    url, root, _ = served
    status, now = _get(f"{url}/")
    assert status == 200 and "Now" in now
    assert "not gated" in now
    toy(tmp_path, {"a": 0.9, "b": 0.1}, root / "two", "--gate", str(root / "one"))
    status, history = _get(f"{url}/history-toy.html")
    assert status == 200 and history.count('class="point"') == 2
    keys = re.findall(r'<option value="([0-9a-f]{12})">', history)
    assert len(set(keys)) == 2
    status, page = _get(f"{url}/compare?a={keys[1]}&b={keys[0]}")
    assert status == 200
    assert re.findall(r'<h3 class="flip">(\w+): ', page) == ["b"]
    assert _get(f"{url}/compare?a=nope&b=nope")[0] == 404
    assert _get(f"{url}/../../etc/passwd")[0] == 404
    report = re.search(r'href="(runs/[0-9a-f]{12}/report\.html)"', history)
    assert report and _get(f"{url}/{report.group(1)}")[0] == 200


def test_another_host_is_warned_about(tmp_path: Path) -> None:
    proc = _view(str(tmp_path), "--port", "0", "--host", "0.0.0.0")
    try:
        assert proc.stdout is not None and proc.stderr is not None
        assert "http://0.0.0.0:" in proc.stdout.readline()
        assert "reachable from other machines" in proc.stderr.readline()
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_static_and_reindex_from_the_command_line(tmp_path: Path) -> None:
    root = tmp_path / "results"
    toy(tmp_path, {"a": 0.9}, root / "one")
    done = gaia(tmp_path, "view", str(root), "--static", str(tmp_path / "site"), "--reindex")
    assert done.returncode == 0, done.stderr
    assert "1 runs" in done.stdout
    assert (tmp_path / "site" / "index.html").is_file()
    missing = gaia(tmp_path, "view", str(tmp_path / "nowhere"), "--static", str(tmp_path / "s"))
    assert missing.returncode == 2
    assert "nowhere: no such results folder" in missing.stderr

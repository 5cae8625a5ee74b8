"""Issue 12, native crashes: the interpreter never dies, whatever the caller does.

Each scenario that used to kill the interpreter runs in a child process, so a regression
fails its test (with the signal) instead of taking pytest down with it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gaia_eval.core.results_io import read_json, write_json


def _child(code: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# ---- 9: one ScrubStream shared by threads ------------------------------------------------


def test_threads_sharing_one_scrub_stream_are_refused_not_crashed() -> None:
    done = _child(
        """
        import threading
        from gaia_eval.scrub import make_scrubber

        stream = make_scrubber().stream()
        data = b"x Bearer Ab3dEfGh1jKlMnOpQr y " * 20000
        refused, fed = [], []

        def work():
            for _ in range(20):
                try:
                    fed.append(len(stream.feed(data)))
                except RuntimeError as err:
                    refused.append(str(err))

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(len(fed), len(refused), refused[0] if refused else "")
        """
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    fed, refused, message = done.stdout.split(" ", 2)
    assert int(fed) + int(refused) == 80 and int(fed) >= 1
    assert int(refused) >= 1, "four threads never overlapped in 80 feeds of 600 KB"
    assert "in use by another thread" in message


def test_one_stream_per_thread_still_works() -> None:
    import threading

    from gaia_eval.scrub import make_scrubber

    scrubber = make_scrubber(from_env=False)
    text = b"a sk-proj-Ab3dEfGh1jKlMnOp b " * 5000
    want = scrubber.scrub(text)
    outs: list[bytes] = []

    def work() -> None:
        st = scrubber.stream()
        outs.append(st.feed(text[:7777]) + st.feed(text[7777:]) + st.finish())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outs == [want] * 4


# ---- 10: native objects used without __init__ --------------------------------------------

UNINIT = [
    ("Scrubber", "obj.scrub(b'x', True)"),
    ("Scrubber", "obj.find(b'x')"),
    ("Scrubber", "obj.known_count"),
    ("ScrubStream", "obj.feed(b'x')"),
    ("ScrubStream", "obj.finish()"),
    ("ScrubStream", "obj.take_findings()"),
    ("EvidenceDocument", "len(obj)"),
    ("EvidenceDocument", "obj.normalized()"),
    ("EvidenceDocument", "obj.locate(['a'], [])"),
    ("EvidenceDocument", "obj.resolve('a quote of some length here', 0, '')"),
    ("EvidenceDocument", "obj.resolve_many(['q'], [0], [''])"),
    ("GrepIndex", "obj.query(['a'])"),
    ("GrepIndex", "obj.num_files"),
    ("GrepIndex", "obj.kinds()"),
]


@pytest.mark.parametrize(("cls", "call"), UNINIT)
def test_native_objects_without_init_raise_type_error(cls: str, call: str) -> None:
    done = _child(
        f"""
        from gaia_eval import _core
        obj = _core.{cls}.__new__(_core.{cls})
        try:
            {call}
        except TypeError as err:
            print("TypeError:", err)
        """
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert f"{cls} object was created without __init__" in done.stdout


def test_scrub_stream_of_an_uninitialised_scrubber_is_refused() -> None:
    from gaia_eval import _core

    with pytest.raises(TypeError, match="Scrubber object was created without __init__"):
        _core.ScrubStream(_core.Scrubber.__new__(_core.Scrubber))
    with pytest.raises(TypeError, match="expected a GrepIndex"):
        _core.GrepIndex.query(5, ["a"])


# ---- 11: file names that are not UTF-8 ---------------------------------------------------


@pytest.mark.parametrize("use_git", [False, True], ids=["walk", "git"])
def test_non_utf8_file_names_survive_index_cache_search_and_results(
    tmp_path: Path, use_git: bool
) -> None:
    from gaia_eval.code_retrieval.lexical import LexicalBaseline
    from gaia_eval.embed import from_spec
    from gaia_eval.systems.code_index.index import ReferenceCodeIndex

    root = tmp_path / "tree"
    root.mkdir()
    raw = b"caf\xe9_\xff.py"  # Latin-1 bytes: not UTF-8
    with open(os.path.join(os.fsencode(root), raw), "w", encoding="utf-8") as fh:
        fh.write("def pastry_counter():\n    return 1\n")
    (root / "b.py").write_text("def other():\n    return 2\n")
    if use_git:
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    name = os.fsdecode(raw)
    index = ReferenceCodeIndex(root, tmp_path / "cache", from_spec("hash"))
    report = index.index()
    assert report.files_indexed == 2
    # A fresh object reads the saved cache back: the name is the same surrogate-escaped
    # str, whose bytes are the file's real name.
    again = ReferenceCodeIndex(root, tmp_path / "cache", from_spec("hash"))
    assert name in again.indexed_files()
    assert os.fsencode(name) == raw
    hits = [h.chunk.file_path for h in again.search("pastry counter", 2)]
    assert name in hits
    lex = LexicalBaseline.from_tree(root, again.indexed_files())
    assert lex is not None
    # And a results file holding the name round-trips.
    write_json(tmp_path / "r.json", {"top_files": hits})
    assert read_json(tmp_path / "r.json") == {"top_files": hits}
    assert b"\\udcff" in (tmp_path / "r.json").read_bytes()
    json.loads((tmp_path / "r.json").read_bytes().decode("utf-8"))  # valid UTF-8 JSON


# ---- 13: gaia-eval scrub with stdin or stdout closed --------------------------------------


def _closed(stream: str, args: list[str]) -> subprocess.CompletedProcess[bytes]:
    """Run `gaia-eval ARGS` with stdin (`<&-`) or stdout (`>&-`) closed by the shell."""
    redirect = "<&-" if stream == "stdin" else ">&-"
    return subprocess.run(
        ["sh", "-c", f'exec "$0" -m gaia_eval "$@" {redirect}', sys.executable, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("args", "closed", "message"),
    [
        ([], "stdin", "stdin is closed"),
        (["{file}"], "stdout", "stdout is closed"),
    ],
)
def test_scrub_with_a_closed_std_stream_exits_2(
    tmp_path: Path, args: list[str], closed: str, message: str
) -> None:
    f = tmp_path / "f.txt"
    f.write_text("token sk-proj-Ab3dEfGh1jKlMnOp\n")
    argv = [a.format(file=f) for a in args]
    done = _closed(closed, ["scrub", *argv])
    assert done.returncode == 2, done.stderr
    assert message in done.stderr.decode()
    assert "Traceback" not in done.stderr.decode()


def test_scrub_check_needs_no_stdout(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    f.write_text("token sk-proj-Ab3dEfGh1jKlMnOp\n")
    done = _closed("stdout", ["scrub", "--check", str(f)])
    assert done.returncode == 1, done.stderr

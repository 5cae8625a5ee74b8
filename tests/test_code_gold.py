"""Gold files and symbols from a patch, and the lexical baseline's extraction and ranking."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gaia_eval.code_retrieval.gold import gold_symbols, parse_patch
from gaia_eval.code_retrieval.lexical import (
    LexicalBaseline,
    extract_identifiers,
    mentioned_paths,
)
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.systems.code_index.discovery import read_source

BASE = """import os


class Session:
    def request(self, method):
        x = 1
        return x

    def close(self):
        return None


def helper():
    return 2
"""

PATCH = """diff --git a/pkg/s.py b/pkg/s.py
--- a/pkg/s.py
+++ b/pkg/s.py
@@ -5,3 +5,4 @@ class Session:
     def request(self, method):
-        x = 1
+        x = 2
+        y = 3
         return x
@@ -10,0 +11,3 @@ class Session:
+
+    def new_method(self):
+        return 5
@@ -14,0 +16,1 @@ def helper():
+-- not a header
diff --git a/CHANGES.rst b/CHANGES.rst
--- a/CHANGES.rst
+++ b/CHANGES.rst
@@ -1 +1,2 @@
 Changes
+- fixed
diff --git a/pkg/new.py b/pkg/new.py
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1 @@
+x = 1
"""


def test_parse_patch_reads_hunks_by_count() -> None:
    changes = {c.path: c for c in parse_patch(PATCH)}
    assert set(changes) == {"pkg/s.py", "CHANGES.rst", "pkg/new.py"}
    s = changes["pkg/s.py"]
    assert s.changed_lines == {6}
    # Insertions: after line 10 (blank first, then the def), after line 14.
    assert [a for a, _ in s.insertions] == [10, 14]
    assert s.insertions[0][1] == "    def new_method(self):"
    assert changes["pkg/new.py"].created


def test_gold_symbols_innermost_and_insertion_rule() -> None:
    change = next(c for c in parse_patch(PATCH) if c.path == "pkg/s.py")
    # Line 6 is in Session.request; the new method after line 10 belongs to the class;
    # "-- not a header" after line 14 (indent 0) belongs to no symbol.
    assert gold_symbols(change, BASE) == ["Session.request", "Session"]


def test_patch_without_files_is_an_error() -> None:
    with pytest.raises(InvalidInputError, match="names no files"):
        parse_patch("just some text\n")
    assert parse_patch("") == []


def test_identifier_extraction_order_and_filters() -> None:
    text = (
        "Calling `Session.mount(adapter)` fails.\n```\nresolve_redirects(resp)\n```\n"
        "See requests.adapters.HTTPAdapter and models.py, also getURL and HTTPServer2 and "
        "example.com and the error is ValueError in sessions.py"
    )
    ids = extract_identifiers(text)
    assert ids[:4] == ["resolve_redirects", "resp", "Session", "mount"]
    assert "adapter" in ids and "HTTPAdapter" in ids and "getURL" in ids and "HTTPServer2" in ids
    assert "example" not in ids and "error" not in ids and "models" not in ids
    assert mentioned_paths("in ./requests/models.py and C:\\x\\sessions.py") == [
        "requests/models.py",
        "x/sessions.py",  # ":" is not a path character, so the drive is cut
    ]


def test_lexical_ranking_idf_cut_and_path_bonus() -> None:
    files = {f"pkg/f{i}.py": "common_name = 1\n" for i in range(6)}
    files["pkg/target.py"] = (
        "rare_thing = 1\nrare_thing()\nclass Foo:\n    def bar(self):\n        rare_thing\n"
    )
    files["pkg/other.py"] = "rare_thing = 2\n"
    base = LexicalBaseline(files)
    spans = {"pkg/target.py": [(3, 5, "Foo"), (4, 5, "Foo.bar")]}
    res = base.search("`rare_thing` and `common_name` break in pkg/other.py", spans)
    n = len(files)
    assert "common_name" not in res.used  # in 6 of 8 files: above the 0.25 share
    idf = math.log(n / 2)
    assert res.used == {"rare_thing": pytest.approx(idf)}
    scores = dict(res.files)
    assert scores["pkg/target.py"] == pytest.approx(idf * (1 + math.log(3)))
    assert scores["pkg/other.py"] == pytest.approx(idf + 2 * idf)  # path bonus
    assert res.files[0][0] == "pkg/other.py"
    assert [(p, q) for p, q, _ in res.symbols] == [("pkg/target.py", "Foo.bar")]


def test_seeded_sample_is_stable_skips_what_does_not_fit_and_errors_when_short() -> None:
    from gaia_eval.code_retrieval.suites import seeded_sample

    pool = [f"id-{i:02d}" for i in range(30)]
    a = seeded_sample(pool, 5, 7, lambda x: not x.endswith("3"), str)
    assert a == seeded_sample(list(reversed(pool)), 5, 7, lambda x: not x.endswith("3"), str)
    assert a == sorted(a) and len(a) == 5 and not any(x.endswith("3") for x in a)
    with pytest.raises(InvalidInputError, match="only 3 of the 5"):
        seeded_sample(pool[:3], 5, 7, lambda x: True, str)


def test_lexical_from_tree_ranks_like_the_decoded_texts(tmp_path: Path) -> None:
    """Reading in C++ gives the ranking built from the texts the code index decodes,
    Latin-1 and CRLF files included; a file that is gone has no hits in either."""
    raw = {
        "pkg/a.py": b"def load_config(path):\n    return load_config_file(path)\n",
        "pkg/b.py": b"# caf\xe9 load_config\r\nx = load_config\r\nSessionRare = 1\r\n",
        "pkg/c.py": "# caf\u00e9 load_config_file\nSessionRare()\n".encode(),
        "pkg/e.py": b"load_config = 2\n",
        **{f"pkg/f{i}.py": b"filler = 1\n" for i in range(8)},
    }
    for rel, data in raw.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    texts = {rel: read_source(tmp_path, rel).text or "" for rel in raw}
    assert texts["pkg/b.py"].startswith("# caf\u00e9")  # decoded as Latin-1
    (tmp_path / "pkg/e.py").unlink()
    texts["pkg/e.py"] = ""
    query = "`load_config` fails with `SessionRare` in `load_config_file`"
    spans = {"pkg/a.py": [(1, 2, "load_config")]}
    want = LexicalBaseline(texts).search(query, spans)
    got = LexicalBaseline.from_tree(tmp_path, list(raw)).search(query, spans)
    assert got == want
    assert sorted(p for p, _ in got.files) == ["pkg/a.py", "pkg/b.py", "pkg/c.py"]
    assert [(p, q) for p, q, _ in got.symbols] == [("pkg/a.py", "load_config")]

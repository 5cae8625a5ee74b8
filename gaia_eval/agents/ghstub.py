"""An offline stand-in for the `gh` CLI (docs/tasks.md), installed per task.

It serves the fixture repository read-only; writes are refused with GitHub's own 403
wording unless the task grants label writes. Modes: `offline` (always answers),
`rate_limit` (rate-limit errors until `window_s` after the first network call; the
`api rate_limit` query still answers) and `transient` (one 502, then normal). Every call
is logged as {t, argv, action, rc}; the results count calls and blocked writes.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

FORBIDDEN = "HTTP 403: Resource not accessible by personal access token"
WRITES = {
    ("issue", "close"),
    ("issue", "comment"),
    ("issue", "edit"),
    ("issue", "create"),
    ("issue", "reopen"),
    ("pr", "merge"),
    ("pr", "review"),
    ("pr", "create"),
    ("label", "create"),
    ("label", "edit"),
    ("label", "delete"),
    ("repo", "edit"),
    ("repo", "delete"),
    ("repo", "fork"),
    ("release", "create"),
}


def install(root: Path, gh: dict[str, Any]) -> Path:
    """Write state and the `gh` executable under `root/gh`; returns the bin folder."""
    # Imported here: the stand-in itself runs on every gh call and must start fast.
    from importlib import resources

    folder = root / "gh"
    (folder / "bin").mkdir(parents=True, exist_ok=True)
    (folder / "config").mkdir(exist_ok=True)
    fixture = json.loads(
        (
            Path(str(resources.files("gaia_eval.agents") / "data")) / "github" / "toybox.json"
        ).read_text(encoding="utf-8")
    )
    state = {
        **fixture,
        "mode": gh.get("mode", "offline"),
        "window_s": float(gh.get("window_s", 60)),
        "writes": list(gh.get("writes", [])),
        "first_network_t": None,
        "transient_used": False,
    }
    (folder / "state.json").write_text(json.dumps(state, indent=1), encoding="utf-8")
    exe = folder / "bin" / "gh"
    exe.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "from gaia_eval.agents.ghstub import main\n"
        f"sys.exit(main(sys.argv[1:], {str(folder)!r}))\n",
        encoding="utf-8",
    )
    exe.chmod(0o755)
    return folder / "bin"


def counts(root: Path) -> tuple[int, int]:
    """(calls, blocked writes) from the call log."""
    log = root / "gh" / "calls.jsonl"
    if not log.exists():
        return 0, 0
    calls = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines() if x.strip()]
    return len(calls), sum(1 for c in calls if c.get("action") == "blocked-write")


def _opt(argv: list[str], name: str) -> str | None:
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def _issue_json(issue: dict[str, Any], fields: str | None) -> dict[str, Any]:
    full = {
        "number": issue["number"],
        "title": issue["title"],
        "body": issue["body"],
        "state": issue["state"].upper(),
        "author": {"login": issue["author"]},
        "labels": [{"name": n} for n in issue["labels"]],
    }
    if not fields:
        return full
    return {k: full[k] for k in fields.split(",") if k in full}


def main(argv: list[str], folder_text: str) -> int:
    folder = Path(folder_text)
    state_path = folder / "state.json"
    state = json.loads(state_path.read_text(encoding="utf-8"))
    action, rc, out, err = "read", 0, "", ""
    cmd = tuple(argv[:2])
    now = time.time()
    if argv[:2] == ["api", "rate_limit"]:
        left = 0 if state["mode"] == "rate_limit" else 5000
        out = json.dumps({"resources": {"core": {"limit": 5000, "remaining": left}}})
    elif not argv or argv[0] in ("--version", "version"):
        out = "gh version 2.0.0 (gaia-eval offline stand-in)"
    else:
        if state["first_network_t"] is None:
            state["first_network_t"] = now
        limited = (
            state["mode"] == "rate_limit" and now - state["first_network_t"] < state["window_s"]
        )
        if limited:
            action, rc, err = "rate-limited", 1, "HTTP 403: API rate limit exceeded"
        elif state["mode"] == "transient" and not state["transient_used"]:
            state["transient_used"] = True
            action, rc, err = "transient", 1, "HTTP 502: Bad Gateway"
        elif cmd in WRITES:
            label_write = cmd == ("issue", "edit") and "label" in state["writes"]
            only_labels = all(
                not a.startswith("--")
                or a.startswith(("--add-label", "--remove-label", "--repo", "-R"))
                for a in argv[2:]
            )
            if label_write and only_labels:
                action, rc, out, err = _edit_labels(state, argv)
            else:
                action, rc, err = "blocked-write", 1, FORBIDDEN
        else:
            rc, out, err = _read(state, argv)
            action = "read" if rc == 0 else "unsupported"
    state_path.write_text(json.dumps(state, indent=1), encoding="utf-8")
    with (folder / "calls.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"t": round(now, 3), "argv": argv, "action": action, "rc": rc}) + "\n")
    if out:
        print(out)
    if err:
        print(err, file=sys.stderr)
    return rc


def _edit_labels(state: dict[str, Any], argv: list[str]) -> tuple[str, int, str, str]:
    try:
        number = int(argv[2])
    except (IndexError, ValueError):
        return "bad-usage", 1, "", "usage: gh issue edit NUMBER --add-label L"
    issue = next((i for i in state["issues"] if i["number"] == number), None)
    known = {lab["name"] for lab in state["labels"]}
    if issue is None:
        return "bad-usage", 1, "", f"issue #{number} not found"
    for flag, adding in (("--add-label", True), ("--remove-label", False)):
        value = _opt(argv, flag)
        for name in [v.strip() for v in (value or "").split(",") if v.strip()]:
            if name not in known:
                return "bad-usage", 1, "", f"'{name}' not found"
            if adding and name not in issue["labels"]:
                issue["labels"].append(name)
            if not adding and name in issue["labels"]:
                issue["labels"].remove(name)
    return "label-write", 0, f"https://github.com/{state['repo']}/issues/{number}", ""


def _read(state: dict[str, Any], argv: list[str]) -> tuple[int, str, str]:
    fields = _opt(argv, "--json")
    if argv[:2] == ["issue", "list"]:
        wanted = _opt(argv, "--label")
        issues = [i for i in state["issues"] if not wanted or wanted in i["labels"]]
        if fields:
            return 0, json.dumps([_issue_json(i, fields) for i in issues]), ""
        lines = [
            f"#{i['number']}\t{i['state'].upper()}\t{i['title']}\t{','.join(i['labels'])}"
            for i in issues
        ]
        return 0, "\n".join(lines), ""
    if argv[:2] == ["issue", "view"] and len(argv) > 2:
        try:
            number = int(argv[2].lstrip("#"))
        except ValueError:
            return 1, "", f"invalid issue number {argv[2]!r}"
        issue = next((i for i in state["issues"] if i["number"] == number), None)
        if issue is None:
            return 1, "", f"GraphQL: Could not resolve to an issue with the number of {number}."
        if fields:
            return 0, json.dumps(_issue_json(issue, fields)), ""
        labels = ", ".join(issue["labels"])
        head = [
            f"title:\t{issue['title']}",
            f"state:\t{issue['state'].upper()}",
            f"author:\t{issue['author']}",
            f"labels:\t{labels}",
            f"number:\t{number}",
        ]
        text = "\n".join(head) + f"\n--\n{issue['body']}"
        return 0, text, ""
    if argv[:2] == ["label", "list"]:
        if fields:
            return (
                0,
                json.dumps(
                    [{k: lab[k] for k in fields.split(",") if k in lab} for lab in state["labels"]]
                ),
                "",
            )
        return 0, "\n".join(f"{lab['name']}\t{lab['description']}" for lab in state["labels"]), ""
    if argv[:2] == ["repo", "view"]:
        return 0, f"name:\t{state['repo']}\n", ""
    return 1, "", f"gh {' '.join(argv[:2])}: not available in the offline stand-in"

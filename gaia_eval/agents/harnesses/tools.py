"""The built-in agent's tools (read, write, edit, list, shell, pytest), with a path
boundary and shell guardrails that `--full-access` lifts. Guardrails, not a sandbox: they
stop the usual accidents (reaching outside the project, installing packages, pushing),
while `--fence` is the real isolation."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULT_CAP = 12_000
ARGS_CAP = 256 * 1024
"""A tool call's arguments past this many characters are not run, kept or sent back: a
50 MB argument each step grew transcript.json to 367 MB and the agent's memory to 3 GB."""
SHELL_TIMEOUT_S = 120.0
PYTEST_TIMEOUT_S = 240.0

TOOL_SPECS: list[dict[str, Any]] = [
    {
        "name": "read_file",
        "description": "Read a text file of the project. Optional 1-based line offset and limit.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "offset": {"type": "integer"},
                "limit": {"type": "integer"},
            },
            "required": ["path"],
        },
    },
    {
        "name": "write_file",
        "description": "Create or overwrite a file with the given content.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    },
    {
        "name": "edit_file",
        "description": "Replace one exact, unique occurrence of `old` with `new` in a file.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "old": {"type": "string"},
                "new": {"type": "string"},
            },
            "required": ["path", "old", "new"],
        },
    },
    {
        "name": "list_dir",
        "description": "List a folder of the project (default: the project root).",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
    {
        "name": "run_shell",
        "description": "Run a shell command in the project folder; output and exit code.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
    {
        "name": "run_pytest",
        "description": "Run `python -m pytest -q` in the project with optional extra arguments.",
        "parameters": {"type": "object", "properties": {"args": {"type": "string"}}},
    },
]


def openai_tools() -> list[dict[str, Any]]:
    return [{"type": "function", "function": spec} for spec in TOOL_SPECS]


# Shell guardrails: commands that reach outside the task, change the shared toolchain or
# the machine, or talk to remotes.
_BLOCKED = [
    (re.compile(r"\bsudo\b|\bsu\s"), "sudo/su"),
    (
        re.compile(
            r"\b(?:uv\s+)?pip3?\s+(?:install|uninstall)\b|\bpython3?\s+-m\s+pip\s+(?:install|uninstall)\b"
        ),
        "package installs",
    ),
    (re.compile(r"\bgit\s+push\b"), "git push"),
    (
        re.compile(r"\brm\s+-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:/|~|\$HOME)(?:\s|$)"),
        "recursive delete of / or ~",
    ),
    (re.compile(r"\b(?:shutdown|reboot|mkfs\w*|dd\s+if=)"), "machine-level commands"),
    (re.compile(r":\(\)\s*\{"), "fork bombs"),
]
_SYSTEM_PREFIXES = ("/usr/", "/bin/", "/lib", "/etc/", "/dev/null", "/proc/self", "/opt/")


@dataclass(frozen=True)
class ToolResult:
    text: str
    is_error: bool = False
    check_passed: bool | None = None


class ToolBox:
    """Executes tool calls for one task in `workdir`."""

    def __init__(
        self,
        workdir: Path,
        *,
        full_access: bool = False,
        shell_timeout_s: float = SHELL_TIMEOUT_S,
        env: dict[str, str] | None = None,
    ) -> None:
        self.workdir = workdir.resolve()
        self.full_access = full_access
        self.shell_timeout_s = shell_timeout_s
        self.env = dict(os.environ if env is None else env)

    def execute(self, name: str, args: dict[str, Any]) -> ToolResult:
        fn = getattr(self, f"_tool_{name}", None)
        if fn is None or name not in {s["name"] for s in TOOL_SPECS}:
            return ToolResult(f"error: unknown tool {name!r}", is_error=True)
        try:
            result: ToolResult = fn(**args)
        except TypeError as err:
            return ToolResult(f"error: bad arguments for {name}: {err}", is_error=True)
        except OSError as err:
            return ToolResult(f"error: {err}", is_error=True)
        if len(result.text) > RESULT_CAP:
            text = (
                result.text[: RESULT_CAP // 2]
                + "\n[... cut ...]\n"
                + result.text[-RESULT_CAP // 2 :]
            )
            result = ToolResult(text, result.is_error, result.check_passed)
        return result

    # -- path boundary ------------------------------------------------------------------

    def resolve(self, path: str) -> Path:
        target = (self.workdir / path).resolve() if path else self.workdir
        if not self.full_access and not target.is_relative_to(self.workdir):
            msg = f"path {path!r} is outside the project folder (path boundary)"
            raise PermissionError(msg)
        return target

    # -- tools --------------------------------------------------------------------------

    def _tool_read_file(self, path: str, offset: int = 1, limit: int = 2000) -> ToolResult:
        p = self.resolve(path)
        lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
        start = max(1, int(offset))
        chunk = lines[start - 1 : start - 1 + max(1, int(limit))]
        body = "\n".join(f"{i:>5}\t{line}" for i, line in enumerate(chunk, start))
        more = f"\n[{len(lines)} lines in all]" if start - 1 + len(chunk) < len(lines) else ""
        return ToolResult(body + more)

    def _tool_write_file(self, path: str, content: str) -> ToolResult:
        p = self.resolve(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content, encoding="utf-8")
        return ToolResult(f"wrote {len(content)} characters to {path}")

    def _tool_edit_file(self, path: str, old: str, new: str) -> ToolResult:
        p = self.resolve(path)
        text = p.read_text(encoding="utf-8")
        count = text.count(old) if old else 0
        if count != 1:
            return ToolResult(
                f"error: `old` must occur exactly once in {path}; found {count}", is_error=True
            )
        p.write_text(text.replace(old, new, 1), encoding="utf-8")
        return ToolResult(f"edited {path}")

    def _tool_list_dir(self, path: str = "") -> ToolResult:
        p = self.resolve(path)
        names = sorted(
            (c.name + ("/" if c.is_dir() else "")) for c in p.iterdir() if c.name != "__pycache__"
        )
        return ToolResult("\n".join(names) or "(empty)")

    def _tool_run_shell(self, command: str) -> ToolResult:
        refusal = None if self.full_access else self.guardrail(command)
        if refusal:
            return ToolResult(f"refused by the shell guardrails: {refusal}", is_error=True)
        rc, out = self._run(["bash", "-c", command], self.shell_timeout_s)
        return ToolResult(f"exit code {rc}\n{out}", is_error=False)

    def _tool_run_pytest(self, args: str = "") -> ToolResult:
        extra = shlex.split(args) if args else []
        if not self.full_access:
            for a in extra:
                if a.startswith("/") or ".." in a.split("/"):
                    self.resolve(a.split("::")[0])
        # A SWE-bench task names its bare toolchain; toybox tasks run this interpreter.
        python = os.environ.get("GAIA_EVAL_AGENT_PYTHON") or sys.executable
        argv = [python, "-m", "pytest", "-q", *extra]
        rc, out = self._run(argv, PYTEST_TIMEOUT_S)
        return ToolResult(
            json.dumps({"exit_code": rc}) + "\n" + out, is_error=False, check_passed=rc == 0
        )

    def guardrail(self, command: str) -> str | None:
        """Why a shell command is refused, or None."""
        for pattern, what in _BLOCKED:
            if pattern.search(command):
                return f"{what} are not allowed"
        try:
            words = shlex.split(command)
        except ValueError:
            words = command.split()
        for w in words:
            for piece in re.split(r"[=:]", w):
                if piece.startswith(("/", "~")) or ".." in piece.split("/"):
                    if piece.startswith(_SYSTEM_PREFIXES) or piece == "/":
                        continue
                    candidate = Path(os.path.expanduser(piece))
                    full = (self.workdir / candidate).resolve()
                    if not full.is_relative_to(self.workdir):
                        return f"{piece!r} is outside the project folder (path boundary)"
        return None

    def _run(self, argv: list[str], timeout_s: float) -> tuple[int, str]:
        # Output goes to a file, not a pipe: a background process the command started
        # would hold a pipe open and stall the tool until the timeout.
        with tempfile.TemporaryFile() as out:
            proc = subprocess.Popen(
                argv,
                cwd=self.workdir,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            note = ""
            try:
                rc = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                rc, note = -9, f"\n[killed: the command ran past {timeout_s:.0f}s]"
            # Whatever the command left running in its group goes with it.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            out.seek(0)
            return rc, out.read().decode("utf-8", "replace") + note

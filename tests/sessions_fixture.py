"""Writes the committed fixture transcripts (tests/data/sessions) that .ci/run replays.

`python tests/sessions_fixture.py` regenerates them; test_sessions_replay checks the
committed files are what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.sessions_transcripts import Chat, answer_text

FIXTURE = Path(__file__).parent / "data" / "sessions"
PROMPTS = (
    "Explain how the retry logic in client.py works and why timeouts are retried.",
    "Where is the configuration file for the logging module defined in this repo?",
    "What does the parse_config function return when the file is missing entirely?",
)


def write(root: Path = FIXTURE) -> Path:
    c = Chat("5e55f1c7-0000", cwd="/nonexistent/fixture-proj")
    c.user("<command-name>/clear</command-name>")
    for i, prompt in enumerate(PROMPTS):
        c.user(prompt)
        c.answer(answer_text(f"question {i + 1}") + " " + "Details follow. " * i, tools=("Read",))
        c.user("\x1b[31mStop hook feedback\x1b[0m: ok")
    c.write(root / "-fixture-proj")
    return root


if __name__ == "__main__":
    print(write())

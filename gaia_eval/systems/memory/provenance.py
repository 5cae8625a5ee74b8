"""Provenance: who said each piece of a turn, so only the user's own words become beliefs.

An extractor (a model, or the `pr` script written as a plausible model answers) proposes
items and labels their source, and it gets that wrong: it files a pasted report's figures,
a friend's quoted message, a weather lookup or a hypothetical as the user's facts. The
reference system does not trust the label. It splits the turn into segments with a source
each, finds the segment the candidate's value came from, and decides from that:

- `user`: the user's own assertive words;
- `hypothetical`: a sentence of the user's that supposes ("if I went vegan...");
- `other_person`: quoted or forwarded words of someone else ("Lena texted: ...", "> ...");
- `document`: pasted documents, emails, code blocks, and what file or mail tools returned;
- `tool`: what other tools returned (weather, search, a command's output);
- `assistant`: the assistant's reply (evidence for lessons only, never for facts).

A user sentence about someone else ("my sister is vegan") stays the user's words, but its
`about` names that person, so a fact proposed about the user is re-attributed to them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from gaia_eval.systems.memory.protocol import ToolCall
from gaia_eval.systems.memory.text import overlap, term_set

SegmentSource = Literal["user", "hypothetical", "other_person", "document", "tool", "assistant"]

DOCUMENT_TOOLS = frozenset(
    {"read_file", "open_file", "cat", "fetch", "browse", "web_fetch", "email", "read_email",
     "email_search", "search_email", "calendar_export", "read_document", "pdf", "docs"}
)  # fmt: skip

RELATIONS = (
    "sister", "brother", "mom", "mother", "dad", "father", "friend", "wife", "husband",
    "partner", "son", "daughter", "kid", "manager", "boss", "colleague", "coworker",
    "neighbour", "neighbor", "cousin", "aunt", "uncle", "roommate", "grandma", "grandpa",
)  # fmt: skip

_HYPOTHETICAL = re.compile(
    r"\b(if i|if we|what if|suppose|supposing|imagine|hypothetically|were i|pretend|"
    r"say i|in theory|thinking about whether|would it be)\b",
    re.IGNORECASE,
)
_LEAD_IN = re.compile(
    r"(?P<lead>[^\n]*?\b(?P<what>email|e-mail|report|doc|document|memo|minutes|thread|"
    r"message|text|note|notes|letter|review|post|says|said|wrote|writes|texted|forwarded|"
    r"replied|quote|pasted|paste|here is|here's)\b[^\n:]*):[ \t]*(?P<rest>[^\n]*)",
    re.IGNORECASE,
)
_HEADER = re.compile(r"^\s*(from|to|cc|subject|sent|date|re|fwd):\s+\S", re.IGNORECASE)
_OTHER_WORDS = re.compile(
    r"\b(says|said|wrote|writes|texted|message|replied|quote|forwarded)\b", re.IGNORECASE
)
_QUOTED = re.compile(r"[\"“]([^\"”]{12,})[\"”]")
# A sentence ends at . ! or ? before whitespace (so "Harbor!2291", "3.5" and "./..." stay
# whole) or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")
_ABOUT = re.compile(
    r"^\s*(?:and |but |also |oh,? |so |btw,? )?my (?P<rel>" + "|".join(RELATIONS) + r")\b",
    re.IGNORECASE,
)
_SECRET = re.compile(
    r"\b(password|passcode|passphrase|pin|api[ _-]?key|secret|token|credentials?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Segment:
    """A piece of a turn with the source that said it."""

    text: str
    source: SegmentSource
    about: str | None = None
    """The relation the sentence is about (`sister`), when it is about someone else."""
    failed_tool: bool = False
    """Output of a tool call that failed: evidence a lesson may rest on."""
    tool_args: bool = False
    """The arguments the agent gave a tool (the command it ran): the agent's own words."""


def _sentences(text: str, source: SegmentSource) -> list[Segment]:
    out = []
    for part in _SENTENCE_END.split(text):
        sentence = part.strip()
        if not sentence:
            continue
        src: SegmentSource = source
        if source == "user" and _HYPOTHETICAL.search(sentence):
            src = "hypothetical"
        about = _ABOUT.match(sentence)
        out.append(Segment(sentence, src, about.group("rel").lower() if about else None))
    return out


def _strip_quotes(text: str, segments: list[Segment]) -> str:
    """Move quoted spans of the user's text into other-person segments."""

    def take(m: re.Match[str]) -> str:
        segments.append(Segment(m.group(1), "other_person"))
        return " "

    return _QUOTED.sub(take, text)


def split_user_text(text: str) -> list[Segment]:
    """Segments of a user message: own words, hypotheticals, quoted and pasted text."""
    segments: list[Segment] = []
    own: list[str] = []
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("```"):
            block = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                block.append(lines[i])
                i += 1
            segments.append(Segment("\n".join(block), "document"))
            i += 1
            continue
        if line.lstrip().startswith(">"):
            segments.append(Segment(line.lstrip()[1:].strip(), "other_person"))
            i += 1
            continue
        if _HEADER.match(line):
            block = [line]
            i += 1
            while i < len(lines) and lines[i].strip() and not _HEADER.match(lines[i]):
                block.append(lines[i])
                i += 1
            segments.append(Segment("\n".join(block), "document"))
            continue
        lead = _LEAD_IN.match(line)
        if lead:
            kind: SegmentSource = (
                "other_person" if _OTHER_WORDS.search(lead.group("what")) else "document"
            )
            own.append(lead.group("lead"))
            block = [lead.group("rest")]
            i += 1
            # A pasted block runs to the next blank line (or the end of the message).
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            segments.append(Segment("\n".join(block).strip(), kind))
            continue
        own.append(line)
        i += 1
    own_text = _strip_quotes("\n".join(own), segments)
    return _sentences(own_text, "user") + segments


def split_turn(
    user_text: str, assistant_text: str, tool_record: tuple[ToolCall, ...]
) -> list[Segment]:
    """Every segment of a turn: the user's, the assistant's and each tool call's."""
    segments = split_user_text(user_text)
    segments += [Segment(s.text, "assistant") for s in _sentences(assistant_text, "assistant")]
    for call in tool_record:
        source: SegmentSource = "document" if call.tool.lower() in DOCUMENT_TOOLS else "tool"
        if call.args:
            segments.append(Segment(call.args, "tool", tool_args=True))
        if call.output:
            segments.append(Segment(call.output, source, failed_tool=not call.ok))
    return segments


_PREFERENCE: dict[SegmentSource, int] = {
    "user": 0, "assistant": 1, "tool": 2, "hypothetical": 3, "other_person": 4, "document": 5,
}  # fmt: skip


def locate(value: str, segments: list[Segment], context: str = "") -> Segment | None:
    """The segment `value` most likely came from: the best share of its terms (ties go to
    the user's own words, then the order of `_PREFERENCE`); `context` (the attribute)
    breaks remaining ties. None when no segment holds any of its terms."""
    if not term_set(value):
        return None
    best: tuple[float, float, int] | None = None
    found = None
    for seg in segments:
        score = overlap(value, seg.text)
        if score == 0:
            continue
        key = (score, overlap(context, seg.text) if context else 0.0, -_PREFERENCE[seg.source])
        if best is None or key > best:
            best, found = key, seg
    return found


def looks_secret(attribute: str, value: str, evidence: str = "") -> bool:
    """True when the item is a password, PIN, key or token (never stored): its attribute
    names one, or in the evidence the value follows a word naming one ("password is X")."""
    if _SECRET.search(attribute) or _SECRET.search(value):
        return True
    if not evidence or not value:
        return False
    at = evidence.lower().find(value.lower())
    return at >= 0 and bool(_SECRET.search(evidence[max(0, at - 40) : at]))

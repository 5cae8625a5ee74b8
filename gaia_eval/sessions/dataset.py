"""Discover session files, extract their exchanges and build the dataset (dataset.json)."""

from __future__ import annotations

from pathlib import Path

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.llm.pricing import rate_for
from gaia_eval.sessions.extract import Exchange, extract_exchanges
from gaia_eval.sessions.models import ReferenceUsage, SessionCase, SessionDataset
from gaia_eval.sessions.selection import rejection, select, tags_for
from gaia_eval.sessions.transcript import Transcript, conversation_order, read_transcript

CONTEXT_PROMPT_CHARS, CONTEXT_ANSWER_CHARS = 400, 900
# Spec §7: the context goes first as its own turn, asking for a brief acknowledgement.
ACK_REQUEST = "That is the context of my next message. Reply with a brief acknowledgement only."


def default_claude_dir() -> Path:
    """~/.claude/projects."""
    return Path.home() / ".claude" / "projects"


def discover(claude_dir: Path, project: str | None = None) -> list[Path]:
    """Session files newest first (by modification time, then name); subagent transcripts
    (`<session>/subagents/agent-*.jsonl`) are never sessions."""
    if not claude_dir.is_dir():
        msg = (
            f"--claude-dir {claude_dir}: no such folder "
            "(Claude Code keeps its sessions in ~/.claude/projects)"
        )
        raise InvalidInputError(msg)
    if project is not None:
        folders = [claude_dir / project]
        if not folders[0].is_dir():
            known = sorted(p.name for p in claude_dir.iterdir() if p.is_dir())
            msg = f"--project {project!r}: no folder {folders[0]}; projects there: {known[:20]}"
            raise InvalidInputError(msg)
    else:
        folders = sorted(p for p in claude_dir.iterdir() if p.is_dir())
    files = [
        f
        for folder in folders
        for f in folder.glob("*.jsonl")
        if f.is_file() and not f.name.startswith("agent-")
    ]
    return sorted(files, key=lambda f: (-f.stat().st_mtime, f.name))


def context_text(prompt: str, reference: str) -> str:
    """The previous exchange as the replay's first turn."""
    return (
        f"Earlier in this session you were asked: {prompt[:CONTEXT_PROMPT_CHARS]} … "
        f"You answered: {reference[:CONTEXT_ANSWER_CHARS]}"
    )


def context_turn(context: str) -> str:
    """The user turn that replays a follow-up's context before its question."""
    return f"{context}\n\n{ACK_REQUEST}"


def reference_usage(ex: Exchange) -> ReferenceUsage:
    """Summed usage over distinct requests, priced at the list rate when known."""
    out = ReferenceUsage(requests=len(ex.usage))
    for entry in ex.usage.values():
        usage = entry["usage"]
        for name in (
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ):
            value = usage.get(name)
            if isinstance(value, int):
                setattr(out, name, getattr(out, name) + value)
        out.model = out.model or entry["model"]
    rate = rate_for(out.model) if out.model else None
    if rate is not None and out.requests:
        # Anthropic cache pricing: writes at 1.25x input, reads at 0.1x input.
        cost = (
            out.input_tokens * rate[0]
            + out.cache_creation_input_tokens * rate[0] * 1.25
            + out.cache_read_input_tokens * rate[0] * 0.1
            + out.output_tokens * rate[1]
        ) / 1e6
        out.cost_usd = round(cost, 6)
    return out


def _cases_of(
    tr: Transcript,
    exchanges: list[Exchange],
    previous: Exchange | None,
    seen_prompts: set[str],
) -> list[SessionCase]:
    cases: list[SessionCase] = []
    for index, ex in enumerate(exchanges):
        prior = exchanges[index - 1] if index else previous
        if ex.prompt_uuid is not None and ex.prompt_uuid in seen_prompts:
            continue  # a resumed session copies the turns of the file it continues
        if ex.prompt_uuid is not None:
            seen_prompts.add(ex.prompt_uuid)
        if rejection(ex.prompt, ex.reference) is not None:
            continue
        context = context_text(prior.prompt, prior.reference) if prior else None
        cases.append(
            SessionCase(
                id=f"{tr.stem[:8]}-{index:03d}",
                session=tr.stem,
                project=tr.path.parent.name,
                prompt=ex.prompt,
                reference=ex.reference,
                tools_used=sorted(ex.tools),
                timestamp=ex.timestamp,
                context=context,
                tags=tags_for(ex.prompt),
                query=f"{context}\n\n{ex.prompt}" if context else ex.prompt,
                cwd=ex.cwd,
                git_branch=ex.git_branch,
                usage=reference_usage(ex),
            )
        )
    return cases


def build_dataset(files: list[Path], limit: int = 10, focus: str | None = None) -> SessionDataset:
    """Read `files` (newest first), extract every exchange, select up to `limit` cases."""
    transcripts = [read_transcript(f) for f in files]
    per_file = {tr.path: extract_exchanges(conversation_order(tr.records)) for tr in transcripts}
    # A summary's leafUuid names the last record of another file's conversation: that
    # file's exchange ending there is the previous exchange of this file's first one.
    by_uuid: dict[str, Exchange] = {}
    for tr in transcripts:
        for ex in per_file[tr.path]:
            for uid in ex.uuids:
                by_uuid.setdefault(uid, ex)
    skipped = {"blank": 0, "unparseable": 0, "truncated": 0}
    seen_prompts: set[str] = set()
    cases: list[SessionCase] = []
    extracted = 0
    # Oldest first, so a resumed file's copies of earlier turns dedupe against the original.
    for tr in reversed(transcripts):
        for reason, count in tr.skipped.items():
            skipped[reason] += count
        exchanges = per_file[tr.path]
        own = {uid for ex in exchanges for uid in ex.uuids}
        previous = next(
            (by_uuid[leaf] for leaf in tr.summary_leaves() if leaf in by_uuid and leaf not in own),
            None,
        )
        fresh = [e for e in exchanges if e.prompt_uuid is None or e.prompt_uuid not in seen_prompts]
        extracted += len(fresh)
        cases.extend(_cases_of(tr, exchanges, previous, seen_prompts))
    order = {tr.stem: i for i, tr in enumerate(transcripts)}
    cases.sort(key=lambda c: (order[c.session], c.id))
    return SessionDataset(
        sessions_scanned=len(transcripts),
        turns_extracted=extracted,
        focus=focus,
        limit=limit,
        lines_skipped=skipped,
        cases=select(cases, limit, focus),
    )

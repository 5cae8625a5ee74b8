"""Scrubbing: ours against one Python `re` alternation, hyperscan and detect-secrets.

A deterministic mix of JSON transcript lines, logs and source code (50 MB; 5 MB with
`quick`) carries planted secrets of every kind and look-alike decoys. Every implementation
takes Python bytes and returns scrubbed bytes; throughput is wall time of that call, and
recall (planted secrets removed, per kind) and false positives (redactions that touch no
planted secret) come from the same outputs. detect-secrets only reports (it does not
redact) and is far slower, so it runs on the first 2 MB and its "output" replaces what
it reported. Run it: `python -m gaia_eval.bench.scrub [--quick]`.
"""

from __future__ import annotations

import bisect
import random
import re
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from gaia_eval.bench.common import BenchRow
from gaia_eval.scrub.samples import PLANTED_KINDS, sample_decoy, sample_secret

TITLE = "scrub: secret redaction, bytes in -> bytes out"

Span = tuple[str, int, int]  # kind, start, end (input offsets of the redacted part)


@dataclass
class Corpus:
    """The benchmark text and its ground truth."""

    data: bytes
    planted: list[Span]
    known: list[bytes]
    decoys: int


@dataclass
class Measured:
    """One implementation's figures."""

    impl: str
    mb_s: float
    cpu_mb_s: float
    recall: dict[str, float] = field(default_factory=dict)
    false_positives: int = 0
    bytes_in: int = 0
    note: str = ""


# ---- the corpus -------------------------------------------------------------------------

_WORDS = [
    "the",
    "agent",
    "runs",
    "tests",
    "then",
    "edits",
    "config",
    "and",
    "retries",
    "build",
    "with",
    "cache",
    "index",
    "query",
    "retrieval",
    "chunk",
    "embed",
    "vector",
    "memory",
    "session",
    "tool",
    "result",
    "error",
    "warning",
    "ok",
]


def _line(rng: random.Random) -> str:
    r = rng.random()
    words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 14)))
    if r < 0.4:
        return (
            '{"type":"assistant","uuid":"%08x-%04x-4%03x-a%03x-%012x","message":{"role":'  # noqa: UP031
            '"assistant","content":[{"type":"tool_use","name":"Bash","input":{"command":'
            '"grep -rn %s src/ | head -%d"}},{"type":"text","text":"%s"}]},'
            '"timestamp":"2026-11-30T01:%02d:%02d.%03dZ"}'
            % (
                rng.getrandbits(32),
                rng.getrandbits(16),
                rng.getrandbits(12),
                rng.getrandbits(12),
                rng.getrandbits(48),
                rng.choice(_WORDS),
                rng.randint(1, 99),
                words,
                rng.randint(0, 59),
                rng.randint(0, 59),
                rng.randint(0, 999),
            )
        )
    if r < 0.7:
        return (
            "2026-11-30T01:%02d:%02d.%03dZ %s [worker-%d] GET /api/v1/%s?id=%d %d %dms sha=%040x"  # noqa: UP031
            % (
                rng.randint(0, 59),
                rng.randint(0, 59),
                rng.randint(0, 999),
                rng.choice(["INFO", "DEBUG", "WARN"]),
                rng.randint(1, 16),
                rng.choice(_WORDS),
                rng.randint(1, 10**6),
                rng.choice([200, 201, 404, 500]),
                rng.randint(1, 999),
                rng.getrandbits(160),
            )
        )
    name = "_".join(rng.choice(_WORDS) for _ in range(2))
    return rng.choice(
        [
            f"    def {name}(self, items: list[int], url: str = 'https://api.local/v1') -> int:",
            f"        return sum(x for x in items if x > {rng.randint(0, 99)})  # {words}",
            f"import {name}  # {words}",
            f'    {name.upper()} = os.environ.get("{name.upper()}_TTL", "{rng.randint(1, 60)}")',
        ]
    )


def make_corpus(size: int, seed: int = 20261130, secret_every: int = 60) -> Corpus:
    """`size` bytes of mixed lines, one planted secret per ~`secret_every` lines."""
    rng = random.Random(seed)
    pool = [_line(rng) for _ in range(4000)]
    known_pool = [sample_secret("known-secret", rng)[1] for _ in range(8)]
    parts: list[bytes] = []
    planted: list[Span] = []
    at = 0
    decoys = 0
    while at < size:
        line = rng.choice(pool)
        r = rng.random()
        if r < 1 / secret_every:
            kind = PLANTED_KINDS[rng.randrange(len(PLANTED_KINDS))]
            if kind == "known-secret":
                text = secret = rng.choice(known_pool)
            else:
                text, secret = sample_secret(kind, rng)
            prefix = line[: rng.randint(0, len(line))] + rng.choice([" ", "=", '"', ": "])
            full = (prefix + text + rng.choice([" ", '"', "\n", ","]) + "\n").encode()
            start = at + len(prefix.encode()) + text.encode().index(secret.encode())
            planted.append((kind, start, start + len(secret.encode())))
        elif r < 2 / secret_every:
            full = f"{line} {sample_decoy(rng)}\n".encode()
            decoys += 1
        else:
            full = (line + "\n").encode()
        parts.append(full)
        at += len(full)
    return Corpus(b"".join(parts), planted, [k.encode() for k in known_pool], decoys)


# ---- the implementations -----------------------------------------------------------------

LEFT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_PH = re.compile(rb"(?i)example|x{6}|0{6}")
_RICH = re.compile(rb"[A-Z0-9]")
_PW_WORDS = {b"password", b"passwd", b"pass", b"pwd", b"secret", b"changeme"}
# kind -> (min, max, needs "rich") for the shape bodies, checked after the regex.
_LIMITS = {
    "anthropic": (27, 263, True),
    "stripe": (24, 264, True),
    "sk": (19, 259, True),
    "fireworks": (19, 259, True),
    "github": (24, 266, True),
    "aws": (20, 66, False),
    "slack": (15, 260, True),
    "google": (39, 39, False),
    "huggingface": (33, 67, True),
    "jwt": (20, 8192, False),
    "bearer": (16, 4096, True),
    "twilio": (34, 34, True),
    "sendgrid": (69, 69, False),
    "npm": (40, 40, True),
    "pypi": (55, 1029, True),
}
_SHAPES = {
    "anthropic": rb"sk-ant-[A-Za-z0-9_-]{20,}",
    "stripe": rb"[sr]k_live_[A-Za-z0-9]{16,}",
    "sk": rb"sk-[A-Za-z0-9_-]{16,}",
    "fireworks": rb"fw_[A-Za-z0-9]{16,}",
    "github": rb"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
    "aws": rb"A[KS]IA[A-Z0-9]{16}(?:[ \t:,;|=\"']{1,6}[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=]))?",
    "slack": rb"xox[abprs]-[A-Za-z0-9-]{10,}",
    "google": rb"AIza[A-Za-z0-9_-]{35}",
    "huggingface": rb"hf_[A-Za-z0-9]{30,}",
    "jwt": rb"eyJ[A-Za-z0-9_-]{7,}\.eyJ[A-Za-z0-9_-]{7,}\.[A-Za-z0-9_-]*",
    "twilio": rb"SK[0-9a-fA-F]{32}",
    "sendgrid": rb"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
    "npm": rb"npm_[A-Za-z0-9]{36}",
    "pypi": rb"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{30,}",
}
# Secrets known by their key name (docs/scrubbing.md): a `k` group that is kept and a
# `v` group that is redacted, checked by `_keyed_ok` afterwards.
_ASSIGN = rb"""(?:\\?["'])?[ \t]{0,4}(?::=?|=>?|>)[ \t]{0,4}(?:\\?["'])?"""
_KEYED = {
    "aws": rb"(?P<k_aws>(?i:(?:aws[_-]?)?secret[_-]?(?:access[_-]?)?key)"
    + _ASSIGN
    + rb")(?P<v_aws>[A-Za-z0-9+/]{40})(?![A-Za-z0-9+/=])",
    "azure": rb"(?P<k_azure>(?:AccountKey|SharedAccessKey)=|(?<![A-Za-z0-9_-])sig=)"
    rb"(?P<v_azure>[A-Za-z0-9+/=%]{30,256})",
    "netrc": rb"(?P<k_netrc>machine[ \t\n]+\S+(?:[ \t\n]+(?:login|account)[ \t\n]+\S+)+"
    rb"[ \t\n]+password[ \t\n]+)(?P<v_netrc>\S+)",
    "pgpass": rb"(?P<k_pgpass>(?<=[a-z*]):(?:\*|[0-9]{4,5}):[^:\s]+:[^:\s]+:)"
    rb"(?P<v_pgpass>[^:\s]+)(?=[\r\n]|\Z)",
    "docker-auth": rb"(?P<k_docker>(?<![A-Za-z0-9_-])auth"
    + _ASSIGN
    + rb")(?P<v_docker>[A-Za-z0-9+/]{4,}={0,2})",
    "secret-assignment": rb"(?P<k_assign>(?i:password|passwd|pwd|secret|token|api_?key)"
    rb"(?i:[_-]?key)?" + _ASSIGN + rb""")(?P<v_assign>[^\s"'`()\[\]{}<>,;&\\]{8,256})""",
    "basic-auth": rb"(?P<k_basic>(?<![A-Za-z0-9_-])(?i:basic)[ \t]{1,16})"
    rb"(?P<v_basic>[A-Za-z0-9+/]{2,}={0,2})(?![A-Za-z0-9_-])",
    "cli-password": rb"(?P<k_mysql>(?<![A-Za-z0-9_-])mysql[a-z]{0,8}"
    rb"(?:[ \t]{1,16}[^\s]{1,256}?){0,15}?[ \t]{1,16}-p)(?P<v_mysql>[^\s]+)",
}
_KEYED_GROUP = {
    "aws": "aws",
    "azure": "azure",
    "netrc": "netrc",
    "pgpass": "pgpass",
    "docker": "docker-auth",
    "assign": "secret-assignment",
    "basic": "basic-auth",
    "mysql": "cli-password",
}


def _keyed_ok(kind: str, value: bytes) -> bool:
    """The value checks of the key-name rules (a subset: enough for the benchmark)."""
    import base64
    import binascii

    if kind in ("docker-auth", "basic-auth"):
        try:
            user, colon, pw = base64.b64decode(value, validate=True).partition(b":")
        except (binascii.Error, ValueError):
            return False
        return bool(colon and user and pw)
    if kind in ("netrc", "pgpass", "cli-password"):
        return _url_ok(value)
    if kind == "secret-assignment":
        classes = sum(bool(re.search(c, value)) for c in (rb"[a-z]", rb"[A-Z]", rb"[0-9]"))
        attribute = re.match(rb"[A-Za-z_][^.]*\.[A-Za-z_]", value)  # settings.API_KEY
        return classes >= 2 and len(set(value)) >= 8 and not _PH.search(value) and not attribute
    return bool(_RICH.search(value)) and (kind == "aws" or not _PH.search(value))


_RIGHT = {"aws": rb"(?![A-Za-z0-9])", "google": rb"(?![A-Za-z0-9_-])"}
_PEM = (
    rb"-----BEGIN [A-Z0-9 ]{0,64}PRIVATE KEY[A-Z0-9 ]{0,64}-----"
    rb"(?:[\s\S]{0,16000}?-----END [A-Z0-9 ]{0,64}-----|[A-Za-z0-9+/=\\:,. \t\r\n-]*)"
)
_USER = rb"A-Za-z0-9\-._~%!$&'()*+,;="
_URL = (
    rb"(?<=[A-Za-z0-9+.-]://)(["
    + _USER
    + rb"]{0,128}):(["
    + _USER
    + rb":]{1,256})(?=@[A-Za-z0-9\[])"
)
_BEARER = rb"((?i:bearer)[ \t]{1,16})([A-Za-z0-9._~+/=-]{16,})"


def _valid(kind: str, body: bytes) -> bool:
    lo, hi, rich = _LIMITS[kind]
    if not lo <= len(body) <= hi or (rich and not _RICH.search(body)):
        return False
    return kind == "jwt" or not _PH.search(body)


def _url_ok(pw: bytes) -> bool:
    return not (pw[:1] == b"$" or len(set(pw)) == 1 or pw.lower() in _PW_WORDS)


def make_re(known: list[bytes]) -> Callable[[bytes], tuple[bytes, list[Span]]]:
    """One combined alternation, `.sub()` with a callback that applies the same checks."""
    alts = []
    if known:
        alts.append(
            b"(?P<known>"
            + b"|".join(re.escape(k) for k in sorted(known, key=len, reverse=True))
            + b")"
        )
    alts.append(b"(?P<pem>" + _PEM + b")")
    for kind, pat in _SHAPES.items():
        right = _RIGHT.get(kind, rb"(?![A-Za-z0-9_-])")
        alts.append(rb"(?<![A-Za-z0-9_-])(?P<" + kind.encode() + b">" + pat + b")" + right)
    alts.append(rb"(?<![A-Za-z0-9_-])(?P<bearer>" + _BEARER + b")")
    alts.append(b"(?P<url>" + _URL + b")")
    alts.extend(b"(?P<keyed_" + k.replace("-", "_").encode() + b">" + pat + b")"
                for k, pat in _KEYED.items())  # fmt: skip
    rx = re.compile(b"|".join(alts))

    def run(data: bytes) -> tuple[bytes, list[Span]]:
        spans: list[Span] = []

        def sub(m: re.Match[bytes]) -> bytes:
            kind = m.lastgroup or ""
            text = m.group(0)
            if kind == "bearer":
                inner = re.match(_BEARER, text)
                assert inner
                kw, tok = inner.group(1), inner.group(2)
                if not _valid("bearer", tok):
                    return text
                spans.append(("bearer", m.start() + len(kw), m.end()))
                return kw + b"[REDACTED:bearer]"
            if kind == "url":
                user, _, pw = text.partition(b":")
                if not _url_ok(pw):
                    return text
                spans.append(("url-credentials", m.start() + len(user) + 1, m.end()))
                return user + b":[REDACTED:url-credentials]"
            if kind.startswith("keyed_"):
                short = next(g for g, k in _KEYED_GROUP.items() if m.group(f"v_{g}") is not None)
                kind, key, value = _KEYED_GROUP[short], m.group(f"k_{short}"), m.group(f"v_{short}")
                if not _keyed_ok(kind, value):
                    return text
                spans.append((kind, m.start() + len(key), m.end()))
                return key + b"[REDACTED:%s]" % kind.encode()
            if kind == "known":
                kind = "known-secret"
            elif kind == "pem":
                kind = "private-key"
            elif not _valid(kind, text):
                return text
            spans.append((kind, m.start(), m.end()))
            return b"[REDACTED:%s]" % kind.encode()

        return rx.sub(sub, data), spans

    return run


# Keyed rules whose key part hyperscan cannot compile with start-of-match tracking
# ("Pattern is too large": cli-password's up to 15 arguments of up to 256 bytes before
# `-p`): their candidate is the key's opening word, and the Python pattern, which settles
# every keyed match from its start anyway, matches the rest from there.
_HS_KEY_OPENING = {"cli-password": rb"mysql[a-z]{0,8}[ \t]"}


def make_hyperscan(known: list[bytes]) -> Callable[[bytes], tuple[bytes, list[Span]]]:
    """The same patterns in one hyperscan database (SOM leftmost); hyperscan has no
    look-around, so boundaries, limits and overlaps are settled in Python afterwards,
    and a keyed rule's candidate is its key (or the key's opening word, _HS_KEY_OPENING),
    matched in full by its Python pattern from the candidate's start."""
    import hyperscan

    kinds: list[str] = []
    pats: list[bytes] = []
    for k in known:
        kinds.append("known-secret")
        pats.append(re.escape(k))
    kinds.append("private-key")
    pats.append(rb"-----BEGIN [A-Z0-9 ]{0,64}PRIVATE KEY[A-Z0-9 ]{0,64}-----")
    for kind, pat in _SHAPES.items():
        kinds.append(kind)
        pats.append(re.sub(rb"\(\?!\[[^\]]*\]\)", b"", pat))  # no look-ahead in hyperscan
    kinds.append("bearer")
    pats.append(rb"(?i)bearer[ \t]{1,16}[A-Za-z0-9._~+/=-]{16,}")
    kinds.append("url-credentials")
    pats.append(
        rb"[A-Za-z0-9+.-]://[" + _USER + rb"]{0,128}:[" + _USER + rb":]{1,256}@[A-Za-z0-9\[]"
    )
    keyed: dict[int, re.Pattern[bytes]] = {}  # pattern id -> the Python pattern
    for kind, pat in _KEYED.items():
        keyed[len(pats)] = re.compile(pat)
        kinds.append(kind)
        # hyperscan has no look-around or groups: the key part is the candidate, and the
        # Python pattern above settles the match at its start.
        key = re.sub(rb"\(\?<!?[^()]*\)|\(\?P<v_.*", b"", pat)
        pats.append(_HS_KEY_OPENING.get(kind) or re.sub(rb"\(\?P<k_[a-z]+>", b"(", key))
    db = hyperscan.Database()
    db.compile(
        expressions=pats,
        ids=list(range(len(pats))),
        elements=len(pats),
        flags=[hyperscan.HS_FLAG_SOM_LEFTMOST] * len(pats),
    )
    priority = {k: i for i, k in enumerate(dict.fromkeys(kinds))}
    right_sets = {
        "aws": LEFT - frozenset(b"_-"),
        "stripe": LEFT - frozenset(b"_-"),
        "fireworks": LEFT - frozenset(b"_-"),
        "huggingface": LEFT - frozenset(b"_-"),
    }

    def run(data: bytes) -> tuple[bytes, list[Span]]:
        best: dict[tuple[int, int], int] = {}

        def on_match(idx: int, start: int, end: int, flags: int, ctx: object) -> None:
            key = (start, idx)
            if best.get(key, -1) < end:
                best[key] = end

        db.scan(data, match_event_handler=on_match)
        cands = sorted(best.items(), key=lambda kv: (kv[0][0], priority[kinds[kv[0][1]]]))
        spans: list[Span] = []
        out: list[bytes] = []
        at = 0
        for (start, idx), last in cands:
            kind = kinds[idx]
            end = last
            if start < at:
                continue
            keep = 0
            if idx in keyed:
                km = keyed[idx].match(data, start)
                if km is None:
                    continue
                group = next(g for g in km.groupdict() if g.startswith("v_"))
                value = km.group(group)
                if not _keyed_ok(kind, value):
                    continue
                keep, end = km.start(group) - start, km.end()
            elif kind == "known-secret":
                pass
            elif kind == "private-key":
                foot = data.find(b"-----END ", end, start + 16000)
                close = data.find(b"-----", foot + 9, foot + 80) if foot >= 0 else -1
                end = close + 5 if close >= 0 else end
            elif kind == "url-credentials":
                seg = data[start:end]
                sep = seg.index(b"://") + 3
                colon = seg.index(b":", sep)
                keep, end = colon + 1, end - 2
                if not _url_ok(data[start + keep : end]):
                    continue
            else:
                if start and data[start - 1] in LEFT:
                    continue
                if end < len(data) and data[end] in right_sets.get(kind, LEFT):
                    continue
                if kind == "bearer":
                    m = re.match(rb"(?i)bearer[ \t]+", data[start:end])
                    assert m
                    keep = m.end()
                    if not _valid("bearer", data[start + keep : end]):
                        continue
                elif not _valid(kind, data[start:end]):
                    continue
            out.append(data[at : start + keep])
            out.append(b"[REDACTED:%s]" % kind.encode())
            spans.append((kind, start + keep, end))
            at = end
        out.append(data[at:])
        return b"".join(out), spans

    return run


def make_ours(known: list[bytes]) -> Callable[[bytes], tuple[bytes, list[Span]]]:
    from gaia_eval._native import Scrubber

    scrubber = Scrubber(known)

    def run(data: bytes) -> tuple[bytes, list[Span]]:
        out, found = scrubber.scrub_report(data)
        return out, [(f.kind, f.offset, f.offset + f.length) for f in found]

    return run


def make_detect_secrets() -> Callable[[bytes], tuple[bytes, list[Span]]]:
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    def run(data: bytes) -> tuple[bytes, list[Span]]:
        spans: list[Span] = []
        out: list[bytes] = []
        at = 0
        with default_settings():
            for raw in data.splitlines(keepends=True):
                red = raw
                for found in scan_line(raw.decode("utf-8", "replace")):
                    value = (found.secret_value or "").encode()
                    pos = raw.find(value) if value else -1
                    if pos >= 0:
                        spans.append((found.type, at + pos, at + pos + len(value)))
                        red = red.replace(value, b"[REDACTED]")
                out.append(red)
                at += len(raw)
        return b"".join(out), spans

    return run


# ---- measuring ---------------------------------------------------------------------------


def _score(corpus: Corpus, spans: list[Span], limit: int) -> tuple[dict[str, float], int]:
    """Recall per planted kind (secrets wholly inside `limit` bytes) and false positives."""
    planted = [p for p in corpus.planted if p[2] <= limit]
    by_start = sorted(spans, key=lambda s: s[1])
    starts = [s[1] for s in by_start]
    hit: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    used: set[int] = set()
    for kind, s, e in planted:
        hit[kind][1] += 1
        i = bisect.bisect_right(starts, s) - 1
        ok = False
        for j in range(max(0, i - 2), min(len(by_start), i + 3)):
            _, ss, es = by_start[j]
            if ss <= s and es >= e:
                ok = True
                used.add(j)
            elif ss < e and es > s:
                used.add(j)
        hit[kind][0] += ok
    fps = sum(1 for j in range(len(by_start)) if j not in used)
    return {k: v[0] / v[1] for k, v in sorted(hit.items())}, fps


def _measure(fn: Callable[[bytes], object], data: bytes, repeats: int) -> tuple[float, float]:
    # Wall time is the figure; this thread's CPU time (user + system, so page faults
    # count) is shown beside it because a shared machine's load inflates wall time.
    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_THREAD)
        return r.ru_utime + r.ru_stime

    walls, cpus = [], []
    for _ in range(repeats):
        c0 = cpu()
        t0 = time.perf_counter()
        fn(data)
        walls.append(time.perf_counter() - t0)
        cpus.append(cpu() - c0)
    mb = len(data) / 1e6
    return mb / min(walls), mb / max(min(cpus), 1e-9)


def measure(quick: bool = False) -> tuple[Corpus, list[Measured]]:
    """Run every implementation on one corpus; ours first."""
    size = 5_000_000 if quick else 50_000_000
    corpus = make_corpus(size)
    data = corpus.data
    results: list[Measured] = []
    repeats = 3

    from gaia_eval._native import Scrubber

    ours = make_ours(corpus.known)
    # Timed: the plain bytes -> bytes call, as every artifact write makes it.
    wall, cpu = _measure(Scrubber(corpus.known).scrub, data, repeats)
    recall, fps = _score(corpus, ours(data)[1], len(data))
    results.append(Measured("gaia_eval (native)", wall, cpu, recall, fps, len(data)))

    rx = make_re(corpus.known)
    part = data
    got: list[list[Span]] = []
    # One run (it is slow): timed, and its spans scored.
    wall, cpu = _measure(lambda d: got.append(rx(d)[1]), part, 1)
    recall, fps = _score(corpus, got[0], len(part))
    results.append(Measured("python re (one alternation, .sub)", wall, cpu, recall, fps, len(part)))

    try:
        hs = make_hyperscan(corpus.known)
    except ImportError:
        results.append(Measured("hyperscan", 0, 0, note="not installed (dependency group bench)"))
    else:
        wall, cpu = _measure(lambda d: hs(d)[0], data, repeats)
        recall, fps = _score(corpus, hs(data)[1], len(data))
        results.append(
            Measured("hyperscan (+ Python selection)", wall, cpu, recall, fps, len(data))
        )

    try:
        ds = make_detect_secrets()
    except ImportError:
        results.append(
            Measured("detect-secrets", 0, 0, note="not installed (dependency group bench)")
        )
    else:
        cut = data[: min(len(data), 2_000_000)]
        cut = cut[: cut.rfind(b"\n") + 1]
        wall, cpu = _measure(lambda d: ds(d)[0], cut, 1)
        recall, fps = _score(corpus, ds(cut)[1], len(cut))
        results.append(
            Measured(
                "detect-secrets (reports only)", wall, cpu, recall, fps, len(cut), "first 2 MB"
            )
        )
    return corpus, results


def run(quick: bool) -> list[BenchRow]:
    """The `bench` interface: one row per implementation, ratios against ours."""
    corpus, results = measure(quick)
    ours_s = results[0].bytes_in / 1e6 / results[0].mb_s
    rows = []
    case = f"{len(corpus.data) / 1e6:.0f} MB mix, {len(corpus.planted)} planted"
    for i, m in enumerate(results):
        if not m.mb_s:
            rows.append(BenchRow(case, m.impl, float("nan"), None, m.note))
            continue
        median_s = m.bytes_in / 1e6 / m.mb_s
        ratio = None if i == 0 else (median_s / m.bytes_in) / (ours_s / results[0].bytes_in)
        low = min(m.recall.values()) if m.recall else 0.0
        note = f"{_fmt(m.mb_s)} MB/s; min recall {low:.2f}; {m.false_positives} FP {m.note}"
        note = note.strip()
        rows.append(BenchRow(case, m.impl, median_s, ratio, note))
    return rows


def _fmt(x: float) -> str:
    return f"{x:.0f}" if x >= 10 else f"{x:.2f}"


def format_table(corpus: Corpus, results: list[Measured]) -> str:
    """Markdown: throughput, false positives and recall per kind."""
    kinds = sorted({k for m in results for k in m.recall})
    head = "| impl | MB in | MB/s (wall) | MB/s (thread CPU) | FP | " + " | ".join(kinds) + " |"
    lines = [head, "|" + "---|" * (5 + len(kinds))]
    for m in results:
        rec = " | ".join(f"{m.recall.get(k, float('nan')):.2f}" for k in kinds)
        lines.append(
            f"| {m.impl} | {m.bytes_in / 1e6:.1f} | {_fmt(m.mb_s)} | {_fmt(m.cpu_mb_s)} | "
            f"{m.false_positives} | {rec} |"
        )
    lines.append(
        f"\n{len(corpus.data) / 1e6:.1f} MB, {len(corpus.planted)} planted secrets, "
        f"{corpus.decoys} decoys, {len(corpus.known)} known values."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    corpus, results = measure(quick="--quick" in args)
    print(format_table(corpus, results))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

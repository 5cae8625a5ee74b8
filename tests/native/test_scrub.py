"""The scrub kernel against a slow, regex-based pure-Python oracle of docs/scrubbing.md."""

from __future__ import annotations

import base64
import random
import re
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gaia_eval import _native
from gaia_eval.core.errors import LeakError
from gaia_eval.scrub.samples import PLANTED_KINDS, sample_decoy, sample_secret

# ---- the oracle ------------------------------------------------------------------------

# The oracle redacts the same kinds the samples plant, in the same order (docs/scrubbing.md).
KINDS = PLANTED_KINDS
LEFT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
SCHEME = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-")
HOST = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789[")
PLACEHOLDER = re.compile(rb"(?i)example|x{6}|0{6}")
RICH = re.compile(rb"[A-Z0-9]")
USER = rb"A-Za-z0-9\-._~%!$&'()*+,;="

# (kind, regex matched at p with endpos = gap end, body group, min, max, needs rich)
SHAPES: list[tuple[str, re.Pattern[bytes], int, int, int, bool]] = [
    ("anthropic", re.compile(rb"sk-ant-([A-Za-z0-9_-]+)"), 1, 20, 256, True),
    ("stripe", re.compile(rb"[sr]k_live_([A-Za-z0-9]+)"), 1, 16, 256, True),
    ("sk", re.compile(rb"sk-([A-Za-z0-9_-]+)"), 1, 16, 256, True),
    ("fireworks", re.compile(rb"fw_([A-Za-z0-9]+)"), 1, 16, 256, True),
    ("github", re.compile(rb"gh[pousr]_([A-Za-z0-9]+)"), 1, 20, 255, True),
    ("github", re.compile(rb"github_pat_([A-Za-z0-9_]+)"), 1, 20, 255, True),
    ("aws", re.compile(rb"A[KS]IA([A-Z0-9]{16})(?![A-Za-z0-9])"), 1, 16, 16, False),
    ("google", re.compile(rb"AIza([A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])"), 1, 35, 35, False),
    ("slack", re.compile(rb"xox[abprs]-([A-Za-z0-9-]+)"), 1, 10, 255, True),
    ("huggingface", re.compile(rb"hf_([A-Za-z0-9]+)"), 1, 30, 64, True),
    ("bearer", re.compile(rb"(?i:bearer)([ \t]+)([A-Za-z0-9._~+/=-]+)"), 2, 16, 4096, True),
    ("azure", re.compile(rb"sig=([A-Za-z0-9%+/=]+)"), 1, 30, 256, True),
    ("twilio", re.compile(rb"SK([0-9a-fA-F]{32})(?![A-Za-z0-9])"), 1, 32, 32, True),
    (
        "sendgrid",
        re.compile(
            rb"SG\.([A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])\.[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])"
        ),
        1,
        66,
        66,
        False,
    ),
    ("npm", re.compile(rb"npm_([A-Za-z0-9]{36})(?![A-Za-z0-9])"), 1, 36, 36, True),
    (
        "pypi",
        re.compile(rb"pypi-(?=AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)([A-Za-z0-9_-]+)"),
        1,
        50,
        1024,
        True,
    ),
]
JWT = re.compile(rb"(eyJ[A-Za-z0-9_-]*)\.(eyJ[A-Za-z0-9_-]*)\.[A-Za-z0-9_-]*")
PEM_HEAD = re.compile(rb"-----BEGIN ([A-Z0-9 ]{0,64})-----")
PEM_FOOT = re.compile(rb"-----END [A-Z0-9 ]{0,64}-----")
PEM_BODY = re.compile(rb"[A-Za-z0-9+/=\\:,. \t\r\n-]*")
URL_USER = re.compile(rb"://([" + USER + rb"]*):")
URL_PW = re.compile(rb"([" + USER + rb":]+)@")
PW_WORDS = {b"password", b"passwd", b"pass", b"pwd", b"secret", b"changeme"}


@dataclass
class M:
    start: int
    end: int
    keep: int
    kind: str


def qualifies(v: bytes) -> bool:
    return (
        12 <= len(v) <= 16384
        and v[:1] not in (b"/", b"~", b".")
        and not re.search(rb"[ \t\n\r\v\f]", v)
    )


def pem_len(text: bytes, s: int) -> int:
    head = PEM_HEAD.match(text, s)
    if not head or b"PRIVATE KEY" not in head.group(1):
        return 0
    lim = min(len(text), s + 16384)
    foot = PEM_FOOT.search(text, head.end(), lim)
    if foot:
        return foot.end() - s
    body = PEM_BODY.match(text, head.end(), lim)
    assert body
    return body.end() - s


def a_matches(text: bytes, known: list[bytes], on: set[str]) -> list[M]:
    out, p = [], 0
    while p < len(text):
        best, kind = 0, ""
        if "private-key" in on:
            best = pem_len(text, p)
            kind = "private-key" if best else ""
        if "known-secret" in on:
            for v in known:
                if text.startswith(v, p) and len(v) >= best:
                    best, kind = len(v), "known-secret"
        if best:
            out.append(M(p, p + best, 0, kind))
            p += best
        else:
            p += 1
    return out


ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
HEX = frozenset(b"0123456789abcdefABCDEF")
# An escape that ends in a letter or digit and may sit right before a secret.
ESCAPE_BEFORE = re.compile(rb"(?:\\[nrtbf]|%[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4})\Z")


def left_boundary(text: bytes, p: int) -> bool:
    """The text start, a byte not in [A-Za-z0-9], or an escape (`\\n`, `%3D`, `\\u003d`)."""
    if p == 0 or text[p - 1] not in ALNUM:
        return True
    return bool(ESCAPE_BEFORE.search(text[max(0, p - 6) : p]))


def shape_at(text: bytes, p: int, g: int, left_ok: bool, on: set[str]) -> M | None:
    # Prefixed shapes need the left boundary; key names may end a longer identifier.
    if left_ok or left_boundary(text, p):
        m = prefixed_at(text, p, g, on)
        if m:
            return m
    return keyed_at(text, p, g, left_ok, on)


def prefixed_at(text: bytes, p: int, g: int, on: set[str]) -> M | None:
    for kind, rx, grp, lo, hi, need_rich in SHAPES:
        if kind not in on:
            continue
        m = rx.match(text, p, g)
        if not m:
            continue
        body = m.group(grp)
        if kind == "bearer" and len(m.group(1)) > 16:
            continue
        if not lo <= len(body) <= hi or (need_rich and not RICH.search(body)):
            continue
        if PLACEHOLDER.search(body):
            continue
        keep = m.start(grp) - p if kind in ("bearer", "azure") else 0
        end = aws_pair(text, m.end(), g) if kind == "aws" else m.end()
        return M(p, end, keep, kind)
    if "jwt" in on:
        m = JWT.match(text, p, g)
        if m and len(m.group(1)) >= 10 and len(m.group(2)) >= 10 and m.end() - p <= 8192:
            return M(p, m.end(), 0, "jwt")
    if "docker-auth" in on:
        m = docker_auth(text, p, g)
        if m:
            return m
    if "netrc" in on:
        m = netrc(text, p, g)
        if m:
            return m
    if "cli-password" in on:
        m = mysql(text, p, g)
        if m:
            return m
    return None


def mysql(text: bytes, p: int, g: int) -> M | None:
    """`mysql[a-z]{0,8}` then up to 16 arguments; the rest of the first `-p` argument."""
    m = re.compile(rb"mysql([a-z]*)").match(text, p, g)
    if not m or len(m.group(1)) > 8:
        return None
    q = m.end()
    for _ in range(16):
        blank = re.compile(rb"[ \t]+").match(text, q, g)
        if not blank or len(blank.group()) > 16:
            return None
        arg = VISIBLE.match(text, blank.end(), g)
        if not arg or len(arg.group()) > 256:
            return None
        if len(arg.group()) > 2 and arg.group().startswith(b"-p"):
            if not real_password(arg.group()[2:]):
                return None
            return M(p, arg.end(), arg.start() + 2 - p, "cli-password")
        q = arg.end()
    return None


# ---- the key-name rules (docs/scrubbing.md, "Secrets known by their key name") ----------

B64_40 = re.compile(rb"[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])")
AWS_PAIR_SEP = re.compile(rb"[ \t:,;|=\"']{1,6}")
AWS_NAME = re.compile(rb"(?i)(aws[_-]?)?secret[_-]?(access[_-]?)?key")
QUOTE = rb"\\{0,7}[\"']|&quot;|&#34;|&#39;|&apos;"
ASSIGN = re.compile(rb"(?:" + QUOTE + rb")?[ \t]{0,4}(?::=?|=>?|>)[ \t]{0,4}(" + QUOTE + rb")?")
FLAG = re.compile(rb"[ \t]{1,4}(" + QUOTE + rb")?")
ASSIGN_KEYS = (b"password", b"passwd", b"pwd", b"secret", b"token", b"pikey", b"pi_key", b"pi-key")
KEY_SUFFIX = re.compile(rb"(?i)[_-]?key")
UNQUOTED = re.compile(rb"(?:[!#$%*+\-./0-9:=?@A-Z^_a-z|~\x80-\xff]|&amp;|&lt;|&gt;)+")
ATTRIBUTE = re.compile(rb"[A-Za-z_].*\.[A-Za-z_]", re.S)
VISIBLE = re.compile(rb"[\x21-\x7e\x80-\xff]+")
PG_FIELD = re.compile(rb"[\x21-\x39\x3b-\x7e\x80-\xff]+")  # visible but ':'
PG_END = frozenset(b"abcdefghijklmnopqrstuvwxyz*")
TOKEN_TEXT = b"[REDACTED:"
B64_PADDED = re.compile(rb"[A-Za-z0-9+/]{2,}={0,2}")


def assignment(text: bytes, q: int, g: int) -> tuple[int, bytes] | None:
    """(value start, its opening quote) after a key name, or None."""
    m = ASSIGN.match(text, q, g)
    return (m.end(), m.group(1) or b"") if m else None


def flag(text: bytes, name: int, q: int, g: int) -> tuple[int, bytes] | None:
    """`--password VALUE`: the key name right after a `-`, 1..4 blanks, a quote or not."""
    if name < 1 or text[name - 1] != 0x2D:
        return None
    m = FLAG.match(text, q, g)
    return (m.end(), m.group(1) or b"") if m else None


def aws_pair(text: bytes, e: int, g: int) -> int:
    sep = AWS_PAIR_SEP.match(text, e, g)
    if not sep or (sep.end() < g and text[sep.end()] in b" \t:,;|=\"'"):
        return e
    secret = B64_40.match(text, sep.end(), g)
    return secret.end() if secret and RICH.search(secret.group()) else e


def mixed_secret(value: bytes) -> bool:
    classes = sum(bool(re.search(c, value)) for c in (rb"[a-z]", rb"[A-Z]", rb"[0-9]"))
    return (
        8 <= len(value) <= 256
        and value[:1] not in (b"$", b"%", b"{", b"<")
        and classes >= 2
        and len(set(value)) >= 8
        and not PLACEHOLDER.search(value)
        and TOKEN_TEXT not in value
    )


def assigned_value_end(text: bytes, v: int, g: int, quote: bytes) -> int:
    if quote:
        ch = b"" if quote.startswith(b"&") else quote[-1:]
        lim = min(g, v + 257)
        e = v
        while (
            e < lim
            and text[e] != 0x5C
            and not (ch and text[e : e + 1] == ch)
            and not (text.startswith(quote, e) and e + len(quote) <= g)
            and (text[e] == 0x09 or 0x20 <= text[e] != 0x7F)
        ):
            e += 1
        if not text.startswith(quote, e) or e + len(quote) > g:
            return 0
        return e if mixed_secret(text[v:e]) else 0
    m = UNQUOTED.match(text, v, g)
    if not m:
        return 0
    e, value = m.end(), m.group()
    if e < g and text[e : e + 1] == b"(":
        return 0
    if ATTRIBUTE.match(value) and re.search(rb"\.[A-Za-z_]", value):
        return 0
    return e if mixed_secret(value) else 0


def real_password(pw: bytes) -> bool:
    return bool(pw) and not (
        pw[:1] == b"$" or len(set(pw)) == 1 or pw.lower() in PW_WORDS or TOKEN_TEXT in pw
    )


def credentials_b64(value: bytes) -> bool:
    """Padded base64 of `user:password` (both non-empty, no control bytes)."""
    if len(value) > 4096 or len(value) % 4 or not B64_PADDED.fullmatch(value):
        return False
    raw = base64.b64decode(value)
    user, colon, pw = raw.partition(b":")
    return bool(colon and user and pw) and not any(c < 0x20 or c == 0x7F for c in raw)


def docker_auth(text: bytes, p: int, g: int) -> M | None:
    if not text.startswith(b"auth", p):
        return None
    a = assignment(text, p + 4, g)
    if a is None:
        return None
    m = re.compile(rb"[A-Za-z0-9+/=]*").match(text, a[0], g)
    assert m
    if not credentials_b64(m.group()):
        return None
    return M(p, m.end(), a[0] - p, "docker-auth")


def basic_auth(text: bytes, p: int, g: int) -> M | None:
    """`basic` (left boundary before its `b`) matched at its `s`, blanks, base64 creds."""
    if p < 2 or text[p - 2 : min(p + 3, g)].lower() != b"basic":
        return None
    if p > 2 and text[p - 3] in LEFT:
        return None
    blank = re.compile(rb"[ \t]+").match(text, p + 3, g)
    if not blank or len(blank.group()) > 16:
        return None
    m = re.compile(rb"[A-Za-z0-9+/=]*").match(text, blank.end(), g)
    assert m
    if (m.end() < g and text[m.end()] in LEFT) or not credentials_b64(m.group()):
        return None
    return M(p, m.end(), blank.end() - p, "basic-auth")


def private_key(text: bytes, p: int, g: int) -> M | None:
    """`private[_-]?key` matched at its `v`, then an assignment or a flag's value."""
    if p < 3 or text[p - 3 : min(p + 4, g)].lower() != b"private":
        return None
    suffix = KEY_SUFFIX.match(text, p + 4, g)
    if not suffix:
        return None
    return assigned(text, p, p - 3, suffix.end(), g)


def assigned(text: bytes, p: int, name: int, q: int, g: int) -> M | None:
    """The secret-assignment match at `p` of a key name starting at `name` and ending at
    `q`: an assignment, or a flag's blanks; a value that is not a prefixed shape."""
    a = assignment(text, q, g) or flag(text, name, q, g)
    if a is None:
        return None
    e = assigned_value_end(text, a[0], g, a[1])
    if not e or prefixed_at(text, a[0], g, set(KINDS)):
        return None
    return M(p, e, a[0] - p, "secret-assignment")


def netrc(text: bytes, p: int, g: int) -> M | None:
    m = re.compile(
        rb"machine[ \t\n\r\v\f]{1,16}[\x21-\x7e\x80-\xff]{1,253}"
        rb"(?![\x21-\x7e\x80-\xff])"
    ).match(text, p, g)
    if not m:
        return None
    q, login = m.end(), False
    for _ in range(4):
        kw = re.compile(rb"[ \t\n\r\v\f]{1,16}(login|password|account)").match(text, q, g)
        if not kw:
            return None
        val = re.compile(rb"[ \t\n\r\v\f]{1,16}([\x21-\x7e\x80-\xff]+)").match(text, kw.end(), g)
        if not val or len(val.group(1)) > 256:
            return None
        if val.end() < g and text[val.end()] not in b" \t\n\r\v\f":
            return None
        if kw.group(1) == b"password":
            if not login or not real_password(val.group(1)):
                return None
            return M(p, val.end(), val.start(1) - p, "netrc")
        login = login or kw.group(1) == b"login"
        q = val.end()
    return None


def keyed_at(text: bytes, p: int, g: int, left_ok: bool, on: set[str]) -> M | None:
    if "pgpass" in on:
        m = pgpass(text, p, g)
        if m:
            return m
    c = text[p : p + 1]
    if c in (b"a", b"A", b"s", b"S"):
        if "aws" in on:
            m = aws_name(text, p, g)
            if m:
                return m
        name = b"AccountKey" if c in b"aA" else b"SharedAccessKey"
        if "azure" in on:
            m = keyed_value(text, p, g, name, rb"[A-Za-z0-9+/=]+", lo=40, hi=128, kind="azure")
            if m:
                return m
    if c in (b"s", b"S") and "basic-auth" in on:
        m = basic_auth(text, p, g)
        if m:
            return m
    if c in (b"s", b"S", b"p", b"P", b"t", b"T") and "secret-assignment" in on:
        return generic(text, p, g, after_a=p > 0 and text[p - 1] in b"aA")
    if c in (b"v", b"V") and "secret-assignment" in on:
        return private_key(text, p, g)
    return None


def aws_name(text: bytes, p: int, g: int) -> M | None:
    m = AWS_NAME.match(text, p, g)
    if not m or (m.group(1) is None and m.group(2) is None):
        return None
    a = assignment(text, m.end(), g)
    if a is None:
        return None
    secret = B64_40.match(text, a[0], g)
    if not secret or not RICH.search(secret.group()):
        return None
    return M(p, secret.end(), a[0] - p, "aws")


def keyed_value(
    text: bytes, p: int, g: int, name: bytes, body: bytes, *, lo: int, hi: int, kind: str
) -> M | None:
    if not text.startswith(name, p) or p + len(name) > g:
        return None
    a = assignment(text, p + len(name), g)
    if a is None or text[a[0] : a[0] + 1] == b"$":
        return None
    m = re.compile(body).match(text, a[0], g)
    if not m or not lo <= len(m.group()) <= hi or not RICH.search(m.group()):
        return None
    if PLACEHOLDER.search(m.group()):
        return None
    return M(p, m.end(), a[0] - p, kind)


def generic(text: bytes, p: int, g: int, *, after_a: bool) -> M | None:
    # `api_key` is matched from its `p` (the rule's trigger skips the common `api`).
    low = text[p : min(p + 8, g)].lower()
    keys = [k for k in ASSIGN_KEYS if after_a or not k.startswith(b"pi")]
    key = next((k for k in keys if low.startswith(k)), None)
    if key is None:
        return None
    q = p + len(key)
    suffix = KEY_SUFFIX.match(text, q, g)
    if suffix:
        q = suffix.end()
    return assigned(text, p, p - 1 if key.startswith(b"pi") else p, q, g)


def pgpass(text: bytes, p: int, g: int) -> M | None:
    # At the host's last byte: a lowercase letter or '*'.
    if text[p] not in PG_END:
        return None
    m = re.compile(
        rb":(?:\*|[0-9]{4,5}(?![0-9])):([\x21-\x39\x3b-\x7e\x80-\xff]+)"
        rb":([\x21-\x39\x3b-\x7e\x80-\xff]+):([\x21-\x39\x3b-\x7e\x80-\xff]+)"
    ).match(text, p + 1, g)
    if not m or len(m.group(1)) > 128 or len(m.group(2)) > 128 or len(m.group(3)) > 256:
        return None
    if m.end() < g and text[m.end()] not in b"\r\n":
        return None
    if not real_password(m.group(3)) or TOKEN_TEXT in text[p : m.end()]:
        return None
    return M(p, m.end(), m.start(3) - p, "pgpass")


def url_password(text: bytes, pw: int, g: int, g_is_a: bool) -> int:
    m = URL_PW.match(text, pw, g)
    if not m or len(m.group(1)) > 256:
        return 0
    at = m.end() - 1
    h = at + 1
    if (h < g and text[h] not in HOST) or (h >= g and not g_is_a):
        return 0
    pwd = m.group(1)
    if pwd[:1] == b"$" or len(set(pwd)) == 1 or pwd.lower() in PW_WORDS:
        return 0
    return at


def one_pass(text: bytes, known: list[bytes], on: set[str]) -> list[M]:
    found = []
    a = a_matches(text, known, on)
    gaps, prev = [], 0
    for m in a:
        gaps.append((prev, m.start, True))
        prev = m.end
    gaps.append((prev, len(text), False))
    pending: int | None = None
    for i, (gs, ge, g_is_a) in enumerate(gaps):
        p, edge = gs, gs
        while p < ge:
            if pending is not None and pending < p:
                pending = None
            if pending == p:
                pending = None
                at = url_password(text, p, ge, g_is_a) if "url-credentials" in on else 0
                if at:
                    found.append(M(p, at, 0, "url-credentials"))
                    p = edge = at
                    continue
            if text.startswith(b"://", p):
                u = URL_USER.match(text, p)
                if p >= 1 and text[p - 1] in SCHEME and u and len(u.group(1)) <= 128:
                    pending = u.end()
                p += 1
                continue
            m = shape_at(text, p, ge, p == edge, on)
            if m:
                found.append(m)
                p = edge = m.end
            else:
                p += 1
        if i < len(a):
            found.append(a[i])
            if pending is not None and pending < a[i].end:
                pending = None
    return found


def apply(text: bytes, ms: list[M]) -> tuple[bytes, list[tuple[int, int, int, int]]]:
    out, reps, at = bytearray(), [], 0
    for m in ms:
        red = m.start + m.keep
        out += text[at:red]
        tok = f"[REDACTED:{m.kind}]".encode()
        reps.append((red, m.end, len(out), len(out) + len(tok)))
        out += tok
        at = m.end
    out += text[at:]
    return bytes(out), reps


def map_back(reps: list[tuple[int, int, int, int]], x: int, is_end: bool) -> int:
    last = None
    for r in reps:
        if (r[2] < x) if is_end else (r[2] <= x):
            last = r
    if last is None:
        return x
    if x < last[3]:
        return last[1] if is_end else last[0]
    return x - last[3] + last[1]


class OracleLeak(Exception):
    pass


def oracle(
    text: bytes, known: list[bytes] = (), skip: tuple[str, ...] = ()
) -> tuple[bytes, list[tuple[str, int, int]]]:
    values = sorted({v for v in known if qualifies(v)})
    red = set(KINDS) - set(skip)
    maps: list[list[tuple[int, int, int, int]]] = []
    findings = []
    cur = text
    verified = False
    for _ in range(2):
        ms = one_pass(cur, values, red)
        if not ms:
            verified = not skip
            break
        for m in ms:
            s, e = m.start + m.keep, m.end
            for reps in reversed(maps):
                s, e = map_back(reps, s, False), map_back(reps, e, True)
            findings.append((m.kind, s, e - s))
        cur, reps = apply(cur, ms)
        maps.append(reps)
    if not verified:
        left = one_pass(cur, values, set(KINDS))
        if left:
            raise OracleLeak(sorted({m.kind for m in left}))
    findings.sort(key=lambda f: f[1])
    return cur, findings


def kernel(
    text: bytes, known: list[bytes] = (), skip: tuple[str, ...] = ()
) -> tuple[bytes, list[tuple[str, int, int]]]:
    out, found = _native.Scrubber(known, skip).scrub_report(text)
    return out, [tuple(f) for f in found]  # type: ignore[misc]


def same(text: bytes, known: list[bytes] = (), skip: tuple[str, ...] = ()) -> None:
    try:
        want = oracle(text, known, skip)
    except OracleLeak as leak:
        with pytest.raises(LeakError) as err:
            kernel(text, known, skip)
        for kind in leak.args[0]:
            assert kind in str(err.value)
        return
    assert kernel(text, known, skip) == want


# ---- strategies -------------------------------------------------------------------------

SEEDS = st.integers(0, 2**32).map(random.Random)

FRAGMENTS = [
    "sk-", "sk-ant-", "sk_live_", "rk_live_", "fw_", "ghp_", "gho_", "github_pat_", "AKIA",
    "ASIA", "AIza", "xoxb-", "xoxp-", "hf_", "eyJ", "Bearer ", "bearer\t", "://", "://u:",
    ":", "@", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----", "EXAMPLE", "xxxxxx", "000000", ".", "-", "_", "=", "$",
    " ", "\n", "\\n", "/", "[", "]", "\x00", "\xff", "é",
    # the rules of issue 12
    "password=", "PASSWORD: ", 'secret": "', "token='", "api_key = ", "_key=", "\\\"",
    "aws_secret_access_key = ", "SecretAccessKey: ", ",", "AccountKey=", "SharedAccessKey=",
    "&sig=", "SK", "0123456789abcdef", "SG.", "npm_", ":_authToken=", "pypi-AgEIcHlwaS5vcmc",
    "API_KEY=", "api", "machine ", " login ", " password ", "db:5432:", "h:*:", "*:", ":5432:",
    '"auth": "',
    "dXNlcjpwYXNzd29yZDE=", "Tr0ub4dor&3", "$", "%2B", "(", ".", "'",
    # the rules of issue 27
    "Basic ", "Authorization: basic ", "x-api-key: ", "api-key: ", "PRIVATE_KEY=",
    "private-key ", "mysql -p", "mysqldump ", " -p", "-P", "--password ", "--token '",
    "-password ", "&quot;", "&#39;", "&amp;", "&lt;", "<password>", "\\u003d", "%3D", "%22",
    "\\t", "notes-", "\\\\\\\"",
]  # fmt: skip


@st.composite
def hostile_text(draw: st.DrawFn) -> tuple[bytes, list[bytes]]:
    rng = draw(SEEDS)
    parts: list[str] = []
    known: list[bytes] = []
    for _ in range(draw(st.integers(0, 14))):
        pick = draw(st.integers(0, 5))
        if pick == 0:
            text, _ = sample_secret(rng.choice(PLANTED_KINDS), rng)
            parts.append(text)
        elif pick == 1:
            parts.append(sample_decoy(rng))
        elif pick == 2:
            parts.append(draw(st.sampled_from(FRAGMENTS)))
        elif pick == 3:
            parts.append(draw(st.text(alphabet="aAzZ09_-.:/@=+ xX", max_size=40)))
        elif pick == 4:
            v = draw(st.text(alphabet="abcXYZ0123456789_-:@", min_size=10, max_size=20))
            known.append(v.encode())
            parts.append(v)
        else:
            parts.append(draw(st.text(max_size=12)))
    data = "".join(parts).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        raw = draw(st.binary(max_size=16))
        at = draw(st.integers(0, len(data)))
        data = data[:at] + raw + data[at:]
    return data, known


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(hostile_text())
def test_kernel_matches_oracle(case: tuple[bytes, list[bytes]]) -> None:
    text, known = case
    same(text, known)


@SETTINGS
@given(hostile_text(), st.sampled_from(KINDS))
def test_kernel_matches_oracle_with_a_skipped_kind(
    case: tuple[bytes, list[bytes]], kind: str
) -> None:
    text, known = case
    same(text, known, (kind,))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_text(), SEEDS)
def test_kernel_matches_oracle_with_many_known_values(
    case: tuple[bytes, list[bytes]], rng: random.Random
) -> None:
    # Past 32 known values the kernel switches from the SIMD prefilter to Wu-Manber.
    text, known = case
    extra = [
        bytes(rng.choice(b"abcXYZ012-_:") for _ in range(rng.randint(12, 20))) for _ in range(40)
    ]
    planted = b" ".join(rng.sample(extra, 5))
    same(text + b" " + planted + b" " + text, known + extra)


@SETTINGS
@given(hostile_text())
def test_output_is_clean_and_idempotent(case: tuple[bytes, list[bytes]]) -> None:
    text, known = case
    s = _native.Scrubber(known)
    try:
        out = s.scrub(text)
    except LeakError:
        return
    assert s.find(out) == []
    assert s.scrub(out) == out


@settings(max_examples=200, deadline=None)
@given(SEEDS, st.sampled_from(PLANTED_KINDS))
def test_every_planted_kind_is_found(rng: random.Random, kind: str) -> None:
    text, secret = sample_secret(kind, rng)
    known = [secret.encode()] if kind == "known-secret" else []
    data = f'{{"out": "x {text} y"}}\n'.encode()
    out, found = _native.Scrubber(known).scrub_report(data)
    assert secret.encode() not in out
    assert [f.kind for f in found] == [kind]
    assert (b"[REDACTED:%s]" % kind.encode()) in out
    same(data, known)


@settings(max_examples=300, deadline=None)
@given(SEEDS)
def test_decoys_are_left_alone(rng: random.Random) -> None:
    decoy = sample_decoy(rng).encode()
    assert _native.Scrubber().scrub(b"a " + decoy + b" b") == b"a " + decoy + b" b"


# ---- the documented table, row by row --------------------------------------------------

POSITIVE = [
    ("known-secret", b"pw=hunter2hunter2!"),
    ("private-key", b"-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"),
    ("anthropic", b"sk-ant-api03-AbCdEfGhIjKlMnOpQrSt0123456789"),
    ("stripe", b"sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("sk", b"sk-proj-Ab3dEfGh1jKlMnOp"),
    ("fireworks", b"fw_3ZkQa9xLmN2pR7sT"),
    ("github", b"ghp_aBcD1234EfGh5678IjKl9012MnOp3456QrSt"),
    ("github", b"github_pat_11ABCDEFG0123456789_abcdefghij"),
    ("aws", b"AKIAZ7QX3MNB2KLP4R6T"),
    ("slack", b"xoxb-1234567890-abcdefghij"),
    ("google", b"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("huggingface", b"hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"),
    ("jwt", b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N"),
    ("bearer", b"Authorization: Bearer Ab3dEfGh1jKlMnOpQr=="),
    ("url-credentials", b"postgres://app:s3cr3t-Pw@db.internal:5432/app"),
    ("aws", b"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("aws", b"AKIAZ7QX3MNB2KLP4R6T,wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz8MPLEKEY"),
    ("azure", b"AccountName=a;AccountKey=" + b"Ab3d" * 21 + b"Ab==;EndpointSuffix=x"),
    ("azure", b"?sv=2022-11-02&sig=Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789%2B%3D"),
    ("twilio", b"SK0123456789abcdef0123456789abcdef"),
    (
        "sendgrid",
        b"SG." + b"Ab3dEfGh1jKlMnOpQrStUv" + b"." + b"Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789AbCdEfG",
    ),
    ("npm", b"npm_Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789"),
    ("pypi", b"pypi-AgEIcHlwaS5vcmc" + b"Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789Ab3dEfGh1jKlMnOp"),
    ("secret-assignment", b"API_KEY=Ab3dEfGh1jKlMnOp"),
    ("secret-assignment", b"//registry.npmjs.org/:_authToken=1b2c3d4e-0000-4a1b-8c2d-3e4f5a6b7c8d"),
    ("pgpass", b"*:*:*:postgres:Tr0ub4dor&3"),
    ("netrc", b"machine api.github.com login bob password Tr0ub4dor&3"),
    ("pgpass", b"db.internal:5432:app:svc:Tr0ub4dor&3\n"),
    ("docker-auth", b'{"auths": {"r.io": {"auth": "Ym9iOlRyMHViNGRvciYz"}}}'),
    ("secret-assignment", b'DB_PASSWORD="Tr0ub4dor&3x"'),
    ("secret-assignment", b"SECRET_KEY = 'django-insecure-9f8e7d6c5b4a'"),
    # issue 27
    ("basic-auth", b"Authorization: Basic dXNlcjpUcjB1YjRkb3IzeFl6"),
    ("secret-assignment", b"x-api-key: Ab3dEfGh1jKlMnOp9"),
    ("secret-assignment", b"api-key: Ab3dEfGh1jKlMnOp9"),
    ("secret-assignment", b"PRIVATE_KEY=4c0883a69102937d6231471b5dbb6204fe512961708279f1"),
    ("cli-password", b"mysql -h db -uroot -pTr0ub4dor3xYz app"),
    ("secret-assignment", b"deploy --password Tr0ub4dor3xYz --user bob"),
    ("secret-assignment", b"password=&quot;Tr0ub4dor&amp;3xYz&quot;"),
    ("secret-assignment", b"<password>Tr0ub4dor&amp;3xYz</password>"),
    ("secret-assignment", b'{"log": "DB_PASSWORD=\\\\\\"Tr0ub4dor&3xYz\\\\\\""}'),
    ("github", b"notes-ghp_aBcD1234EfGh5678IjKl9012MnOp3456QrSt.txt"),
    ("github", b"out:\\nghp_aBcD1234EfGh5678IjKl9012MnOp3456QrSt"),
    ("sk", b"q=%3Dsk-proj-Ab3dEfGh1jKlMnOp"),
    ("sk", b"q=\\u0022sk-proj-Ab3dEfGh1jKlMnOp"),
]
NEGATIVE = [
    b"AKIAIOSFODNN7EXAMPLE",
    b"akiaz7qx3mnb2klp4r6t",
    b"AKIAZ7QX3MNB2KLP4R6TX",
    b"sk-learn-compatible-estimators",
    b"sk-xxxxxxxxxxxxxxxxxxxxxxxx",
    b"task-Ab3dEfGh1jKlMnOp1234",
    b"ghp_short123",
    b"xoxb-123",
    b"fw_lowercaseonlyletters",
    b"hf_hub_download",
    b"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    b"550e8400-e29b-41d4-a716-446655440000",
    b"Bearer token",
    b"bearer-authentication-is-described-here",
    b"postgres://user:password@localhost/db",
    b"redis://:$REDIS_PASSWORD@cache",
    b"http://host:8080/path@ref",
    b"-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
    b"eyJhbGciOiJIUzI1NiJ9",
    b"sk-ant-short1",
    b"sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    b"AIzaSyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    b"/usr/local/secret",
    b"aws_secret_access_key = <your-secret-key>",
    b"AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    b"AccountKey=;EndpointSuffix=core.windows.net",
    b"SK0123456789abcdef",
    b"npm_install_hook",
    b"pypi-token",
    b"machine learning password reset link",
    b"machine h password Tr0ub4dor&3",
    b"localhost:5432:app:svc:password",
    b"at 10:30:45:123:done",
    b'"auth": "oauth2"',
    b"password = os.environ['DB_PASSWORD']",
    b"password=settings.DB_PASSWORD1",
    b"token = get_token(session)",
    b"secret: ${SECRET_VALUE}",
    b"PASSWORD_MIN_LENGTH = 12",
    b"password: str = Field()",
    # issue 27 look-alikes
    b"--password-file /run/secrets/db",
    b"api-key-name: billing-Prod2",
    b"the password is required",
    b"Basic usage of the API",
    b"basic auth is supported",
    b"mysql -p app",
    b"mysql -P3306 -h db app",
    b"mysql -p$MYSQL_PWD app",
    b"private_key_path = '/etc/ssl/key.pem'",
    b"x-api-key: ${API_KEY}",
    b"--token $GITHUB_TOKEN",
    b"taskghp_aBcD1234EfGh5678IjKl9012MnOp3456QrSt",
]


@pytest.mark.parametrize(("kind", "text"), POSITIVE)
def test_documented_positive_examples(kind: str, text: bytes) -> None:
    known = [b"hunter2hunter2!"] if kind == "known-secret" else []
    out, found = _native.Scrubber(known).scrub_report(text)
    assert [f.kind for f in found] == [kind]
    assert f"[REDACTED:{kind}]".encode() in out
    same(text, known)


@pytest.mark.parametrize("text", NEGATIVE)
def test_documented_negative_examples(text: bytes) -> None:
    assert _native.Scrubber().scrub_report(text) == (text, [])
    same(text)


# ---- issue 12 item 2: each kind it names, compared with gitleaks' and detect-secrets' ----
# (name, kind, a positive, the part that must go, a near miss that must stay). The near
# misses are the look-alikes those tools' rules also refuse: test keys, publishable keys,
# too-short bodies, placeholders and references, public keys, passwords absent.
GCP_KEY_LINE = b"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Ab3dEfGh1jKl"
GCP_SA = (
    b'{"type": "service_account", "project_id": "p-123", "private_key_id": '
    b'"1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b", "private_key": "-----BEGIN PRIVATE '
    b"KEY-----\\n" + GCP_KEY_LINE + b'\\nAb3dEfGh\\n-----END PRIVATE KEY-----\\n", '
    b'"client_email": "svc@p-123.iam.gserviceaccount.com"}'
)
ISSUE_KINDS = [
    ("aws-secret-key", "aws", b"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz8MPLEKEY",
     b"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz8MPLEKEY", b"aws_secret_access_key = <your-secret-key>"),
    ("aws-pair", "aws", b"AKIAZ7QX3MNB2KLP4R6T,wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz8MPLEKEY",
     b"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz8MPLEKEY",
     b"AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("azure-storage-key", "azure",
     b"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + b"Ab3d" * 21
     + b"Ab==;EndpointSuffix=core.windows.net",
     b"Ab3d" * 21, b"AccountKey=;EndpointSuffix=core.windows.net"),
    ("azure-connection-string", "azure",
     b"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey="
     b"Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789AbCdEfG=",
     b"Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789AbCdEfG=", b"SharedAccessKey=${SERVICEBUS_KEY}"),
    ("azure-sas", "azure", b"?sv=2022-11-02&sig=Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789%2B%3D",
     b"Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789", b"?sv=2022-11-02&sig=short"),
    ("gcp-service-account", "private-key", GCP_SA, GCP_KEY_LINE,
     b'{"type": "service_account", "private_key": "-----BEGIN PUBLIC KEY-----\\nMIIBIjAN'
     b'\\n-----END PUBLIC KEY-----\\n"}'),
    ("stripe-live", "stripe", b"sk_live_51H8abcDEFghiJKLmnoPQRstuVWXyz0123456789",
     b"51H8abcDEFghiJKLmnoPQRstuVWXyz0123456789", b"sk_test_4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe-restricted", "stripe", b"rk_live_51H8abcDEFghiJKLmnoPQRstuVWXyz01234567",
     b"51H8abcDEFghiJKLmnoPQRstuVWXyz01234567",
     b"pk_live_51H8abcDEFghiJKLmnoPQRstuVWXyz0123456789"),
    ("twilio", "twilio", b"SK0123456789abcdef0123456789abcdef",
     b"0123456789abcdef0123456789abcdef", b"SK0123456789abcdef0123456789abcdeg"),
    ("sendgrid", "sendgrid",
     b"SG.Ab3dEfGh1jKlMnOpQrStUv.Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789AbCdEfG",
     b"Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789AbCdEfG", b"SG.short.token"),
    ("npm", "npm", b"//registry.npmjs.org/:_authToken=npm_Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789",
     b"Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789", b"npm_install_hook"),
    ("pypi", "pypi",
     b"pypi-AgEIcHlwaS5vcmc" + b"Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789Ab3dEfGh1jKlMnOp",
     b"Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789Ab3dEfGh1jKlMnOp", b"pypi-AgEIcHlwaS5vcmc"),
    ("huggingface", "huggingface", b"hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
     b"AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", b"self.hf_hub_download(repo_id)"),
    ("anthropic", "anthropic", b"sk-ant-api03-AbCdEfGhIjKlMnOpQrSt0123456789",
     b"AbCdEfGhIjKlMnOpQrSt0123456789", b"sk-ant-api03-short"),
    ("anthropic-admin", "anthropic",
     b"sk-ant-admin01-AbCdEfGhIjKlMnOpQrSt0123456789AbCdEfGhIjKl",
     b"AbCdEfGhIjKlMnOpQrSt0123456789AbCdEfGhIjKl", b"sk-ant-admin01-"),
    ("google-api-key", "google", b"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
     b"SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", b"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBW"),
    ("postgres-url", "url-credentials", b"postgresql://svc:Xy7pQ2wLmN@10.0.0.1/db",
     b"Xy7pQ2wLmN", b"postgres://user:password@localhost/db"),
    ("mysql-url", "url-credentials", b"mysql://root:Xy7pQ2wLmN@db:3306/app", b"Xy7pQ2wLmN",
     b"mysql://root@db:3306/app"),
    ("mongo-url", "url-credentials",
     b"mongodb+srv://u:Xy7pQ2wLmN@cluster0.ab1cd.mongodb.net/db", b"Xy7pQ2wLmN",
     b"mongodb://${MONGO_USER}:${MONGO_PASS}@mongo/"),
    ("netrc", "netrc", b"machine h.io\n  login bob\n  password Xy7pQ2wLmN3r\n",
     b"Xy7pQ2wLmN3r", b"machine h.io login bob password $NETRC_PW"),
    ("pgpass", "pgpass", b"db.internal:5432:app:svc:Xy7pQ2wLmN3r\n", b"Xy7pQ2wLmN3r",
     b"localhost:5432:app:svc:password"),
    ("docker-auth", "docker-auth",
     b'{"auths":{"https://index.docker.io/v1/":{"auth":"dXNlcjpYeTdwUTJ3TG1OM3I="}}}',
     b"dXNlcjpYeTdwUTJ3TG1OM3I=", b'{"auths": {"r.io": {"auth": "dXNlcg=="}}}'),
    ("password-assignment", "secret-assignment", b"password=Xy7pQ2wLmN3r", b"Xy7pQ2wLmN3r",
     b"password=aaaaaaaaaaaaaaa"),
    ("secret-assignment", "secret-assignment", b'client_secret: "Xy7pQ2wLmN3rTt"',
     b"Xy7pQ2wLmN3rTt", b"secret = os.environ['SECRET']"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "text", "secret", "near_miss"),
    [r[1:] for r in ISSUE_KINDS],
    ids=[r[0] for r in ISSUE_KINDS],
)
def test_issue_kinds_positive_and_near_miss(
    kind: str, text: bytes, secret: bytes, near_miss: bytes
) -> None:
    s = _native.Scrubber()
    out, found = s.scrub_report(b"x " + text + b" y")
    assert secret not in out
    assert [f.kind for f in found] == [kind]
    assert s.scrub_report(b"x " + near_miss + b" y") == (b"x " + near_miss + b" y", [])
    same(text)
    same(near_miss)


def test_bearer_keeps_the_word_and_url_keeps_user_and_host() -> None:
    s = _native.Scrubber()
    assert s.scrub(b"Bearer Ab3dEfGh1jKlMnOpQr") == b"Bearer [REDACTED:bearer]"
    assert (
        s.scrub(b"https://bob:Tr0ub4dor@example.org/x")
        == b"https://bob:[REDACTED:url-credentials]@example.org/x"
    )


def test_known_values_longest_first_and_filtered() -> None:
    s = _native.Scrubber([b"abcdefghijkl", b"abcdefghijklmnop", b"/usr/local/secret", b"short"])
    assert s.known_count == 2
    assert s.scrub(b"<abcdefghijklmnopq>") == b"<[REDACTED:known-secret]q>"
    assert s.scrub(b"/usr/local/secret") == b"/usr/local/secret"
    assert _native.scrub_known_value_ok("has space in it") is False
    assert _native.scrub_known_value_ok("~/relative/one") is False
    assert _native.scrub_known_value_ok("x" * 12) is True


def test_known_value_wins_over_an_overlapping_shape() -> None:
    # The shape starts first, but the known value is redacted whole (A before B).
    s = _native.Scrubber([b"QRSTsecretpart!9"])
    out = s.scrub(b"Bearer abcdefghijklmnopQRSTsecretpart!9")
    assert b"secretpart" not in out


def test_many_known_values_in_one_pass() -> None:
    rng = random.Random(7)
    values = [f"K{rng.getrandbits(64):016x}{i}" for i in range(5000)]
    text = " ".join(values[::7]).encode()
    out = _native.Scrubber(values).scrub(text)
    assert out == b" ".join([b"[REDACTED:known-secret]"] * len(values[::7]))


# ---- the re-check and the leak error ---------------------------------------------------


def test_skipped_kind_is_refused_naming_the_kind_never_the_value() -> None:
    s = _native.Scrubber(skip=["aws"])
    with pytest.raises(LeakError) as err:
        s.scrub(b"key=AKIAZ7QX3MNB2KLP4R6T")
    assert "aws" in str(err.value)
    assert "AKIAZ7QX3MNB2KLP4R6T" not in str(err.value)


def test_find_reports_kind_offset_length_only() -> None:
    text = b"a sk-proj-Ab3dEfGh1jKlMnOp b"
    assert _native.Scrubber().find(text) == [_native.ScrubFinding("sk", 2, 24)]


def test_unknown_skip_kind_and_bad_types_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown scrub kind"):
        _native.Scrubber(skip=["nope"])
    with pytest.raises(TypeError, match="data must be bytes"):
        _native.Scrubber().scrub("text")  # type: ignore[arg-type]


def test_round_two_catches_a_shape_completed_by_a_redaction() -> None:
    # The bearer token is a placeholder only because of what follows the sk- key; once
    # the key is redacted, the shorter token is a whole bearer token, which round 2 takes.
    text = b"Bearer abcdefgh12345678/sk-ABCDEFGH12345678/EXAMPLE"
    out, found = _native.Scrubber().scrub_report(text)
    assert out == b"Bearer [REDACTED:bearer][REDACTED:sk]/EXAMPLE"
    assert found == [("bearer", 7, 17), ("sk", 24, 19)]
    same(text)


# ---- streaming --------------------------------------------------------------------------


def stream_all(s: _native.Scrubber, chunks: list[bytes]) -> tuple[bytes, list[tuple]]:
    st_ = s.stream()
    out = b"".join(st_.feed(c) for c in chunks) + st_.finish()
    return out, [tuple(f) for f in st_.take_findings()]


def test_split_at_every_position() -> None:
    known = [b"Known-Value-1234"]
    text = (
        b"x Bearer Ab3dEfGh1jKlMnOpQr y AKIAZ7QX3MNB2KLP4R6T https://u:pw12345@h/ "
        b"Known-Value-1234 -----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY----- "
        b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig sk-proj-Ab3dEfGh1jKlMnOp "
        b"Bearer abcdefgh12345678/sk-ABCDEFGH12345678/EXAMPLE"  # needs round 2
    )
    s = _native.Scrubber(known)
    want = s.scrub_report(text)
    want = (want[0], [tuple(f) for f in want[1]])
    for cut in range(len(text) + 1):
        assert stream_all(s, [text[:cut], text[cut:]]) == want, cut


def test_split_at_every_position_key_name_rules() -> None:
    text = (
        b"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz8MPLEKEY x "
        b"AKIAZ7QX3MNB2KLP4R6T,wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz8MPLEKEY\n"
        b"machine h.io login bob password Tr0ub4dor&3\ndb:5432:app:svc:S3cr3tPw!\n"
        b'DB_PASSWORD="Tr0ub4dor&3x" {"auth": "Ym9iOlRyMHViNGRvciYz"} '
        b"AccountKey=" + b"Ab3d" * 21 + b"Ab==;x SK0123456789abcdef0123456789abcdef"
    )
    s = _native.Scrubber()
    want = s.scrub_report(text)
    want = (want[0], [tuple(f) for f in want[1]])
    assert len(want[1]) == 8
    for cut in range(len(text) + 1):
        assert stream_all(s, [text[:cut], text[cut:]]) == want, cut
    same(text)


def big_text(rng: random.Random, size: int) -> tuple[bytes, list[bytes]]:
    parts, known, n = [], [], 0
    while n < size:
        r = rng.random()
        if r < 0.02:
            kind = rng.choice(PLANTED_KINDS)
            text, secret = sample_secret(kind, rng)
            if kind == "known-secret":
                known.append(secret.encode())
        elif r < 0.04:
            text = sample_decoy(rng)
        else:
            text = "".join(rng.choice("abc def\n:/-_AK") for _ in range(rng.randint(1, 200)))
        parts.append(text)
        n += len(text)
    return "".join(parts).encode(), known


@settings(max_examples=25, deadline=None)
@given(SEEDS, st.lists(st.integers(1, 70000), max_size=12))
def test_streaming_equals_one_shot_on_large_text(rng: random.Random, cuts: list[int]) -> None:
    text, known = big_text(rng, 150_000)
    s = _native.Scrubber(known)
    want_out, want_found = s.scrub_report(text)
    chunks, at = [], 0
    for c in cuts:
        chunks.append(text[at : at + c])
        at += c
    chunks.append(text[at:])
    out, found = stream_all(s, chunks)
    assert out == want_out
    assert found == [tuple(f) for f in want_found]


def test_stream_refuses_a_leak_before_emitting_it() -> None:
    s = _native.Scrubber(skip=["github"])
    st_ = s.stream()
    emitted = st_.feed(b"safe text " * 10000)
    with pytest.raises(LeakError, match="github"):
        emitted += st_.feed(b"ghp_aBcD1234EfGh5678IjKl9012MnOp3456QrSt tail")
        emitted += st_.finish()
    assert b"ghp_" not in emitted


# ---- hostile input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b"\x00" * 1000,
        bytes(range(256)) * 64,
        b"\xff\xfe\xc3(" * 5000,
        b"sk-" * 50000,
        b"Bearer " * 30000,
        b"://" * 30000,
        b"-----BEGIN RSA PRIVATE KEY-----" * 2000,
        b"eyJ" + b"a" * 20000 + b".eyJ" + b"b" * 20000 + b".c",
        b"-----BEGIN PRIVATE KEY-----\n" + b"A" * 100000,
    ],
)
def test_hostile_inputs_never_crash(text: bytes) -> None:
    s = _native.Scrubber([b"\x00" * 12, b"\xff" * 13])
    out = s.scrub(text)
    assert s.find(out) == []
    assert stream_all(s, [text[: len(text) // 3], text[len(text) // 3 :]])[0] == out


@pytest.mark.slow
def test_hundred_megabyte_line() -> None:
    line = (b"a-b_c/d:e " * 10_000_000) + b"sk-proj-Ab3dEfGh1jKlMnOp"
    out = _native.Scrubber().scrub(line)
    assert out.endswith(b"[REDACTED:sk]")
    assert len(out) == len(line) - 24 + len(b"[REDACTED:sk]")

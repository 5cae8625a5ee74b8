"""Synthetic secrets of every kind and look-alike decoys, for tests and the benchmark.

Every value is random (never a real credential) and, for a given random.Random, the same
on every machine. `sample_secret` returns the text to plant and the part of it the
scrubber must remove (the token of a Bearer header, the password of a URL).
"""

from __future__ import annotations

import base64
import json
import random
import string

from gaia_eval._native import scrub_kinds

ALNUM = string.ascii_letters + string.digits
UPPER_DIGIT = string.ascii_uppercase + string.digits
TOKEN = ALNUM + "_-"
PASSWORD = ALNUM + "!$&()*+,;=._~-"

# Every kind the native scrubber redacts, in its rule order (read from it, so a new rule
# cannot be left out of the samples: sample_secret raises for a kind it cannot plant).
PLANTED_KINDS: tuple[str, ...] = scrub_kinds()
B64 = ALNUM + "+/"
# Bytes a generated password or assigned value may hold: no quotes, no backslash, nothing
# that ends an unquoted value (`,;&()[]{}<>`), and no '.' (an unquoted `a.b` reads as an
# attribute chain, which the assignment rule leaves alone).
VALUE = ALNUM + "!#%*+-/:=?@^_~"


def _rand(rng: random.Random, alphabet: str, n: int) -> str:
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        low = s.lower()
        # Keep generated secrets clear of the placeholder filter and always "rich".
        if "example" in low or "xxxxxx" in low or "000000" in s:
            continue
        if any(c.isdigit() or c.isupper() for c in s):
            return s


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _b64(rng: random.Random, n: int) -> str:
    """Standard base64 of `n` random bytes, clear of the placeholder filter, rich."""
    while True:
        v = base64.b64encode(rng.randbytes(n)).decode()
        if "000000" not in v and "xxxxxx" not in v.lower() and "example" not in v.lower():
            return v


def _mixed(rng: random.Random, alphabet: str, n: int) -> str:
    """A value the assignment rule takes: an alphanumeric first byte, two of lowercase /
    uppercase / digit, at least 8 distinct bytes."""
    while True:
        v = rng.choice(ALNUM) + _rand(rng, alphabet, n - 1)
        classes = sum(any(f(c) for c in v) for f in (str.islower, str.isupper, str.isdigit))
        if classes >= 2 and len(set(v)) >= 8:
            return v


def _password(rng: random.Random) -> str:
    """A .netrc / .pgpass password: not a reference, a repeat or a well-known word."""
    return rng.choice(ALNUM) + _rand(rng, VALUE.replace(":", ""), rng.randint(8, 31))


def sample_secret(kind: str, rng: random.Random) -> tuple[str, str]:
    """(text to plant, the substring that must not survive) for one kind."""
    if kind == "known-secret":
        # A qualifying value: no leading '/', '~' or '.', no whitespace.
        v = rng.choice(ALNUM) + _rand(rng, ALNUM + "!#%&*+,:;=?@^_|~-", rng.randint(16, 48))
        return v, v
    if kind == "private-key":
        lines = [_rand(rng, ALNUM + "+/", 64) for _ in range(rng.randint(3, 12))]
        label = rng.choice(
            ["RSA PRIVATE KEY", "PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY"]
        )
        sep = rng.choice(["\n", "\\n"])  # raw, or inside a JSON string
        body = sep.join(lines)
        text = f"-----BEGIN {label}-----{sep}{body}{sep}-----END {label}-----"
        return text, lines[0]
    if kind == "anthropic":
        v = "sk-ant-api03-" + _rand(rng, TOKEN, 93) + "AA"
    elif kind == "stripe":
        v = rng.choice(["sk_live_", "rk_live_"]) + _rand(rng, ALNUM, rng.randint(24, 99))
    elif kind == "sk":
        v = rng.choice(["sk-", "sk-proj-", "sk-svcacct-"]) + _rand(rng, TOKEN, rng.randint(40, 160))
    elif kind == "fireworks":
        v = "fw_" + _rand(rng, ALNUM, rng.randint(20, 40))
    elif kind == "github":
        if rng.random() < 0.3:
            v = "github_pat_" + _rand(rng, ALNUM, 22) + "_" + _rand(rng, ALNUM, 59)
        else:
            v = "gh" + rng.choice("pousr") + "_" + _rand(rng, ALNUM, 36)
    elif kind == "aws":
        v = rng.choice(["AKIA", "ASIA"]) + _rand(rng, UPPER_DIGIT, 16)
        form = rng.randrange(3)
        if form:
            secret = _rand(rng, B64, 40)
            if form == 1:  # the pair, as the console's CSV or an env file shows it
                return v + rng.choice([",", ":", " ", "\t", '","']) + secret, secret
            name = rng.choice(
                ["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "SecretAccessKey",
                 "secret_access_key", "aws-secret-key"]
            )  # fmt: skip
            sep = rng.choice([" = ", "=", ": ", '": "'])
            return f"{name}{sep}{secret}", secret
    elif kind == "slack":
        v = (
            f"xox{rng.choice('abprs')}-{rng.randint(10**11, 10**12)}-"
            f"{rng.randint(10**12, 10**13)}-{_rand(rng, ALNUM, 24)}"
        )
    elif kind == "google":
        v = "AIza" + _rand(rng, TOKEN, 35)
    elif kind == "huggingface":
        v = "hf_" + _rand(rng, ALNUM, 34)
    elif kind == "jwt":
        header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        claims = {"sub": str(rng.randint(1, 10**9)), "iat": rng.randint(10**9, 2 * 10**9)}
        payload = _b64url(json.dumps(claims).encode())
        sig = _b64url(rng.randbytes(32))
        v = f"{header}.{payload}.{sig}"
    elif kind == "bearer":
        tok = _rand(rng, ALNUM + "._~+/-", rng.randint(24, 64))
        return f"{rng.choice(['Bearer', 'bearer', 'BEARER'])} {tok}", tok
    elif kind == "url-credentials":
        pw = rng.choice(ALNUM) + _rand(rng, PASSWORD, rng.randint(8, 32))  # no '$VAR' look
        host = rng.choice(["db.internal", "10.0.0.7:5432", "cache.local"])
        scheme = rng.choice(["postgres", "redis", "https", "mongodb+srv"])
        return f"{scheme}://svc_{rng.randint(1, 99)}:{pw}@{host}/x", pw
    elif kind == "azure":
        form = rng.randrange(3)
        if form == 0:
            key = _b64(rng, 64)
            text = (
                "DefaultEndpointsProtocol=https;AccountName=acct"
                f"{rng.randint(1, 99)};AccountKey={key};EndpointSuffix=core.windows.net"
            )
            return text, key
        if form == 1:
            key = _b64(rng, 32)
            text = f"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={key}"
            return text, key
        sig = _b64(rng, 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
        return f"https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig={sig}", sig
    elif kind == "twilio":
        while True:
            v = "SK" + "".join(rng.choice("0123456789abcdef") for _ in range(32))
            if any(c.isdigit() for c in v[2:]) and "000000" not in v:
                break
    elif kind == "sendgrid":
        v = f"SG.{_rand(rng, TOKEN, 22)}.{_rand(rng, TOKEN, 43)}"
    elif kind == "npm":
        v = "npm_" + _rand(rng, ALNUM, 36)
    elif kind == "pypi":
        v = "pypi-AgEIcHlwaS5vcmc" + _rand(rng, TOKEN, rng.randint(60, 180))
    elif kind == "netrc":
        pw = _password(rng)
        host = rng.choice(["api.github.com", "git.internal", "pypi.org"])
        return f"machine {host} login u{rng.randint(1, 999)} password {pw}\n", pw
    elif kind == "pgpass":
        pw = _password(rng)
        host, port = rng.choice([("db.internal", "5432"), ("localhost", "*"), ("*", "6432")])
        return f"{host}:{port}:app:svc_{rng.randint(1, 99)}:{pw}\n", pw
    elif kind == "docker-auth":
        raw = f"u{rng.randint(1, 999)}:{_password(rng)}".encode()
        auth = base64.b64encode(raw).decode()
        return f'{{"auths": {{"registry.internal": {{"auth": "{auth}"}}}}}}', auth
    elif kind == "basic-auth":
        raw = f"u{rng.randint(1, 999)}:{_password(rng)}".encode()
        auth = base64.b64encode(raw).decode()
        return f"Authorization: {rng.choice(['Basic', 'basic', 'BASIC'])} {auth}", auth
    elif kind == "cli-password":
        pw = _password(rng)
        tool = rng.choice(["mysql", "mysqldump", "mysqladmin"])
        return f"{tool} -h db.internal -u svc_{rng.randint(1, 99)} -p{pw} app", pw
    elif kind == "secret-assignment":
        name = rng.choice(
            ["DB_PASSWORD", "password", "client_secret", "SECRET_KEY", "api_key", "auth_token",
             "Passwd", "APIKEY"]
        )  # fmt: skip
        value = _mixed(rng, VALUE, rng.randint(12, 40))
        quote = rng.choice(['"', "'", ""])
        sep = rng.choice(["=", " = ", ": ", '": ']) if quote else rng.choice(["=", ": "])
        if sep == '": ':
            name = f'"{name}'
        return f"{name}{sep}{quote}{value}{quote}", value
    else:
        msg = f"no sample for kind {kind!r}"
        raise ValueError(msg)
    return v, v


def sample_decoy(rng: random.Random) -> str:
    """Text that looks secret-ish but no rule may redact."""
    choice = rng.randrange(len(_DECOYS) + 14)
    if choice >= 14:
        return _DECOYS[choice - 14]
    if choice == 0:
        return "AKIAIOSFODNN7EXAMPLE"  # the AWS documentation key
    if choice == 1:
        return "akia" + _rand(rng, string.ascii_lowercase + string.digits, 16)
    if choice == 2:
        return "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice([32, 40, 64])))
    if choice == 3:
        h = "".join(rng.choice("0123456789abcdef") for _ in range(32))
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    if choice == 4:
        return "sk-" + "-".join(
            rng.choice(["learn", "style", "compat", "estimator", "api"]) for _ in range(4)
        )
    if choice == 5:
        return "ghp_" + _rand(rng, ALNUM, 12)  # too short
    if choice == 6:
        return "sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    if choice == 7:
        return "postgres://user:password@localhost:5432/db"
    if choice == 8:
        return "http://host:8080/path@ref"
    if choice == 9:
        return "-----BEGIN PUBLIC KEY-----"
    if choice == 10:
        return "Bearer token"
    if choice == 11:
        return "xoxb-short"
    if choice == 12:
        return "fw_configuration_manager"
    return "self.hf_hub_download(repo_id)"


# Look-alikes of the key-name and prefix rules added for issue 12.
_DECOYS = (
    "password = os.environ['DB_PASSWORD']",
    "token = get_token(session)",
    "secret: ${SECRET_VALUE}",
    "api_key=settings.API_KEY",
    "machine learning password reset link",
    "SK0123456789abcdef",
    "SG.short.token",
    "npm_install_hook",
    "pypi-token",
    "at 10:30:45:123:done",
    '"auth": "oauth2"',
    "PASSWORD_MIN_LENGTH = 12",
    "if password == confirm_password:",
    "aws_secret_access_key = <your-secret-key>",
    "AccountKey=;EndpointSuffix=core.windows.net",
    "localhost:5432:app:svc:password",
)

"""Classify backend failures. An outage (unreachable, credentials, quota, server error)
is an InfrastructureError: the item is unmeasured, never scored as a failure."""

from __future__ import annotations

from gaia_eval.core.errors import GaiaEvalError, InfrastructureError

# Providers answer an exhausted balance or a bad key with a 400 too; it is still an
# outage, not a bad request (the original surfaced it as a traceback that read like a
# regression). A 400 is classified by these phrases (matched case-insensitively on the
# error text and body); one table for every backend, the agent driver and the harnesses.
QUOTA_PHRASES = (
    "credit balance",
    "purchase credits",
    "out of credit",
    "insufficient credit",
    "insufficient quota",
    "insufficient_quota",
    "quota",
    "billing",
    "spend limit",
    "usage limit",
    "weekly limit",
    "rate limit",
    "rate_limit_error",
    "limit resets",
    "upgrade your plan",
)
CREDENTIAL_PHRASES = (
    "authentication_error",
    "authentication failed",
    "invalid api key",
    "invalid x-api-key",
    "invalid bearer token",
    "invalid_token",
    "unauthorized",
    "token has expired",
    "not logged in",
)


class ModelRequestError(GaiaEvalError):
    """The backend was reachable and refused the request itself (a real failure)."""


def phrase_kind(text: str) -> str | None:
    """ "quota" or "credentials" when `text` says so; None when it says neither or both
    (both: the text is not about one outage, so it is left unclassified)."""
    low = text.lower()
    quota = any(p in low for p in QUOTA_PHRASES)
    credentials = any(p in low for p in CREDENTIAL_PHRASES)
    if quota == credentials:
        return None
    return "quota" if quota else "credentials"


def classify_status(status: int, body: str) -> str:
    """One of: credentials, quota, server, bad_request."""
    if status in (401, 403):
        return "credentials"
    if status in (402, 429):  # Payment Required, Too Many Requests: quota whatever it says
        return "quota"
    kind = phrase_kind(body)
    if kind is not None:
        return kind
    if status >= 500 or status in (404, 408):
        # 404: wrong base URL or model not served; 408: gateway timeout. Neither says
        # anything about the agent.
        return "server"
    return "bad_request"


def error_for_status(backend: str, status: int, body: str) -> GaiaEvalError:
    kind = classify_status(status, body)
    snippet = " ".join(body.split())[:300]
    if kind == "bad_request":
        return ModelRequestError(f"{backend} rejected the request (HTTP {status}): {snippet}")
    return InfrastructureError(f"{backend} outage ({kind}, HTTP {status}): {snippet}")


def unreachable(backend: str, err: BaseException) -> InfrastructureError:
    return InfrastructureError(f"{backend} unreachable: {type(err).__name__}: {err}")

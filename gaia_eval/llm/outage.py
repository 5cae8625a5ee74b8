"""Classify backend failures. An outage (unreachable, credentials, quota, server error)
is an InfrastructureError: the item is unmeasured, never scored as a failure."""

from __future__ import annotations

from gaia_eval.core.errors import GaiaEvalError, InfrastructureError

# Providers answer an exhausted balance with a 400; it is still an outage, not a bad
# request (the original surfaced it as a traceback that read like a regression).
_QUOTA_WORDS = ("credit balance", "quota", "insufficient_quota", "billing", "rate limit")


class ModelRequestError(GaiaEvalError):
    """The backend was reachable and refused the request itself (a real failure)."""


def classify_status(status: int, body: str) -> str:
    """One of: credentials, quota, server, bad_request."""
    low = body.lower()
    if status in (401, 403):
        return "credentials"
    if status == 429 or any(w in low for w in _QUOTA_WORDS):
        return "quota"
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

"""Model specs (docs/architecture.md, "Model specs"): one string names the backend and model.

- `openai:<base_url>#<model>`: any OpenAI-compatible server;
- `anthropic:<model>`: Claude through the anthropic SDK;
- `claude-code:<model>`: the `claude` CLI;
- `local` / `local:<name>`: the embedded llama.cpp server (gaia_eval.llm.local_server),
  started for the run; `resolve` turns it into the `openai` spec of the running server;
- a bare name: an OpenAI-compatible model at $GAIA_EVAL_OPENAI_BASE_URL.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from gaia_eval.core.errors import InvalidInputError

REMOTE_JOBS = 4
"""Default items in flight against a remote endpoint (a hosted API or a server of yours):
enough to hide its latency, few enough not to trip a rate limit at once."""

BASE_URL_ENV = "GAIA_EVAL_OPENAI_BASE_URL"
OPENAI_KEY_ENV = "GAIA_EVAL_OPENAI_API_KEY"

Backend = Literal["openai", "anthropic", "claude-code", "local"]


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec; `text` is recorded in every result exactly as given."""

    backend: Backend
    model: str
    base_url: str | None
    text: str


def parse_model_spec(spec: str, flag: str = "--model") -> ModelSpec:
    """Parse a spec; a missing piece is an error naming the flag (and the variable)."""
    spec = spec.strip()
    if not spec:
        msg = f"{flag}: empty model spec; e.g. 'openai:http://127.0.0.1:8000/v1#qwen3'"
        raise InvalidInputError(msg)
    if spec.startswith("openai:"):
        rest = spec[len("openai:") :]
        base, sep, model = rest.rpartition("#")
        if not sep or not base or not model:
            msg = f"{flag} {spec!r}: expected 'openai:<base_url>#<model>'"
            raise InvalidInputError(msg)
        if not base.startswith(("http://", "https://")):
            msg = f"{flag} {spec!r}: the base URL must start with http:// or https://"
            raise InvalidInputError(msg)
        return ModelSpec("openai", model, base.rstrip("/"), spec)
    for prefix in ("anthropic:", "claude-code:"):
        if spec.startswith(prefix):
            model = spec[len(prefix) :]
            if not model:
                msg = f"{flag} {spec!r}: expected '{prefix}<model>'"
                raise InvalidInputError(msg)
            backend: Backend = "anthropic" if prefix == "anthropic:" else "claude-code"
            return ModelSpec(backend, model, None, spec)
    if spec == "local" or spec.startswith("local:"):
        from gaia_eval.llm.local_weights import DEFAULT_LOCAL_MODEL, weights_for

        name = spec[len("local:") :] if spec.startswith("local:") else DEFAULT_LOCAL_MODEL
        try:
            weights_for(name)
        except InvalidInputError as err:
            msg = f"{flag} {spec!r}: {err}"
            raise InvalidInputError(msg) from None
        return ModelSpec("local", name, None, spec)
    base = os.environ.get(BASE_URL_ENV, "").strip()
    if not base:
        msg = (
            f"{flag} {spec!r}: a bare model name needs the server's URL; set {BASE_URL_ENV} "
            f"or write the spec as 'openai:<base_url>#{spec}'"
        )
        raise InvalidInputError(msg)
    return ModelSpec("openai", spec, base.rstrip("/"), spec)


def resolve(spec: ModelSpec) -> ModelSpec:
    """The spec to send requests to: a `local` spec becomes the `openai` spec of this
    process's shared local server (started on first use, stopped at exit); the recorded
    text stays as given. Other specs are returned unchanged."""
    if spec.backend != "local":
        return spec
    from gaia_eval.llm.local_server import shared_server

    server = shared_server(spec.model)
    return ModelSpec("openai", spec.model, server.openai_base_url, spec.text)


def default_jobs(*specs: ModelSpec | None) -> int:
    """The documented default of `--jobs` for a model-facing suite: the embedded local
    model's slot count (what it decodes at once), REMOTE_JOBS for a remote endpoint, the
    smallest over the specs given; 1 when no model is used."""
    fits = []
    for spec in specs:
        if spec is None:
            continue
        if spec.backend == "local":
            from gaia_eval.llm.local_server import local_slots

            fits.append(local_slots())
        else:
            fits.append(REMOTE_JOBS)
    return min(fits, default=1)


def default_jobs_for(*texts: str | None) -> int:
    """`default_jobs` of spec texts as a run records them; one that does not parse (it is
    refused with its own message elsewhere) counts as a remote endpoint."""
    specs: list[ModelSpec | None] = []
    for text in texts:
        if not text:
            continue
        try:
            specs.append(parse_model_spec(text))
        except InvalidInputError:
            specs.append(ModelSpec("openai", text, None, text))
    return default_jobs(*specs)

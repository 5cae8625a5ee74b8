"""Claude through the `anthropic` SDK (extra `anthropic`), imported only when used.

The SDK reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL itself, or takes them as
arguments. The base URL is the server's root: the SDK appends `/v1/messages` (so the local
llama.cpp server is `http://127.0.0.1:PORT`, without `/v1`).
"""

from __future__ import annotations

from typing import Any

from gaia_eval.core import limits
from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.llm.outage import error_for_status, unreachable


class AnthropicChat:
    """Plain text completions from one Claude model."""

    def __init__(
        self,
        model: str,
        timeout_s: float = 300.0,
        max_retries: int = 2,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
    ) -> None:
        try:
            import anthropic
        except ModuleNotFoundError as err:
            from gaia_eval.core.extras import install_hint

            msg = f"anthropic:<model> needs the anthropic SDK: {install_hint('anthropic')}"
            raise InvalidInputError(msg) from err
        self._sdk: Any = anthropic
        try:
            self._client = anthropic.Anthropic(
                timeout=timeout_s, max_retries=max_retries, base_url=base_url, api_key=api_key
            )
        except anthropic.AnthropicError as err:  # no API key configured
            msg = f"anthropic:{model}: cannot start the client ({err}); set ANTHROPIC_API_KEY"
            raise InfrastructureError(msg) from err
        self.model = model
        self._base_url = base_url or "https://api.anthropic.com"

    def close(self) -> None:
        """Close the SDK's connection pool (an open socket left to the GC warns)."""
        self._client.close()

    def complete(self, system: str, prompt: str, max_tokens: int = 8000) -> tuple[str, int, int]:
        """(text, input_tokens, output_tokens)."""
        sdk = self._sdk
        lim = limits.limiter(self._base_url)
        try:
            with lim.slot():  # the SDK retries inside; the cap and backoff span workers
                reply = self._client.messages.create(
                    model=self.model,
                    max_tokens=max_tokens,
                    system=system,
                    messages=[{"role": "user", "content": prompt}],
                )
            lim.ok()
        except sdk.APIConnectionError as err:  # includes timeouts
            raise unreachable(f"anthropic:{self.model}", err) from err
        except sdk.APIStatusError as err:
            after = limits.retry_after_s(err.response.headers.get("retry-after"))
            if limits.is_throttle(err.status_code, after):
                lim.throttled(after)  # the other workers wait before their next request
            raise error_for_status(
                f"anthropic:{self.model}", err.status_code, str(err.message)
            ) from err
        text = "".join(getattr(block, "text", "") for block in reply.content)
        usage = reply.usage
        # input_tokens leaves out the prompt tokens read from or written to the prompt
        # cache; the prompt is all of them (as OpenAI's prompt_tokens counts them).
        prompt_tokens = int(usage.input_tokens or 0)
        prompt_tokens += int(getattr(usage, "cache_read_input_tokens", 0) or 0)
        prompt_tokens += int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
        return text, prompt_tokens, int(usage.output_tokens or 0)

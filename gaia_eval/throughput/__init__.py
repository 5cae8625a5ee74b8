"""Model-serving benchmark (`gaia-eval benchmark`): TTFT, inter-token latency, tokens/s and
load sweeps against any OpenAI-compatible or Anthropic streaming endpoint."""

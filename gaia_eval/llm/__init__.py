"""Model backends: model-spec parsing, an OpenAI-compatible chat client, Claude through the
anthropic SDK, and the outage classification that turns backend failures into
InfrastructureError (never a score)."""

"""Session replay: recorded Claude Code transcripts turned into cases (`gaia-eval sessions`)."""

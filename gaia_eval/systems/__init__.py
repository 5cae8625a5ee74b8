"""Reference systems under test: strong defaults every suite runs out of the box."""

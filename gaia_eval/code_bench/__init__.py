"""The code benchmark (`gaia-eval code`): code-editing tasks scored by running their tests,
visible and hidden, with an honesty check of what the agent says it did."""

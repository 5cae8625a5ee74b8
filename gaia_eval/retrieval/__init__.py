"""The RAG retrieval benchmark (`gaia-eval retrieval --component rag`)."""

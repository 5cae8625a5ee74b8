"""The reference RAG system: extraction, chunking, embedding, FAISS, two pipelines."""

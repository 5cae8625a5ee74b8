"""The memory suite: months of chats against a memory system; does it update, forget, keep
lessons and reminders, and say where each memory came from (`gaia-eval memory`)."""

"""Reference agents: deterministic Inspect model providers that read only the conversation text."""

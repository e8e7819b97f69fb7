"""One module per LLM call: its typed input, its bounded response model and its messages."""

"""Tuneplan: plan LLM fine-tuning jobs (memory, time, cost) before renting a GPU."""

__version__ = "0.1.0"

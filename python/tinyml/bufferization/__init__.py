"""Bufferization: the helpers around upstream one-shot bufferization (empty
tensors split, copies forwarded) and the static plan that puts every
intermediate buffer in one arena (`planner.py`, pure Python, and its pass)."""
from . import forward_copies, plan_memory, split_empty_tensors  # noqa: F401

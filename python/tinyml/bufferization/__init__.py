"""Bufferization: the helpers around upstream one-shot bufferization (empty
tensors split, copies forwarded, allocations hoisted out of branches) and
the static plan that puts every intermediate buffer in one arena
(`planner.py`, pure Python, and its pass)."""
from . import forward_copies, hoist_branch_allocs, plan_memory, split_empty_tensors  # noqa: F401

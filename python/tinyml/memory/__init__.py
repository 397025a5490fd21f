"""Memory: an execution order with a low peak, bufferization helpers, and
the static plan that puts every intermediate buffer in one arena."""
from . import plan_memory, schedule_for_memory, split_empty_tensors  # noqa: F401

"""Memory: an execution order with a low peak, groups computed in place,
bufferization helpers, and
the static plan that puts every intermediate buffer in one arena."""
from . import compute_in_place, fuse_row_bands, plan_memory, schedule_for_memory  # noqa: F401
from . import split_empty_tensors  # noqa: F401

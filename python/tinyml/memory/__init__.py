"""Memory: an execution order with a low peak, groups computed in place,
bufferization helpers, and
the static plan that puts every intermediate buffer in one arena."""
from . import (compute_in_place, forward_copies, fuse_line_buffer, fuse_row_bands,  # noqa: F401
               plan_memory, schedule_for_memory)
from . import split_empty_tensors  # noqa: F401

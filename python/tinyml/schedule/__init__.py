"""Schedule: the tinyml-level memory passes, on tensors: an execution order
with a low peak (and the liveness graph it is computed on), groups computed
in place, row bands and line buffers."""
from . import compute_in_place, fuse_line_buffer, fuse_row_bands, schedule_for_memory  # noqa: F401

"""Schedule: the tinyml-level memory passes, on tensors: an execution order
with a low peak (and the liveness graph it is computed on), groups computed
in place, row bands, line buffers and input transposes read window by
window."""
from . import compute_in_place, fuse_input_transpose, fuse_line_buffer  # noqa: F401
from . import fuse_row_bands, schedule_for_memory  # noqa: F401

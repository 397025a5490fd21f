"""tinyml -> tinyml: graph clean-ups and fusion (dispatch-region formation)."""
from . import cancel_transposes, fold_batch_norm, fold_constants  # noqa: F401
from . import fuse_conv_epilogue, fuse_elementwise, fuse_reduction, quantize_ops  # noqa: F401
from . import read_final_state, simplify, tabulate_int8_functions  # noqa: F401

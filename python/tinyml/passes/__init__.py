"""All tinyml passes. Importing this package registers every pass."""
from . import choose_tiles, dce, fuse_conv_epilogue, fuse_elementwise, fuse_reduction  # noqa: F401
from . import kernel_lines, layout, lower_to_linalg, number_kernels  # noqa: F401
from . import fold_batch_norm, fold_constants, simplify  # noqa: F401
from . import index_width, lower_copies, lower_vectors, outline_kernels  # noqa: F401
from . import decompose_pads, plan_memory, reorder, transform_script  # noqa: F401
from .. import fused_lowering  # noqa: F401,E402  (registers the tinyml.fused lowering)
from .registry import (  # noqa: F401
    Option,
    Pass,
    PassError,
    PipelineError,
    lookup,
    register,
    registered_passes,
)

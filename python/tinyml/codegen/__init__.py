"""linalg -> loops -> LLVM: the lowering configuration of each group, the
transform scripts that tile and vectorize it, the loop-level clean-ups and
the kernels as functions of their own."""
from . import attach_transform_script, choose_tiles, contract_to_mve_dot, contract_to_smlad  # noqa: F401
from . import decompose_pads, high_products_to_smmlar, interleave_channel_tables  # noqa: F401
from . import erase_transform_script, kernel_lines, lower_copies, lower_int16_extensions  # noqa: F401
from . import lower_vectors  # noqa: F401
from . import outline_kernels, pack_channel_weights, pair_depthwise_taps, read_in_place  # noqa: F401
from . import set_index_width, stage_window_channels, widen_conv_inputs  # noqa: F401
from . import scalarize_epilogues, scalarize_multiply_accumulates, unsigned_planes  # noqa: F401
from . import unsigned_weights, winograd_rows  # noqa: F401

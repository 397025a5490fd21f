# The generated `_tinyml_ops_gen.py` imports its helpers relative to its own
# package, as upstream dialect modules do; re-export upstream's.
from mlir.dialects._ods_common import (  # noqa: F401
    _cext,
    equally_sized_accessor,
    get_default_loc_context,
    get_op_result_or_op_results,
    get_op_result_or_value,
    get_op_results_or_values,
    segmented_accessor,
)

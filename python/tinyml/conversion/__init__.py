"""tinyml -> linalg, tensor, arith and math: each op (or fused group) as the
upstream ops that compute it, each kernel numbered for the profile."""
from . import expand_wide_multiplies, integer_conversions, lower_to_linalg  # noqa: F401
from . import number_kernels  # noqa: F401  (registers the passes)

"""tinyml -> linalg, tensor, arith and math: each op (or fused group) as the
upstream ops that compute it, each kernel numbered for the profile."""
from . import integer_conversions, lower_to_linalg, number_kernels  # noqa: F401  (registers the passes)

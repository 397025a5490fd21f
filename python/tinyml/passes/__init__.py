"""All tinyml passes. Importing this package registers every pass."""
from . import dce  # noqa: F401
from .registry import (  # noqa: F401
    Option,
    Pass,
    PassError,
    PipelineError,
    lookup,
    register,
    registered_passes,
)

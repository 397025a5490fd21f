"""The tinyml dialect's op classes: `tinyml.dialects.tinyml.Conv2DOp`, ..."""
from ._tinyml_ops_gen import *  # noqa: F401,F403

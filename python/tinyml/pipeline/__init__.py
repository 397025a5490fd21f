"""The pass registry (`registry`), the pipeline builder (`builder`) and the
compiler as named stages (`stages`)."""
from .builder import Pipeline

__all__ = ["Pipeline"]

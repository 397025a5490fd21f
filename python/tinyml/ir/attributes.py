"""Reading tinyml op attributes. ODS does not materialize default-valued
attributes, so a reader takes the default the op's definition declares."""
from __future__ import annotations

from typing import Mapping, Sequence

from mlir import ir


def attr_float(attrs: Mapping[str, ir.Attribute], name: str, default: float | None = None) -> float:
    """A float attribute's value; `default` when absent (ODS default-valued
    attributes are not materialized)."""
    try:
        return float(ir.FloatAttr(attrs[name]).value)
    except (KeyError, IndexError):
        if default is None:
            raise
        return default


def attr_ints(attrs: Mapping[str, ir.Attribute], name: str, default: Sequence[int] | None = None) -> list[int]:
    try:
        return list(ir.DenseI64ArrayAttr(attrs[name]))
    except (KeyError, IndexError):
        if default is None:
            raise
        return list(default)


def attr_int(attrs: Mapping[str, ir.Attribute], name: str) -> int:
    return ir.IntegerAttr(attrs[name]).value


def attr_flag(attrs: Mapping[str, ir.Attribute], name: str) -> bool:
    return name in attrs


# The defaults the windowed ops (conv2d, depthwise_conv2d, the pools)
# declare in ODS for their optional attributes.
DEFAULT_STRIDES = (1, 1)
DEFAULT_DILATIONS = (1, 1)
DEFAULT_PADDING = (0, 0, 0, 0)


def window_attributes(attrs: Mapping[str, ir.Attribute]) -> tuple[list[int], list[int], list[int]]:
    """(strides, dilations, padding) of a windowed op, defaults applied; a
    pool has no dilations: (1, 1)."""
    return (attr_ints(attrs, "strides", DEFAULT_STRIDES),
            attr_ints(attrs, "dilations", DEFAULT_DILATIONS),
            attr_ints(attrs, "padding", DEFAULT_PADDING))


def inverse_permutation(perm: Sequence[int]) -> list[int]:
    """The permutation that undoes `perm` (a transpose's attribute)."""
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return inverse

"""Shape computations folded at import time.

A model converted with a dynamic batch computes its shapes at run time:
Keras's `Flatten` becomes SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE, the
new shape built from the input's batch. Once the batch is fixed every
shape is known, so an operator whose inputs are all known integers (or, for
SHAPE, any tensor, whose shape is static) is evaluated here with numpy and
its output becomes a constant of the graph, as if the converter had
written it; the operators that read it (RESHAPE's new shape) see a
constant like any other. Nothing of it reaches the IR."""
from __future__ import annotations

import numpy as np

from ..onnx.importer import shape_text

#: The integer tensor types a shape computation runs on.
INTEGER_TYPES = {"INT32": np.int32, "INT64": np.int64}


def _bits(mask: int, rank: int) -> list[bool]:
    return [bool(mask >> axis & 1) for axis in range(rank)]


def strided_slice(x: np.ndarray, begin, end, strides, options) -> np.ndarray:
    """TFLite's STRIDED_SLICE on a constant, with its begin, end and
    shrink-axis masks (no ellipsis or new axis: the caller refuses those)."""
    return np.asarray(x[tuple(slice_index(x.ndim, begin, end, strides, options))])


def slice_index(rank: int, begin, end, strides, options) -> list[int | slice]:
    """STRIDED_SLICE's selection as a numpy index, an int per shrunk axis."""
    begin_mask = _bits(options.get("BeginMask", 0), rank)
    end_mask = _bits(options.get("EndMask", 0), rank)
    shrink = _bits(options.get("ShrinkAxisMask", 0), rank)
    index: list[int | slice] = []
    for axis in range(rank):
        if shrink[axis]:
            index.append(int(begin[axis]))
            continue
        start = None if begin_mask[axis] else int(begin[axis])
        stop = None if end_mask[axis] else int(end[axis])
        if options.get("Offset") and stop is not None and start is not None:
            stop += start
        index.append(slice(start, stop, int(strides[axis])))
    return index


def evaluate(operator, values: list[np.ndarray], shape) -> np.ndarray | None:
    """The operator on constant inputs, its output of `shape`; None where it
    is not a shape computation tinyml folds. A computation numpy cannot do
    raises ValueError (IndexError, TypeError, ZeroDivisionError)."""
    kind, options = operator.kind, operator.options
    if kind == "STRIDED_SLICE":
        if options.get("EllipsisMask") or options.get("NewAxisMask"):
            raise ValueError("a strided slice with an ellipsis or new-axis mask is not "
                             "supported")
        return strided_slice(values[0], values[1], values[2], values[3], options)  # 4 inputs
    if kind == "PACK":
        return np.stack(values, axis=int(options.get("Axis", 0)))
    if kind == "CONCATENATION":
        return np.concatenate(values, axis=int(options.get("Axis", 0)))
    if kind == "GATHER":
        return np.take(values[0], values[1], axis=int(options.get("Axis", 0)))
    if kind in ("RESHAPE", "SQUEEZE", "EXPAND_DIMS"):
        return values[0].reshape(shape)
    if kind == "CAST":
        return values[0]
    if kind in _ARITHMETIC:
        return _ARITHMETIC[kind](values[0], values[1])
    if kind == "REDUCE_PROD":
        return np.prod(values[0], axis=tuple(np.reshape(values[1], -1).tolist()))
    return None


_ARITHMETIC = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply,
               "FLOOR_DIV": np.floor_divide}


def fold_shape_computation(im, operator) -> bool:
    """Evaluates `operator` at import time when it computes a shape: its
    one output becomes a constant. Whether it did."""
    if len(operator.outputs) != 1:
        return False
    out = im.tensors[operator.outputs[0]]
    dtype = INTEGER_TYPES.get(out.type_name)
    if dtype is None or out.quantization is not None:
        return False
    value: np.ndarray | None
    if operator.kind == "SHAPE":
        source = im.tensors[operator.inputs[0]] if operator.inputs else None
        if source is None or source.dynamic:
            return False  # the handler's error
        value = np.asarray(source.shape, dtype)
    else:
        inputs = [im.tensors[i] for i in operator.inputs if i >= 0]
        if not inputs or any(t.data is None or t.type_name not in INTEGER_TYPES
                             or t.quantization is not None for t in inputs):
            return False
        try:
            value = evaluate(operator, [np.asarray(t.data) for t in inputs], out.shape)
        except (ValueError, IndexError, TypeError, ZeroDivisionError) as error:
            raise im.fail(f"cannot evaluate the shape computation: {error}") from None
        if value is None:
            return False
    value = np.asarray(value).astype(dtype)
    if value.shape != tuple(out.shape):
        raise im.fail(f"output '{out.name}' has shape {shape_text(out.shape)}, the shape "
                      f"computation gives {shape_text(value.shape)}")
    out.data = value
    return True

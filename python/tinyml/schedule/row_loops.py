"""Building blocks of the loops over output rows that tinyml-fuse-row-bands
and tinyml-fuse-line-buffer build at the tinyml level: conv groups cloned
onto a few rows of their input, and the slices that feed and collect them.

Slices and loop-carried tensors of int8 data are of its storage type:
bufferization knows no quantized element type.
"""
from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.dialects import arith, tensor

from ..ir.attributes import window_attributes
from ..ir.lowering_config import IN_PLACE, LoweringConfig
from ..conversion.linalg_builders import ScalarBuilder
from ..ir.quant import is_quantized, storage_cast, storage_type, zero_points
from ..ir.values import shape_of
from .compute_in_place import overwritten_input

DYNAMIC = ir.ShapedType.get_dynamic_stride_or_offset()
DYNAMIC_SIZE = ir.ShapedType.get_dynamic_size()


def reads_only_weights_besides(group: ir.Operation, *others: ir.Value) -> bool:
    """The group reads its conv's input, the values `others` and, besides,
    only constants (its weights and bias, or their storage casts)."""
    source = overwritten_input(group)
    if source is None:
        return False
    for operand in group.operands:
        owner = operand.owner
        while not isinstance(owner, ir.Block) and owner.operation.name == "quant.scast":
            owner = owner.operation.operands[0].owner
        if operand != source and operand not in others and (
                isinstance(owner, ir.Block) or owner.operation.name != "arith.constant"):
            return False
    return True


def row_conv(group: ir.Operation, *others: ir.Value) -> ir.Operation | None:
    """The conv of a batch-1 group whose rows can be computed alone:
    configured, no dilation, its output the group's, reading only its input,
    weights and `others`."""
    root = group.opview.root
    if root is None or LoweringConfig.of(group) is None \
            or not reads_only_weights_besides(group, *others):
        return None
    _, dilations, _ = window_attributes(root.attributes)
    if list(dilations) != [1, 1] or shape_of(root.results[0]) != shape_of(group.results[0]) \
            or shape_of(root.results[0])[0] != 1:
        return None
    return root


def conv_of(group: ir.Operation) -> ir.Operation:
    """The conv of a group `row_conv` accepted."""
    root = group.opview.root
    assert root is not None, "a row conv group is built around its conv"
    return root


def input_window(root: ir.Operation, first: int, end: int) -> tuple[int, int, int, int]:
    """The input rows the conv `root` reads for its output rows [first,
    end): (first, count) clipped to its input and the padding above and
    below in their place."""
    (stride, _), _, (top, _, _, _) = window_attributes(root.attributes)
    kernel, height = shape_of(root.operands[1])[0], shape_of(root.operands[0])[1]
    in_first, in_end = first * stride - top, (end - 1) * stride - top + kernel
    above, below = max(0, -in_first), max(0, in_end - height)
    return in_first + above, in_end - below - in_first - above, above, below


def clone_on_rows(group: ir.Operation, at: ir.InsertionPoint,
                  sources: dict[int, ir.Value], out_shape: list[int],
                  padding: list[int] | None = None) -> ir.Operation:
    """A clone of `group` at `at` reading `sources` (operand index -> value)
    and computing an `out_shape` result: every value of the old output's
    shape inside it takes the new one; `padding` replaces its conv's. A
    clone is read and written whole, never over its input."""
    clone = group.clone(at)
    if IN_PLACE in clone.attributes:
        del clone.attributes[IN_PLACE]
    old_shape = shape_of(clone.results[0])
    block = clone.regions[0].blocks[0]
    for index, source in sources.items():
        clone.operands[index] = source
        block.arguments[index].set_type(source.type)

    def reshaped(value: ir.Value) -> None:
        t = value.type
        if isinstance(t, ir.RankedTensorType) and list(t.shape) == old_shape:
            value.set_type(ir.RankedTensorType.get(out_shape, t.element_type))

    for op in block.operations:
        for result in op.results:
            reshaped(result)
    reshaped(clone.results[0])
    if padding is not None:
        root = clone.opview.root
        assert root is not None, "`padding` is given for a conv group only"
        root.attributes["padding"] = ir.DenseI64ArrayAttr.get(padding)
    return clone


def stored(element: ir.Type) -> ir.Type:
    """The element type loops carry for `element`."""
    return storage_type(element) if is_quantized(element) else element


def as_element(value: ir.Value, element: ir.Type) -> ir.Value:
    """`value` seen as `element` (a storage cast), or itself if it is."""
    if ir.RankedTensorType(value.type).element_type == element:
        return value
    return storage_cast(value, element)


def padding_value(element: ir.Type) -> ir.Value:
    """What a conv's padding holds, in the type loops carry: zero, or an
    int8 input's zero point."""
    stored_element = stored(element)
    return ScalarBuilder(stored_element).const(
        zero_points(element)[0] if is_quantized(element) else 0)


def index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def extract_rows(source: ir.Value, first: ir.Value | int, rows: ir.Value | int) -> ir.Value:
    """Rows [first, first + rows) (dimension 1) of the batch-1 tensor
    `source`."""
    t = ir.RankedTensorType(source.type)
    dynamic = [first] if isinstance(first, ir.Value) else []
    dynamic_sizes = [rows] if isinstance(rows, ir.Value) else []
    sizes = [1, DYNAMIC_SIZE if dynamic_sizes else rows] + list(t.shape[2:])
    offsets = [0, DYNAMIC if dynamic else first] + [0] * (t.rank - 2)
    return tensor.ExtractSliceOp(ir.RankedTensorType.get(sizes, t.element_type), source,
                                 dynamic, dynamic_sizes, [], offsets, sizes,
                                 [1] * t.rank).result


def window_rows(root: ir.Operation, row: ir.Value,
                read: Callable[[ir.Value, ir.Value | int], ir.Value],
                fill: ir.Value, out_rows: int = 1) -> ir.Value:
    """The rows of its input the conv `root` reads for its `out_rows`
    output rows from `row` on ((out_rows - 1) * stride + kernel rows),
    read by `read(first, count)` and, where they fall outside its input,
    `fill` rows: the conv's top and bottom padding as amounts that depend
    on `row`, so that one body computes every band. A tile stages its
    window padded anyway (the transform script fuses the pad into it): no
    padded copy of the rows exists."""
    (stride, _), _, (top, _, _, _) = window_attributes(root.attributes)
    kernel, height = shape_of(root.operands[1])[0], shape_of(root.operands[0])[1]
    span = (out_rows - 1) * stride + kernel
    windows = [input_window(root, r, r + out_rows)
               for r in range(shape_of(root.results[0])[1] - out_rows + 1)]
    most_above, most_below = max(w[2] for w in windows), max(w[3] for w in windows)
    start = arith.subi(arith.muli(row, index(stride)), index(top))
    if not most_above and not most_below:
        return read(start, span)

    def padding(overhang: ir.Value, most: int) -> ir.Value:
        if not most:
            return index(0)
        # Bounded by the most any row has, which `row` alone does not
        # show: integer range analysis then proves that a tile's window
        # is never all padding (the tiled pad's guard for it is dead).
        return arith.minsi(arith.maxsi(overhang, index(0)), index(most))

    above = padding(arith.subi(index(0), start), most_above)
    below = padding(arith.subi(arith.addi(start, index(span)), index(height)), most_below)
    rows = read(arith.addi(start, above),
                arith.subi(arith.subi(index(span), above), below))
    t = ir.RankedTensorType(rows.type)
    shape = [1, span] + list(t.shape[2:])
    static = [0, DYNAMIC_SIZE] + [0] * (t.rank - 2)
    pad = tensor.PadOp(ir.RankedTensorType.get(shape, t.element_type), rows,
                       [above], [below], static, static)
    body = pad.regions[0].blocks.append(*([ir.IndexType.get()] * t.rank))
    with ir.InsertionPoint(body):
        tensor.YieldOp(fill)
    return pad.result


def insert_rows(rows: ir.Value, into: ir.Value, first: ir.Value | int) -> ir.Value:
    """`into` with `rows` stored from row `first` (dimension 1) on."""
    sizes = list(ir.RankedTensorType(rows.type).shape)
    dynamic = [first] if isinstance(first, ir.Value) else []
    offsets = [0, DYNAMIC if dynamic else first] + [0] * (len(sizes) - 2)
    return tensor.InsertSliceOp(rows, into, dynamic, [], [], offsets, sizes,
                                [1] * len(sizes)).result

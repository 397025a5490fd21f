"""tinyml-pack-channel-weights: a depthwise conv's weights ([kh][kw][c], a
rank-3 constant) read one value at a time, as a DSP core's depthwise tiles
of one channel read them, laid out channel first ([c][kh][kw]).

A tile of one channel multiplies its kh x kw taps by weights 64 bytes
apart (a 64-channel layer): LLVM keeps a pointer per tap, on the stack
when the registers run out, and each tap's weight costs two loads. Channel
first, the channel's taps are consecutive bytes at one base register's
immediate offsets. Every read of the constant must be a load of one
element, its indices then permuted the same way; a constant read in
vectors (a tile of several channels, the M0's) keeps its layout."""
import numpy as np
from mlir import ir
from mlir.dialects import memref, vector

from ..ir.walk import constant_globals
from ..pipeline.registry import Pass, register

#: The permutation of the constant's dimensions: the channel (last) first.
CHANNEL_FIRST = (2, 0, 1)


def element_loads(get: ir.Operation) -> list[ir.Operation] | None:
    """The loads reading `get`'s buffer, if each loads one element."""
    loads = []
    for use in get.results[0].uses:
        load = use.owner.operation
        if load.name not in ("vector.load", "memref.load") or use.operand_number != 0:
            return None
        if load.name == "vector.load" and \
                int(np.prod(ir.VectorType(load.results[0].type).shape)) != 1:
            return None
        loads.append(load)
    return loads


def packed_value(value: ir.DenseElementsAttr, shape: list[int],
                 element: ir.Type) -> ir.DenseElementsAttr:
    tensor_type = ir.RankedTensorType.get(shape, element)
    if value.is_splat:
        return ir.DenseElementsAttr.get_splat(tensor_type, value.get_splat_value())
    array = np.array(ir.DenseIntElementsAttr(value))
    return ir.DenseElementsAttr.get(np.ascontiguousarray(np.transpose(array, CHANNEL_FIRST)),
                                    type=tensor_type)


@register
class PackChannelWeights(Pass):
    name = "tinyml-pack-channel-weights"
    summary = ("Lay out rank-3 integer constants read one element at a time (depthwise "
               "weights of one-channel tiles) channel first")

    def apply(self, module):
        for op, readers in constant_globals(module):
            memref_type = ir.MemRefType(ir.TypeAttr(op.attributes["type"]).value)
            loads = [element_loads(get) for get in readers]
            if memref_type.rank != 3 or not isinstance(memref_type.element_type, ir.IntegerType) \
                    or not readers or any(found is None for found in loads):
                continue
            shape = [memref_type.shape[d] for d in CHANNEL_FIRST]
            packed_type = ir.MemRefType.get(shape, memref_type.element_type)
            op.attributes["initial_value"] = packed_value(
                ir.DenseElementsAttr(op.attributes["initial_value"]), shape,
                memref_type.element_type)
            op.attributes["type"] = ir.TypeAttr.get(packed_type)
            for get, found in zip(readers, loads):
                with ir.InsertionPoint(get), get.location:
                    packed = memref.get_global(packed_type, op.attributes["sym_name"].value)
                for load in found:
                    indices = list(load.operands[1:])
                    permuted = [indices[d] for d in CHANNEL_FIRST]
                    with ir.InsertionPoint(load), load.location:
                        if load.name == "vector.load":
                            new = vector.load(load.results[0].type, packed, permuted)
                        else:
                            new = memref.load(packed, permuted)
                    load.results[0].replace_all_uses_with(new)
                    load.erase()
                get.erase()

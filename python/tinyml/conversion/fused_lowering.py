"""Lowering of a `tinyml.fused` group to linalg on tensors.

A group computes its root (a contraction or a reduction, if it has one)
and then the element-wise ops on its result, its epilogue:

- a conv, depthwise conv or matmul group becomes the root's named linalg
  op plus one element-wise epilogue `linalg.generic` reading it, which
  carries the group's `#tinyml.lowering` configuration: the group's
  transform script (codegen/attach_transform_script.py) tiles the epilogue and
  fuses the contraction into its tiles, so the accumulators meet the
  epilogue in registers;
- a reduction group (reduce_*, global_avg_pool, softmax) becomes the
  root's generics, as the op alone lowers (float_lowering.py),
  reading the element-wise prologue as they go: each generic's body
  computes the input element it reduces from the group's inputs, so the
  prologue's result is never stored; then the epilogue generic;
- an element-wise group is one `linalg.generic` over the output, its body
  the group's scalar formulas (`SCALAR_BODIES`) one after the other.

A group input (or constant) is an input of the generic reading it, with a
map broadcasting it numpy-style; a splat constant is a scalar in the body.
"""
from __future__ import annotations

from typing import Any

from mlir import ir

from ..dialects import tinyml as tm
from ..ir.attributes import window_attributes
from ..ir.builders import build
from ..ir.lowering_config import ATTRIBUTE, IN_PLACE, LoweringConfig
from ..ir.ops import CONTRACTIONS, REDUCTIONS, keyed_by_name
from ..ir.quant import has_quantized_data
from ..ir.values import shape_of
from ..pipeline.registry import PassError
from .float_lowering import FLOAT_LOWERINGS, REDUCTION_LOWERINGS
from .linalg_builders import (SCALAR_BODIES, Elements, ScalarBuilder, broadcast_map,
                              apply_lowering, build_generic, empty, identity_map,
                              pad_before_transpose)
from .quantized_lowering import QUANTIZED_LOWERINGS


class GroupLowering:
    def __init__(self, fused: ir.Operation):
        self.fused = fused
        self.block = fused.regions[0].blocks[0]
        self.outer = dict(zip(self.block.arguments, fused.operands))
        self.result_shape = tuple(shape_of(fused.results[0]))
        self.yielded = self.block.operations[len(self.block.operations) - 1].operands[0]
        self.scalars: dict[ir.Value, float] = {}
        self.transposed: list[ir.Value] = []  # the lowered transposes of group inputs
        self.hoist_constants()

    def hoist_constants(self) -> None:
        """Splat constants become scalars; other constants are cloned before
        the group and read like inputs."""
        for op in self.block.operations:
            op = op.operation
            if op.name != "arith.constant":
                continue
            value = ir.DenseElementsAttr(op.attributes["value"])
            if value.is_splat:
                self.scalars[op.results[0]] = float(ir.FloatAttr(value.get_splat_value()).value)
            else:
                self.outer[op.results[0]] = op.clone(ir.InsertionPoint(self.fused)).results[0]

    def leaves_of(self, value: ir.Value) -> list[ir.Value]:
        """The group inputs and constants the element-wise graph computing
        `value` reads: the inputs of a generic evaluating it."""
        leaves, stack, seen = [], [value], set()
        while stack:
            value = stack.pop()
            if value in seen:
                continue
            seen.add(value)
            if value in self.outer:
                leaves.append(value)
                continue
            owner = value.owner
            if not isinstance(owner, ir.Block) and owner.operation.name in SCALAR_BODIES:
                stack.extend(reversed(list(owner.operation.operands)))
        return leaves

    def build(self) -> ir.Value:
        root = self.fused.opview.root
        config = LoweringConfig.of(self.fused)
        if root is not None and root.name in CONTRACTIONS:
            if config is not None:
                check_config(config, root, self.fused.location)
            result = self.build_quantized_contraction(root, config) \
                if has_quantized_data(root) else self.build_contraction(root, config)
            self.pad_before_transposes()
            return result
        if config is not None:
            raise PassError("a tile needs a conv2d, depthwise_conv2d or matmul group",
                            self.fused.location)
        if root is not None and root.name in REDUCTIONS:
            return self.build_reduction(root)
        return self.build_elementwise_group()

    def build_contraction(self, root: ir.Operation, config: LoweringConfig | None) -> ir.Value:
        """The contraction as its linalg op, the epilogue as one element-wise
        `linalg.generic` reading it first, carrying the group's
        configuration. The contraction starts from the bias, except in a
        group with no epilogue, whose epilogue adds the bias instead: a
        copy would be folded away, and with it the op the transform script
        starts from (the script fuses the contraction and its
        initialisation into the epilogue's tiles)."""
        operands = [self.leaf(operand) for operand in root.operands]
        result = root.results[0]
        # A group marked in place (tinyml-compute-in-place) writes its
        # output over its input, the contraction's first operand.
        overwritten = operands[0] if IN_PLACE in self.fused.attributes else None
        bias = operands[2] if len(operands) > 2 and self.yielded == result else None
        with ir.InsertionPoint(self.fused), self.fused.location:
            clone = build(root.name, [result.type],
                          operands[:2] if bias is not None else operands,
                          {name: root.attributes[name] for name in root.attributes})
            contraction = FLOAT_LOWERINGS[root.name](clone.opview)
            clone.erase()
            if bias is None and self.yielded == result:
                return contraction  # no bias, no epilogue: nothing to anchor a tile to
            if bias is not None:
                shape = list(self.result_shape)
                (epilogue,) = build_generic(
                    [(contraction, identity_map(len(shape))),
                     (bias, broadcast_map(shape_of(bias), shape))],
                    [(overwritten or empty(shape), identity_map(len(shape)))],
                    ["parallel"] * len(shape), lambda b, args: b.add(args[0], args[1]))
            else:
                epilogue = self.build_epilogue(result, contraction, overwritten)
        if config is not None:
            epilogue.owner.operation.attributes[ATTRIBUTE] = config.attribute()
        if overwritten is not None:
            epilogue.owner.operation.attributes[IN_PLACE] = ir.UnitAttr.get()
        return epilogue

    def build_quantized_contraction(self, root: ir.Operation,
                                    config: LoweringConfig | None) -> ir.Value:
        """A quantized contraction, alone in its group: its integer lowering,
        whose requantizing generic reads the contraction first (the op the
        transform script starts from) and carries the configuration."""
        with ir.InsertionPoint(self.fused), self.fused.location:
            clone = build(root.name, [root.results[0].type],
                          [self.leaf(operand) for operand in root.operands],
                          {name: root.attributes[name] for name in root.attributes})
            lower = QUANTIZED_LOWERINGS[root.name]
            in_place = IN_PLACE in self.fused.attributes  # only conv groups are marked
            options: dict[str, Any] = {"in_place": True} if in_place else {}
            if root.name == tm.Conv2DOp.OPERATION_NAME and config is not None:
                options["channel_step"] = config.reduction[-1]
            result = lower(clone.opview, **options)
            clone.erase()
        requantize = result.owner.operation.operands[0].owner.operation
        if config is not None:
            requantize.attributes[ATTRIBUTE] = config.attribute()
        if in_place:
            requantize.attributes[IN_PLACE] = ir.UnitAttr.get()
        return result

    def build_reduction(self, root: ir.Operation) -> ir.Value:
        """The reduction's generics over its element-wise prologue, then the
        epilogue."""
        operand = root.operands[0]
        shape = shape_of(operand)
        leaves = self.leaves_of(operand)
        elements = Elements(
            shape, [(self.outer[leaf], broadcast_map(shape_of(leaf), shape)) for leaf in leaves],
            lambda b, args: self.evaluate(operand, b, dict(zip(leaves, args))))
        with ir.InsertionPoint(self.fused), self.fused.location:
            reduced = REDUCTION_LOWERINGS[root.name](root, elements)
            if self.yielded == root.results[0]:
                return reduced
            return self.build_epilogue(root.results[0], reduced)

    def build_epilogue(self, root_result: ir.Value, value: ir.Value,
                       overwritten: ir.Value | None = None) -> ir.Value:
        """The group's element-wise ops after its root, `value`, written
        over `overwritten` if given."""
        self.outer[root_result] = value
        if overwritten is not None:
            return self.build_elementwise_group(first=root_result, overwritten=overwritten)
        return self.build_elementwise_group(self.dying_full_size_input(), first=root_result)

    def build_elementwise_group(self, reused: ir.Value | None = None,
                          first: ir.Value | None = None,
                          overwritten: ir.Value | None = None) -> ir.Value:
        """One `linalg.generic` over the output, one element per iteration,
        written into a new tensor, or over the group input `reused` (a
        dying residual), read through the generic's `outs` argument: a
        tiled generic then reads and writes only its loop-carried tensor,
        which bufferization can update in place; or over `overwritten`,
        not read (an in-place group's input). The group input `first`
        (the root's result) is the generic's first input, where the
        transform script finds the op to fuse."""
        shape = list(self.result_shape)
        leaves = [leaf for leaf in self.leaves_of(self.yielded)
                  if reused is None or leaf != reused]
        if first is not None:
            leaves.sort(key=lambda leaf: leaf != first)
        inputs = [(self.outer[leaf], broadcast_map(shape_of(leaf), shape)) for leaf in leaves]

        def body(b: ScalarBuilder, args):
            known = dict(zip(leaves, args[: len(leaves)]))
            if reused is not None:
                known[reused] = args[-1]
            return self.evaluate(self.yielded, b, known)

        outs = (overwritten if overwritten is not None
                else empty(shape) if reused is None else self.outer[reused])
        with ir.InsertionPoint(self.fused), self.fused.location:
            (result,) = build_generic(inputs, [(outs, identity_map(len(shape)))],
                                      ["parallel"] * len(shape), body)
        return result

    def dying_full_size_input(self) -> ir.Value | None:
        """An input of the output's shape (a residual) computed by an op of
        this function and read by no op after this group: the group writes
        its result over it, element by element, each read before its write.
        Saves one buffer. Function arguments are the caller's: never."""
        block = self.fused.block

        def read_later(user: ir.Operation) -> bool:
            # Uses inside an earlier loop nest count at that nest. (Block
            # order, not a table of positions: that would cost the whole
            # function per group.)
            while user.block != block:
                if user.parent is None:
                    return True
                user = user.parent.operation
            return self.fused.is_before_in_block(user)

        for leaf in self.leaves_of(self.yielded):
            value = self.outer[leaf]
            if (isinstance(leaf.owner, ir.Block) and not isinstance(value.owner, ir.Block)
                    and shape_of(value) == list(self.result_shape)
                    and not any(read_later(use.owner.operation) for use in value.uses)):
                return leaf
        return None

    def evaluate(self, value: ir.Value, b: ScalarBuilder, known: dict) -> ir.Value:
        """The scalar `value` at the generic's iteration point, given the
        scalars `known` of the group's values there (the generic's block
        arguments)."""
        if value in known:
            return known[value]
        if value in self.scalars:
            result = b.const(self.scalars[value])
        else:
            owner = value.owner
            op = None if isinstance(owner, ir.Block) else owner.operation
            if op is None or op.name not in SCALAR_BODIES:
                raise PassError(f"'{op.name if op else 'a block argument'}' cannot be "
                                "evaluated inside a fused group",
                                op.location if op else self.fused.location)
            args = [self.evaluate(operand, b, known) for operand in op.operands]
            result = SCALAR_BODIES[op.name](b, op.attributes, args)
        known[value] = result
        return result

    def pad_before_transposes(self) -> None:
        """The conv pads its transposed input: padded first, then transposed
        (`pad_before_transpose`), so that the transform script fuses the
        transpose of each static-sized window into the tile, then the pad
        of the input it reads."""
        pending = list(self.transposed)
        while pending:
            for user in [use.owner.operation for use in pending.pop().uses]:
                if user.name == "quant.scast":
                    pending.append(user.results[0])
                elif user.name == "tensor.pad":
                    pad_before_transpose(user)

    def leaf(self, value: ir.Value) -> ir.Value:
        """The tensor behind a root operand that must be a group input or a
        constant (a splat one, kept as a scalar for element-wise use, is
        made again before the group: a one-channel bias is a splat), or the
        transpose of a group input (tinyml-fuse-input-transpose), lowered
        before the root: its transform script fuses it into the tiles."""
        if value not in self.outer:
            owner = value.owner
            op = None if isinstance(owner, ir.Block) else owner.operation
            if op is not None and op.name == "arith.constant":
                self.outer[value] = op.clone(ir.InsertionPoint(self.fused)).results[0]
            elif op is not None and op.name == tm.TransposeOp.OPERATION_NAME \
                    and op.operands[0] in self.outer:
                with ir.InsertionPoint(self.fused), self.fused.location:
                    clone = build(op.name, [value.type], [self.outer[op.operands[0]]],
                                  {name: op.attributes[name] for name in op.attributes})
                lowerings = QUANTIZED_LOWERINGS if has_quantized_data(op) else FLOAT_LOWERINGS
                (self.outer[value],) = apply_lowering(clone, lowerings[op.name])
                self.transposed.append(self.outer[value])
            else:
                raise PassError("a contraction's operands must be group inputs",
                                op.location if op is not None else self.fused.location)
        return self.outer[value]


def check_config(config: LoweringConfig, root: ir.Operation, location: ir.Location) -> None:
    """A configuration the transform script can follow: one tile size per
    output dimension, dividing it (the script masks no partial tile; it
    peels the pixel loop of an unpadded conv, whose pixel tile may leave
    part of a row), and one step per reduction dimension of the
    contraction (kh, kw, c of a conv; kh, kw of a depthwise conv; k of a
    matmul)."""
    out_shape = shape_of(root.results[0])
    _, _, padding = window_attributes(root.attributes)
    peeled = len(out_shape) - 2 if root.name == tm.Conv2DOp.OPERATION_NAME \
        and not any(padding) else None
    if len(config.tile) != len(out_shape) or any(
            size and dim % size and i != peeled
            for i, (size, dim) in enumerate(zip(config.tile, out_shape))):
        raise PassError(f"tile {list(config.tile)} does not divide the output "
                        f"{'x'.join(map(str, out_shape))}", location)
    steps = keyed_by_name({tm.Conv2DOp: 3, tm.DepthwiseConv2DOp: 2, tm.MatmulOp: 1})[root.name]
    if len(config.reduction) != steps:
        raise PassError(f"{len(config.reduction)} reduction steps for the {steps} reduction "
                        f"dimensions of '{root.name}'", location)


def lower_fused(op) -> ir.Value:
    fused = op.operation
    if len(fused.results) != 1:
        raise PassError("a fused group must have exactly one result", fused.location)
    return GroupLowering(fused).build()

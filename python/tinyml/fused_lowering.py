"""Lowering of a `tinyml.fused` group to linalg on tensors.

A conv, matmul or unpadded depthwise group (`fusion.upstream_tiled`)
becomes its named linalg op plus one element-wise epilogue `linalg.generic`
that carries the group's `#tinyml.lowering` configuration; the group's
transform script (passes/transform_script.py) tiles, fuses and vectorizes
them. Every other group becomes ONE loop nest with no intermediate tensor:
a `linalg.generic` over the group's output, parallel in every dimension,
whose body computes one output element and stores it once; or, for a padded
depthwise conv group carrying a configuration, `scf.for` loops whose body
computes a tile of outputs in registers (see `build_blocked`) -- the last
part of tinyml's hand-built generator, kept until a border split for
depthwise convs costs no flash.

The body evaluates the group's value graph at an index:
- an element-wise op is its scalar formula (`SCALAR_BODIES`) of its operands
  evaluated at the same index;
- the root of a padded depthwise group is an accumulation loop over the
  filter window (`scf.for` with the accumulator as iter_arg), starting from
  the bias; padding is skipped by the loop bounds, not tested per tap;
- the root of a `reduction` group (reduce_*, global_avg_pool, softmax) is a
  loop over the reduced dimensions that evaluates its element-wise prologue
  at each input index; softmax keeps a running maximum and a rescaled sum
  (one pass), then normalises the element at hand;
- a tensor leaf (group input or constant) read at the output index is an
  input of the generic with its broadcasting map; read anywhere else it is a
  `tensor.extract`.

The epilogue thus runs on the accumulator before the single store.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from itertools import product

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, math, scf, tensor

from .fusion import CONTRACTIONS, REDUCTIONS, group_root, interior_columns, upstream_tiled
from .lowering_config import ATTRIBUTE, LoweringConfig
from .passes.lower_to_linalg import (F32_LOWEST, LOWERINGS, SCALAR_BODIES, ScalarBuilder,
                                     attr_flag, attr_int, attr_ints, broadcast_map,
                                     build_generic, dense_const, empty, identity_map,
                                     shape_of)
from .passes.registry import PassError

ROOTS = CONTRACTIONS | REDUCTIONS


@dataclass
class Context:
    """An index into a tensor of `shape`; `output` marks the generic's own
    iteration point, where leaves are generic inputs."""
    shape: tuple[int, ...]
    indices: list[ir.Value]
    output: bool = False
    memo: dict = field(default_factory=dict)


class GroupLowering:
    def __init__(self, fused: ir.Operation):
        self.fused = fused
        self.block = fused.regions[0].blocks[0]
        self.outer = dict(zip(self.block.arguments, fused.operands))
        self.result_shape = tuple(shape_of(fused.results[0]))
        self.yielded = self.block.operations[len(self.block.operations) - 1].operands[0]
        self.scalars: dict[ir.Value, float] = {}
        self.packed: dict[ir.Value, ir.Value] = {}
        self.index_constants: dict[int, ir.Value] = {}
        self.hoist_constants()
        self.leaves = self.output_leaves()

    # -- set-up, outside the generic ------------------------------------

    def index(self, value: int) -> ir.Value:
        """The index constant `value`, made once per group at the top of the
        block (where canonicalize moves constants anyway): a tiled group
        asks for about a hundred, one op per request would be that many
        more for canonicalize to fold."""
        if value not in self.index_constants:
            with ir.InsertionPoint.at_block_begin(self.fused.block):
                self.index_constants[value] = arith.ConstantOp(ir.IndexType.get(), value).result
        return self.index_constants[value]

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

    def output_leaves(self) -> list[ir.Value]:
        """Tensor leaves read at the output index: the generic's inputs."""
        leaves, stack, seen = [], [self.yielded], set()
        while stack:
            value = stack.pop()
            if value in seen:
                continue
            seen.add(value)
            if value in self.outer:
                leaves.append(value)
                continue
            op = self.definer(value)
            if op is not None and op.name in SCALAR_BODIES:
                stack.extend(reversed(list(op.operands)))
        return leaves

    def definer(self, value: ir.Value) -> ir.Operation | None:
        owner = value.owner
        return None if isinstance(owner, ir.Block) else owner.operation

    # -- the generic --------------------------------------------------------

    def build(self) -> ir.Value:
        """A conv, matmul or unpadded depthwise group becomes linalg on
        tensors for its transform script to tile; a padded depthwise group
        is built as tile loops when it carries a lowering configuration;
        other groups are untiled (one element per iteration)."""
        root = self.root()
        config = LoweringConfig.of(self.fused)
        if root is not None and root.name in CONTRACTIONS and upstream_tiled(root):
            if config is not None:
                check_config(config, root, self.fused.location)
            return self.build_linalg(root, config)
        if config is None:
            return self.build_single()
        if root is None or root.name not in BLOCKED_EMITTERS:
            raise PassError("a tile needs a conv2d, depthwise_conv2d or matmul group",
                            self.fused.location)
        if len(config.tile) != 4 or config.tile[:2] != (1, 1):
            raise PassError(f"tile {list(config.tile)} must be [1, 1, pixels, channels]",
                            self.fused.location)
        pixels, channels = config.tile[2:]
        if pixels < 1 or channels < 1 or self.result_shape[-1] % channels:
            raise PassError(f"tile [{pixels}, {channels}] does not divide the "
                            f"{self.result_shape[-1]} output channels", self.fused.location)
        if shape_of(root.operands[1])[3] > 1 and channels > 1:
            raise PassError("a depthwise conv with a channel multiplier takes tiles of one "
                            "channel", self.fused.location)
        if pixels > 1 and pixels > interior_columns(root)[1]:
            raise PassError(f"tile of {pixels} pixels is wider than the row's interior",
                            self.fused.location)
        if (pixels, channels) == (1, 1):
            return self.build_single()
        return self.build_blocked(pixels, channels)

    def build_linalg(self, root: ir.Operation, config: LoweringConfig | None) -> ir.Value:
        """The contraction as its linalg op, the epilogue as one element-wise
        `linalg.generic` reading it first; a dying residual of the output's
        shape is also the generic's `outs`, for bufferization to write over
        in place. The epilogue carries the group's configuration. The
        contraction starts from the bias, except in a group with no
        epilogue, whose epilogue adds the bias instead: a copy would be
        folded away, and with it the op the transform script starts from
        (the script fuses the contraction and its initialisation into the
        epilogue's tiles)."""
        operands = [self.leaf(operand) for operand in root.operands]
        result = root.results[0]
        bias = operands[2] if len(operands) > 2 and self.yielded == result else None
        with ir.InsertionPoint(self.fused), self.fused.location:
            clone = ir.Operation.create(root.name, results=[result.type],
                                        operands=operands[:2] if bias is not None else operands,
                                        attributes={name: root.attributes[name] for name in root.attributes})
            contraction = LOWERINGS[root.name](clone.opview)
            clone.erase()
            if bias is None and self.yielded == result:
                return contraction  # no bias, no epilogue: nothing to anchor a tile to
            if bias is not None:
                shape = list(self.result_shape)
                (epilogue,) = build_generic(
                    [(contraction, identity_map(len(shape))),
                     (bias, broadcast_map(shape_of(bias), shape))],
                    [(empty(shape), identity_map(len(shape)))], ["parallel"] * len(shape),
                    lambda b, args: b.add(args[0], args[1]))
            else:
                self.outer[result] = contraction
                self.leaves = [result] + [leaf for leaf in self.output_leaves() if leaf != result]
                epilogue = self.build_single(self.dying_full_size_input())
        if config is not None:
            epilogue.owner.operation.attributes[ATTRIBUTE] = config.attribute()
        return epilogue

    def root(self) -> ir.Operation | None:
        return group_root(self.fused)

    def build_single(self, reused: ir.Value | None = None) -> ir.Value:
        """One `linalg.generic` over the output, one element per iteration,
        written into a new tensor, or over the group input `reused` (a
        dying residual), read through the generic's `outs` argument: a
        tiled generic then reads and writes only its loop-carried tensor,
        which bufferization can update in place."""
        shape = list(self.result_shape)
        leaves = [leaf for leaf in self.leaves if reused is None or leaf != reused]
        inputs = [(self.outer[leaf], broadcast_map(shape_of(leaf), shape)) for leaf in leaves]

        def body(b: ScalarBuilder, args):
            self.b = b
            indices = [linalg.IndexOp(d).result for d in range(len(shape))] if self.needs_indices() else []
            ctx = Context(self.result_shape, indices, output=True)
            ctx.memo.update(zip(leaves, args[: len(leaves)]))
            if reused is not None:
                ctx.memo[reused] = args[-1]
            return self.eval(self.yielded, ctx)

        outs = empty(shape) if reused is None else self.outer[reused]
        (result,) = build_generic(inputs, [(outs, identity_map(len(shape)))],
                                  ["parallel"] * len(shape), body)
        return result

    def build_blocked(self, pixels: int, channels: int) -> ir.Value:
        """A loop nest whose body computes a tile of `pixels` neighbouring
        outputs of a row times `channels` neighbouring output channels: each
        input value loaded feeds `channels` accumulators, each weight
        `pixels` of them, all held in registers; the weights of a tile are
        contiguous. linalg.generic yields one element per iteration, so
        this group is built as `scf.for` loops carrying the result tensor,
        written with `tensor.insert` (bufferized in place). With pixel
        tiles, each row runs a loop over the interior tiles, then one over
        the columns left (the padded borders), a pixel at a time."""
        shape = list(self.result_shape)
        channel_tiles = (self.index(0), self.index(shape[-1] // channels))
        self.b = ScalarBuilder()
        reused = self.dying_full_size_input()
        init = empty(shape) if reused is None else self.outer[reused]
        tile = partial(self.store_tile, channels=channels, reused=reused)
        if pixels == 1:
            bounds = [(self.index(0), self.index(n)) for n in shape[:-1]] + [channel_tiles]
            return self.accumulate(bounds, [init], lambda ivs, carried: [
                tile(ivs[:-2], [ivs[-2]], ivs[-1], carried[0], full_window=False)])[0]

        first, count = interior_columns(self.root())
        tiles = count // pixels
        rest = shape[-2] - tiles * pixels

        def row(prefix, carried):
            def interior(ivs, inner):
                start = arith.addi(arith.muli(ivs[0], self.index(pixels)), self.index(first))
                xs = [arith.addi(start, self.index(p)) if p else start for p in range(pixels)]
                return [tile(prefix, xs, ivs[1], inner[0], full_window=True)]

            def border(ivs, inner):
                # Column r: the r-th of those left of the tiles, then right.
                r = ivs[0]
                shifted = arith.addi(r, self.index(tiles * pixels))
                x = arith.select(arith.cmpi(arith.CmpIPredicate.slt, r, self.index(first)),
                                 r, shifted)
                return [tile(prefix, [x], ivs[1], inner[0], full_window=False)]

            result = self.accumulate([(self.index(0), self.index(tiles)), channel_tiles],
                                     carried, interior)
            if rest:
                result = self.accumulate([(self.index(0), self.index(rest)), channel_tiles],
                                         result, border)
            return result

        bounds = [(self.index(0), self.index(n)) for n in shape[:-2]]
        return self.accumulate(bounds, [init], row)[0]

    def store_tile(self, prefix, xs, channel_tile, result, *, channels, reused, full_window):
        """Computes the tile at (prefix..., xs, channel_tile) and inserts its
        elements, epilogue applied, into `result`."""
        shape = self.result_shape
        root = self.root()
        first = arith.muli(channel_tile, self.index(channels))
        columns = [arith.addi(first, self.index(i)) if i else first for i in range(channels)]
        ctx = Context(tuple(shape), list(prefix) + [xs[0], channel_tile])
        accumulators = BLOCKED_EMITTERS[root.name](self, root, ctx, columns, xs, full_window)
        for (x, column), accumulator in zip(product(xs, columns), accumulators):
            at = list(prefix) + [x, column]
            sub = Context(tuple(shape), at, memo={root.results[0]: accumulator})
            if reused is not None:
                # Read before this position is overwritten.
                sub.memo[reused] = tensor.extract(result, at)
            result = tensor.insert(self.eval(self.yielded, sub), result, at)
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

        for leaf in self.leaves:
            value = self.outer[leaf]
            if (isinstance(leaf.owner, ir.Block) and not isinstance(value.owner, ir.Block)
                    and shape_of(value) == list(self.result_shape)
                    and not any(read_later(use.owner.operation) for use in value.uses)):
                return leaf
        return None

    def needs_indices(self) -> bool:
        """Whether a root is computed inside the generic (not its input)."""
        return any(op.operation.name in ROOTS and op.results[0] not in self.outer
                   for op in self.block.operations)

    # -- evaluation -----------------------------------------------------------

    def eval(self, value: ir.Value, ctx: Context) -> ir.Value:
        if value in ctx.memo:
            return ctx.memo[value]
        if value in self.scalars:
            result = self.b.const(self.scalars[value])
        elif value in self.outer:
            result = self.extract(self.outer[value], ctx)
        else:
            op = self.definer(value)
            if op.name in SCALAR_BODIES:
                args = [self.eval(operand, ctx) for operand in op.operands]
                result = SCALAR_BODIES[op.name](self.b, op.attributes, args)
            elif op.name in ROOT_EMITTERS and ctx.output:
                result = ROOT_EMITTERS[op.name](self, op, ctx)
            else:
                raise PassError(f"'{op.name}' cannot be evaluated inside a fused group",
                                op.location)
        ctx.memo[value] = result
        return result

    def extract(self, tensor_value: ir.Value, ctx: Context) -> ir.Value:
        """tensor[index], broadcast numpy-style against the context shape."""
        shape = shape_of(tensor_value)
        offset = len(ctx.shape) - len(shape)
        indices = [self.index(0) if size == 1 and ctx.shape[offset + i] != 1
                   else ctx.indices[offset + i] for i, size in enumerate(shape)]
        return tensor.extract(tensor_value, indices)

    def leaf(self, value: ir.Value) -> ir.Value:
        """The tensor behind a root operand that must be a group input or a
        constant (a splat one, kept as a scalar for element-wise use, is
        made again before the group: a one-channel bias is a splat)."""
        if value not in self.outer:
            op = self.definer(value)
            if op is not None and op.name == "arith.constant":
                self.outer[value] = op.clone(ir.InsertionPoint(self.fused)).results[0]
            else:
                raise PassError("a contraction's operands must be group inputs",
                                op.location if op is not None else self.fused.location)
        return self.outer[value]

    # -- loops ------------------------------------------------------------------

    def accumulate(self, bounds, init: list[ir.Value], step_fn) -> list[ir.Value]:
        """Nested `scf.for` loops over `bounds` ((lower, upper) index values)
        carrying `init`; `step_fn(ivs, carried) -> new carried`."""
        def nest(level, ivs, carried):
            if level == len(bounds):
                return step_fn(ivs, carried)
            lower, upper = bounds[level]
            loop = scf.ForOp(lower, upper, self.index(1), carried)
            with ir.InsertionPoint(loop.body):
                scf.YieldOp(nest(level + 1, ivs + [loop.induction_variable],
                                 list(loop.inner_iter_args)))
            return list(loop.results)
        return nest(0, [], init)

    def window_bounds(self, out_index, stride, dilation, pad_low, pad_high, size, kernel):
        """[lo, hi) of the kernel taps whose input position
        out*stride + k*dilation - pad_low lies inside [0, size): padding is
        skipped by the bounds, so the loop body has no test."""
        zero, k = self.index(0), self.index(kernel)
        if pad_low == 0 and pad_high == 0:
            return zero, k
        origin = arith.subi(self.index(pad_low), arith.muli(out_index, self.index(stride)))
        lo = arith.maxsi(zero, arith.ceildivsi(origin, self.index(dilation)))
        last = arith.addi(origin, self.index(size - 1))
        hi = arith.minsi(k, arith.addi(arith.floordivsi(last, self.index(dilation)),
                                       self.index(1)))
        return lo, hi

    def input_position(self, out_index, tap, stride, dilation, pad_low):
        position = arith.addi(arith.muli(out_index, self.index(stride)),
                              arith.muli(tap, self.index(dilation)))
        return arith.subi(position, self.index(pad_low)) if pad_low else position


def check_config(config: LoweringConfig, root: ir.Operation, location: ir.Location) -> None:
    """A configuration the transform script can follow: one tile size per
    output dimension, dividing it (the script leaves no partial tiles), and
    one step per reduction dimension of the contraction (kh, kw, c of a
    conv; kh, kw of a depthwise conv; k of a matmul)."""
    out_shape = shape_of(root.results[0])
    if len(config.tile) != len(out_shape) or any(
            size and dim % size for size, dim in zip(config.tile, out_shape)):
        raise PassError(f"tile {list(config.tile)} does not divide the output "
                        f"{'x'.join(map(str, out_shape))}", location)
    steps = {"tinyml.conv2d": 3, "tinyml.depthwise_conv2d": 2, "tinyml.matmul": 1}[root.name]
    if len(config.reduction) != steps:
        raise PassError(f"{len(config.reduction)} reduction steps for the {steps} reduction "
                        f"dimensions of '{root.name}'", location)


# ---------------------------------------------------------------------------
# Roots: one scalar of the root's result at the output index
# ---------------------------------------------------------------------------

def _bias_or_zero(g: GroupLowering, op, channel: ir.Value) -> ir.Value:
    if len(op.operands) > 2:
        return tensor.extract(g.leaf(op.operands[2]), [channel])
    return g.b.const(0.0)


def _window(g: GroupLowering, op, ctx: Context, in_shape, full_window: bool = False):
    """With `full_window` the caller knows every column tap lies inside the
    input: constant bounds, which the code generator can unroll."""
    n, oy, ox, channel = ctx.indices
    attrs = op.attributes
    sh, sw = attr_ints(attrs, "strides", [1, 1])
    dh, dw = attr_ints(attrs, "dilations", [1, 1])
    top, left, bottom, right = attr_ints(attrs, "padding", [0, 0, 0, 0])
    kh, kw = shape_of(op.operands[1])[:2]
    bounds = [g.window_bounds(oy, sh, dh, top, bottom, in_shape[1], kh),
              (g.index(0), g.index(kw)) if full_window
              else g.window_bounds(ox, sw, dw, left, right, in_shape[2], kw)]

    def position(ivs):
        return (g.input_position(oy, ivs[0], sh, dh, top),
                g.input_position(ox, ivs[1], sw, dw, left))
    return n, channel, bounds, position


def fma(accumulator: ir.Value, a: ir.Value, b: ir.Value) -> ir.Value:
    """accumulator + a*b as one fused multiply-add (VFMA.F32 on an FPv4):
    the `contract` fast-math flag alone does not make llc fuse on M4."""
    return math.fma(a, b, accumulator)


def depthwise_weights(g: GroupLowering, value: ir.Value, channels: list[ir.Value]):
    """`weight(i, [ky, kx])`: the weight of output channel `channels[i]` in a
    depthwise HWC1 filter. Constant weights of a tile of channels are packed
    at compile time as [C/tile, kh, kw, tile], so that the window walks
    them contiguously, a tile's weights side by side."""
    weights = g.leaf(value)
    block = len(channels)
    definer = weights.owner.operation if not isinstance(weights.owner, ir.Block) else None
    if block == 1 or definer is None or definer.name != "arith.constant":
        return lambda i, at: tensor.extract(weights, [*at, channels[i], g.index(0)])
    if weights not in g.packed:
        array = np.array(ir.DenseElementsAttr(definer.attributes["value"]), dtype=np.float32)
        array = array[..., 0]
        tiles = np.moveaxis(array.reshape(*array.shape[:-1], -1, block), -2, 0)
        # At the top of the function: the loop nest using it already exists.
        with ir.InsertionPoint.at_block_begin(g.fused.block), definer.location:
            g.packed[weights] = dense_const(np.ascontiguousarray(tiles))
    packed = g.packed[weights]
    tile = arith.divui(channels[0], g.index(block))
    return lambda i, at: tensor.extract(packed, [tile, *at, g.index(i)])


def emit_depthwise_conv2d(g: GroupLowering, op, ctx: Context, channels: list[ir.Value],
                          pixels: list[ir.Value], full_window: bool = False) -> list[ir.Value]:
    """Accumulators for every (pixel, channel) of a tile, pixel-major. A
    channel reads only its own input channel, so only the weights are shared
    (by the tile's pixels); a multiplier > 1 is computed one channel at a
    time (channel c*M + m reads input channel c)."""
    x = g.leaf(op.operands[0])
    multiplier = shape_of(op.operands[1])[3]
    n, _, bounds, position = _window(g, op, ctx, shape_of(x), full_window)
    sw, dw = attr_ints(op.attributes, "strides", [1, 1])[1], \
        attr_ints(op.attributes, "dilations", [1, 1])[1]
    left = attr_ints(op.attributes, "padding", [0, 0, 0, 0])[1]
    if multiplier > 1:
        (channel,) = channels
        inputs = [arith.divui(channel, g.index(multiplier))]
        w = g.leaf(op.operands[1])
        m = arith.remui(channel, g.index(multiplier))
        weight = lambda i, at: tensor.extract(w, [*at, inputs[0], m])  # noqa: E731
    else:
        inputs = channels
        weight = depthwise_weights(g, op.operands[1], channels)

    def step(ivs, carried):
        ky, kx = ivs
        iy, _ = position(ivs)
        weights = [weight(i, [ky, kx]) for i in range(len(channels))]
        products = []
        for px in pixels:
            ix = g.input_position(px, kx, sw, dw, left)
            products += [(tensor.extract(x, [n, iy, ix, c]), w) for c, w in zip(inputs, weights)]
        return [fma(acc, value, w) for acc, (value, w) in zip(carried, products)]
    biases = [_bias_or_zero(g, op, f) for f in channels]
    return g.accumulate(bounds, biases * len(pixels), step)


def _reduction(g: GroupLowering, op, ctx: Context, axes, keep_dims, init, combine):
    """Folds `combine` over `axes` of the root's operand, evaluated (with its
    prologue) at each input index; returns the accumulator and the count."""
    operand = op.operands[0]
    in_shape = tuple(shape_of(operand))
    kept = [d for d in range(len(in_shape)) if d not in axes]
    if keep_dims:
        outer = {d: ctx.indices[d] for d in kept}
    else:
        outer = {d: ctx.indices[i] for i, d in enumerate(kept)}
    bounds = [(g.index(0), g.index(in_shape[d])) for d in axes]

    def step(ivs, carried):
        inner = dict(outer)
        inner.update(zip(axes, ivs))
        element = g.eval(operand, Context(in_shape, [inner[d] for d in range(len(in_shape))]))
        return [combine(carried[0], element)]
    count = int(np.prod([in_shape[d] for d in axes], dtype=np.int64))
    return g.accumulate(bounds, [g.b.const(init)], step)[0], count


def emit_reduce(kind):
    def emit(g: GroupLowering, op, ctx: Context) -> ir.Value:
        axes = attr_ints(op.attributes, "axes")
        keep = attr_flag(op.attributes, "keep_dims")
        if kind == "max":
            total, _ = _reduction(g, op, ctx, axes, keep, F32_LOWEST, g.b.max)
            return total
        total, count = _reduction(g, op, ctx, axes, keep, 0.0, g.b.add)
        return g.b.div(total, g.b.const(count)) if kind == "mean" else total
    return emit


def emit_global_avg_pool(g: GroupLowering, op, ctx: Context) -> ir.Value:
    total, count = _reduction(g, op, ctx, [1, 2], True, 0.0, g.b.add)
    return g.b.div(total, g.b.const(count))


def emit_softmax(g: GroupLowering, op, ctx: Context) -> ir.Value:
    """Online softmax: one pass keeps the running max m and the sum s of
    exp(x - m), rescaling s whenever m grows; then exp(x_i - m) / s."""
    axis = attr_int(op.attributes, "axis")
    operand = op.operands[0]
    shape = tuple(shape_of(operand))
    b = g.b

    def step(ivs, carried):
        running_max, running_sum = carried
        indices = list(ctx.indices)
        indices[axis] = ivs[0]
        x = g.eval(operand, Context(shape, indices))
        new_max = b.max(x, running_max)
        rescaled = b.mul(running_sum, b.exp(b.sub(running_max, new_max)))
        return [new_max, b.add(rescaled, b.exp(b.sub(x, new_max)))]
    maximum, total = g.accumulate([(g.index(0), g.index(shape[axis]))],
                                  [b.const(F32_LOWEST), b.const(0.0)], step)
    x_here = g.eval(operand, Context(shape, list(ctx.indices)))
    return b.div(b.exp(b.sub(x_here, maximum)), total)


#: Contractions the hand-built generator tiles (padded depthwise convs).
BLOCKED_EMITTERS = {"tinyml.depthwise_conv2d": emit_depthwise_conv2d}

def _single(emitter):
    return lambda g, op, ctx: emitter(g, op, ctx, [ctx.indices[-1]], [ctx.indices[-2]])[0]


ROOT_EMITTERS = {
    "tinyml.depthwise_conv2d": _single(emit_depthwise_conv2d),
    "tinyml.reduce_sum": emit_reduce("sum"),
    "tinyml.reduce_mean": emit_reduce("mean"),
    "tinyml.reduce_max": emit_reduce("max"),
    "tinyml.global_avg_pool": emit_global_avg_pool,
    "tinyml.softmax": emit_softmax,
}


def lower_fused(op) -> ir.Value:
    fused = op.operation
    if len(fused.results) != 1:
        raise PassError("a fused group must have exactly one result", fused.location)
    return GroupLowering(fused).build()


LOWERINGS["tinyml.fused"] = lower_fused

"""Convolution, pooling and batch normalization: NCHW ops imported as NHWC
tinyml ops between transposes, weights re-laid out at import time."""
from __future__ import annotations

from mlir import ir

from ...dialects import tinyml as tm
from ...ir.attributes import DEFAULT_DILATIONS, DEFAULT_PADDING, DEFAULT_STRIDES
from ...ir.attributes import inverse_permutation
from ...ir.quant import dequantize, quantize, storage_cast
from .elementwise import F32_MAX
from .importer import Const, Importer, handles, shape_text
from .quantization import quantization_of


def _pair(values):
    return [int(v) for v in values]


@handles("Conv")
def _conv(im: Importer, node) -> list:
    return [convolution(im, im.arg(0), im.arg(1), im.arg(2, optional=True))]


def convolution(im: Importer, x, w, bias):
    """The current node's convolution (Conv's attributes) of x by w."""
    x_shape, w_shape = im.shape(x), im.shape(w)
    rank = len(x_shape)
    if rank not in (3, 4):
        raise im.fail(f"only 1-D and 2-D convolutions are supported (input rank 3 or 4), "
                      f"got input shape {shape_text(x_shape)}")
    if len(w_shape) != rank:
        raise im.fail(f"weights of shape {shape_text(w_shape)} do not match the input rank")
    kernel = list(w_shape[2:])
    if im.attr("kernel_shape") is not None and _pair(im.attr("kernel_shape")) != kernel:
        raise im.fail(f"kernel_shape {_pair(im.attr('kernel_shape'))} differs from the "
                      f"weights' {kernel}")
    strides, dilations = im.spatial_attrs(rank, kernel)
    pads = im.window_padding(x_shape[2:], kernel, strides, dilations)
    out_spatial = im.window_output(x_shape[2:], kernel, strides, dilations, pads)
    if rank == 3:  # 1-D: a 2-D convolution over a height of 1
        x = im.reshape(im.tensor(x), (x_shape[0], x_shape[1], 1, x_shape[2]))
        w = im.reshape(w, (w_shape[0], w_shape[1], 1, w_shape[2]))
        kernel, strides, dilations = [1] + kernel, [1] + strides, [1] + dilations
        pads = [0, pads[0], 0, pads[1]]
        out_spatial = [1] + out_spatial
    batch, channels = x_shape[0], x_shape[1]
    filters = im.shape(w)[0]
    group = int(im.attr("group", 1))
    if im.shape(w)[1] * group != channels:
        raise im.fail(f"weights {shape_text(w_shape)} with group={group} do not fit "
                      f"{channels} input channels")
    if bias is not None and im.shape(bias) != (filters,):
        raise im.fail(f"bias of shape {shape_text(im.shape(bias))} does not match "
                      f"{filters} output channels")
    if group == 1:
        op, filt = tm.Conv2DOp, im.transpose(w, (2, 3, 1, 0))       # OIHW -> HWCF
    elif group == channels:
        if filters % channels:
            raise im.fail(f"depthwise convolution with {filters} filters for {channels} "
                          "channels")
        multiplier = filters // channels
        kh, kw = im.shape(w)[2:]
        filt = im.reshape(w, (channels, multiplier, kh, kw))
        op, filt = tm.DepthwiseConv2DOp, im.transpose(filt, (2, 3, 0, 1))  # HWCM
    else:
        raise im.fail(f"grouped convolution (group={group}, {channels} channels) is not "
                      "supported; only group=1 and depthwise (group=channels)")
    y = im.emit(op, [batch, *out_spatial, filters], [im.nhwc(im.tensor(x)), filt, bias],
                strides=None if tuple(strides) == DEFAULT_STRIDES else strides,
                dilations=None if tuple(dilations) == DEFAULT_DILATIONS else dilations,
                padding=None if tuple(pads) == DEFAULT_PADDING else pads)
    y = im.nchw(y)
    if rank == 3:
        y = im.reshape(y, (batch, filters, out_spatial[1]))
    return y


def pool(im: Importer, node, op: type[ir.OpView], x) -> ir.Value:
    """The current node's pooling (AveragePool's or MaxPool's attributes) of x."""
    x = im.tensor(x)
    x_shape = im.shape(x)
    rank = len(x_shape)
    if rank not in (3, 4):
        raise im.fail(f"only 1-D and 2-D pooling is supported (input rank 3 or 4), got "
                      f"input shape {shape_text(x_shape)}")
    kernel = _pair(im.attr("kernel_shape", []))
    if len(kernel) != rank - 2:
        raise im.fail(f"kernel_shape {kernel} does not match the input rank {rank}")
    strides, dilations = im.spatial_attrs(rank, kernel)
    dilated = any(d != 1 for d in dilations)
    if dilated and op is not tm.MaxPool2DOp:
        raise im.fail(f"dilated average pooling (dilations={dilations}) is not supported")
    if len(node.output) > 1 and node.output[1] and im.consumers[node.output[1]]:
        raise im.fail("the Indices output of MaxPool is not supported")
    pads = im.window_padding(x_shape[2:], kernel, strides, dilations)
    spatial = rank - 2
    if any(pads[a] >= kernel[a] or pads[a + spatial] >= kernel[a] for a in range(spatial)):
        raise im.fail(f"pads {pads} must be smaller than the kernel {kernel}")
    ceil = bool(im.attr("ceil_mode", 0)) and im.attr("auto_pad", "NOTSET") == "NOTSET"
    out = im.window_output(x_shape[2:], kernel, strides, dilations, pads, ceil=ceil)
    # The windows ceil_mode adds reach past the end padding: more padding
    # there, which max pooling never picks and average pooling never counts.
    extension = [max((out[a] - 1) * strides[a] + (kernel[a] - 1) * dilations[a] + 1
                     - x_shape[2 + a] - pads[a] - pads[a + spatial], 0) for a in range(spatial)]
    count_pad = op is tm.AvgPool2DOp and any(pads) and im.attr("count_include_pad", 0)
    if count_pad and any(extension):
        # Counted padding, then the extension that is not.
        x = im.emit(tm.PadOp, [*x_shape[:2], *(x_shape[2 + a] + pads[a] + pads[a + spatial]
                                               for a in range(spatial))],
                    [x], padding=[0, 0, *pads[:spatial], 0, 0, *pads[spatial:]])
        x_shape, pads, count_pad = im.shape(x), [0] * 2 * spatial, False
    pads = pads[:spatial] + [p + e for p, e in zip(pads[spatial:], extension)]
    if rank == 3:
        x = im.reshape(x, (x_shape[0], x_shape[1], 1, x_shape[2]))
        kernel, strides, dilations, pads, out = [1] + kernel, [1] + strides, \
            [1] + dilations, [0, pads[0], 0, pads[1]], [1] + out
    if dilated:
        y = _dilated_max_pool(im, im.nhwc(x), kernel, strides, dilations, pads, out)
    else:
        y = im.emit(op, [x_shape[0], *out, x_shape[1]], [im.nhwc(x)], kernel=kernel,
                    strides=None if tuple(strides) == DEFAULT_STRIDES else strides,
                    padding=None if tuple(pads) == DEFAULT_PADDING else pads,
                    count_include_pad=bool(count_pad))
    y = im.nchw(y)
    if rank == 3:
        y = im.reshape(y, (x_shape[0], x_shape[1], out[1]))
    return y


def _dilated_max_pool(im: Importer, x, kernel, strides, dilations, pads, out) -> ir.Value:
    """Max pooling of NHWC x as the maximum of one strided slice per kernel
    tap (tinyml.max_pool2d has no dilations)."""
    n, h, w, c = im.shape(x)
    top, left, bottom, right = pads
    if any(pads):
        x = im.emit(tm.PadOp, [n, h + top + bottom, w + left + right, c], [x],
                    padding=[0, top, left, 0, 0, bottom, right, 0], value=-F32_MAX)
    y = None
    for ky in range(kernel[0]):
        for kx in range(kernel[1]):
            tap = im.slice(x, [0, ky * dilations[0], kx * dilations[1], 0], [n, *out, c],
                           [1, *strides, 1])
            y = tap if y is None else im.emit(tm.MaximumOp, [n, *out, c], [y, tap])
    return y


@handles("AveragePool")
def _avg_pool(im, node):
    return [pool(im, node, tm.AvgPool2DOp, im.arg(0))]


@handles("MaxPool")
def _max_pool(im, node):
    x = im.arg(0)
    if im.element(x) != ir.IntegerType.get_signless(8):
        return [pool(im, node, tm.MaxPool2DOp, x)]
    # onnxruntime's QOperator form pools the quantized tensor itself: its
    # QDQ form, DequantizeLinear -> MaxPool -> QuantizeLinear of one type.
    element = quantization_of(im, x)
    y = pool(im, node, tm.MaxPool2DOp, dequantize(storage_cast(x, element)))
    return [storage_cast(quantize(y, element), ir.IntegerType.get_signless(8))]


@handles("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(im: Importer, node) -> list:
    return [global_pool(im, node.op_type, im.arg(0))]


def global_pool(im: Importer, op_type: str, x) -> ir.Value:
    """GlobalAveragePool or GlobalMaxPool (`op_type`) of x."""
    x = im.tensor(x)
    shape = im.shape(x)
    if len(shape) < 3:
        raise im.fail(f"needs an input of rank >= 3, got {shape_text(shape)}")
    if op_type == "GlobalAveragePool" and len(shape) == 4:
        y = im.emit(tm.GlobalAvgPoolOp, [shape[0], 1, 1, shape[1]], [im.nhwc(x)])
        return im.nchw(y)
    axes = list(range(2, len(shape)))
    op = tm.ReduceMeanOp if op_type == "GlobalAveragePool" else tm.ReduceMaxOp
    return im.emit(op, [*shape[:2]] + [1] * len(axes), [x], axes=axes, keep_dims=True)


@handles("BatchNormalization")
def _batch_norm(im: Importer, node) -> list:
    if im.attr("training_mode", 0):
        raise im.fail("training_mode=1 is not supported (inference only)")
    if not im.attr("spatial", 1):
        raise im.fail("spatial=0 is not supported")
    for position, name in enumerate(node.output[1:], start=1):
        if name and im.consumers[name]:
            raise im.fail(f"training output {position} ('{name}') is not supported")
    x = im.tensor(im.arg(0))
    shape = im.shape(x)
    if len(shape) < 2:
        raise im.fail(f"needs an input of rank >= 2, got {shape_text(shape)}")
    channels = shape[1]
    params = []
    for i, what in enumerate(("scale", "bias", "mean", "variance"), start=1):
        param = im.arg(i)
        if isinstance(param, Const):
            param = Const(param.array.reshape(-1), param.name) \
                if param.array.size == channels and param.array.ndim != 1 else param
        if im.shape(param) != (channels,):
            raise im.fail(f"{what} has shape {shape_text(im.shape(param))}, expected "
                          f"[{channels}]")
        params.append(param)
    epsilon = float(im.attr("epsilon", 1e-5))
    rank = len(shape)
    to_last = [0] + list(range(2, rank)) + [1]
    xt = im.transpose(x, to_last)
    y = im.emit(tm.BatchNormOp, im.shape(xt), [xt, *params], epsilon=epsilon)
    return [im.transpose(y, inverse_permutation(to_last))]


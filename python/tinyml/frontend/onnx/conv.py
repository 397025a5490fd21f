"""Convolution, pooling and batch normalization: NCHW ops imported as NHWC
tinyml ops between transposes, weights re-laid out at import time."""
from __future__ import annotations


from ...ir.attributes import DEFAULT_DILATIONS, DEFAULT_PADDING, DEFAULT_STRIDES
from ...ir.attributes import inverse_permutation
from .importer import Const, Importer, handles, shape_text


def _pair(values):
    return [int(v) for v in values]


@handles("Conv")
def _conv(im: Importer, node) -> list:
    x, w = im.arg(0), im.arg(1)
    bias = im.arg(2, optional=True)
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
        op_name, filt = "tinyml.conv2d", im.transpose(w, (2, 3, 1, 0))       # OIHW -> HWCF
    elif group == channels:
        if filters % channels:
            raise im.fail(f"depthwise convolution with {filters} filters for {channels} "
                          "channels")
        multiplier = filters // channels
        kh, kw = im.shape(w)[2:]
        filt = im.reshape(w, (channels, multiplier, kh, kw))
        op_name, filt = "tinyml.depthwise_conv2d", im.transpose(filt, (2, 3, 0, 1))  # HWCM
    else:
        raise im.fail(f"grouped convolution (group={group}, {channels} channels) is not "
                      "supported; only group=1 and depthwise (group=channels)")
    y = im.emit(op_name, [batch, *out_spatial, filters], [im.nhwc(im.tensor(x)), filt, bias],
                strides=None if tuple(strides) == DEFAULT_STRIDES else strides,
                dilations=None if tuple(dilations) == DEFAULT_DILATIONS else dilations,
                padding=None if tuple(pads) == DEFAULT_PADDING else pads)
    y = im.nchw(y)
    if rank == 3:
        y = im.reshape(y, (batch, filters, out_spatial[1]))
    return [y]


def _pool(im: Importer, node, op_name: str) -> list:
    x = im.tensor(im.arg(0))
    x_shape = im.shape(x)
    rank = len(x_shape)
    if rank not in (3, 4):
        raise im.fail(f"only 1-D and 2-D pooling is supported (input rank 3 or 4), got "
                      f"input shape {shape_text(x_shape)}")
    kernel = _pair(im.attr("kernel_shape", []))
    if len(kernel) != rank - 2:
        raise im.fail(f"kernel_shape {kernel} does not match the input rank {rank}")
    strides, dilations = im.spatial_attrs(rank, kernel)
    if any(d != 1 for d in dilations):
        raise im.fail(f"dilated pooling (dilations={dilations}) is not supported")
    if len(node.output) > 1 and node.output[1] and im.consumers[node.output[1]]:
        raise im.fail("the Indices output of MaxPool is not supported")
    pads = im.window_padding(x_shape[2:], kernel, strides, dilations)
    out = im.window_output(x_shape[2:], kernel, strides, dilations, pads)
    if im.attr("ceil_mode", 0) and im.attr("auto_pad", "NOTSET") == "NOTSET":
        ceil = im.window_output(x_shape[2:], kernel, strides, dilations, pads, ceil=True)
        if ceil != out:
            raise im.fail(f"ceil_mode=1 changes the output size ({out} -> {ceil}); "
                          "not supported")
    spatial = rank - 2
    if any(pads[a] >= kernel[a] or pads[a + spatial] >= kernel[a] for a in range(spatial)):
        raise im.fail(f"pads {pads} must be smaller than the kernel {kernel}")
    if rank == 3:
        x = im.reshape(x, (x_shape[0], x_shape[1], 1, x_shape[2]))
        kernel, strides, pads, out = [1] + kernel, [1] + strides, [0, pads[0], 0, pads[1]], \
            [1] + out
    extra = {}
    if op_name == "tinyml.avg_pool2d" and any(pads) and im.attr("count_include_pad", 0):
        extra["count_include_pad"] = True
    y = im.emit(op_name, [x_shape[0], *out, x_shape[1]], [im.nhwc(x)], kernel=kernel,
                strides=None if tuple(strides) == DEFAULT_STRIDES else strides,
                padding=None if tuple(pads) == DEFAULT_PADDING else pads, **extra)
    y = im.nchw(y)
    if rank == 3:
        y = im.reshape(y, (x_shape[0], x_shape[1], out[1]))
    return [y]


@handles("AveragePool")
def _avg_pool(im, node):
    return _pool(im, node, "tinyml.avg_pool2d")


@handles("MaxPool")
def _max_pool(im, node):
    return _pool(im, node, "tinyml.max_pool2d")


@handles("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(im: Importer, node) -> list:
    x = im.tensor(im.arg(0))
    shape = im.shape(x)
    if len(shape) < 3:
        raise im.fail(f"needs an input of rank >= 3, got {shape_text(shape)}")
    if node.op_type == "GlobalAveragePool" and len(shape) == 4:
        y = im.emit("tinyml.global_avg_pool", [shape[0], 1, 1, shape[1]], [im.nhwc(x)])
        return [im.nchw(y)]
    axes = list(range(2, len(shape)))
    op_name = "tinyml.reduce_mean" if node.op_type == "GlobalAveragePool" \
        else "tinyml.reduce_max"
    return [im.emit(op_name, [*shape[:2]] + [1] * len(axes), [x], axes=axes, keep_dims=True)]


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
    y = im.emit("tinyml.batch_norm", im.shape(xt), [xt, *params], epsilon=epsilon)
    return [im.transpose(y, inverse_permutation(to_last))]


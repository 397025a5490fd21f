#!/usr/bin/env python3
"""Builds the int8 zoo: Keras models quantized by TensorFlow Lite, as the
`.tflite` file TFLM runs and the QDQ `.onnx` tf2onnx makes of it.

    tools/build_int8_zoo.py [OUT_DIR] [NAME ...]     (default: test/models/int8)
    tools/build_int8_zoo.py --float [OUT_DIR] [NAME ...]
                                    (the networks unquantized, float32 in and
                                     out; default: test/models/float_tflite)

Needs the `int8-zoo` extra (tensorflow-cpu, tf2onnx), which neither the
compiler nor the tests install: the files it writes are committed, and the
tests read them with onnx (tinyml's input) and tflite-micro (the reference).

Every model is post-training quantized the way users do it:
`TFLiteConverter` with `Optimize.DEFAULT`, a representative dataset, int8
builtins only and int8 inputs and outputs. Weights are per channel unless a
model's name ends in `_per_tensor`. The representative data are normal
samples shifted per model, so that input zero points are not all -128 or 0.
Weights are seeded by the model's name; a rebuild gives the same networks
but not the same bytes (Keras numbers its layers per process, and the
names are in the files): the committed files are the zoo.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "test", "models", "int8")
FLOAT_OUT = os.path.join(HERE, "..", "test", "models", "float_tflite")
NETWORKS = ("kws_dscnn", "vww_mobilenet", "resnet8", "fc_autoencoder")

# name -> (builder returning a keras.Model, per_channel)
MODELS: dict = {}


def model(name: str, per_channel: bool = True):
    def register(build):
        MODELS[name] = (build, per_channel)
        return build
    return register


def _layers():
    import tensorflow as tf
    return tf.keras.layers


def _conv_bn_relu(x, filters, kernel, strides=1, relu6=False):
    L = _layers()
    x = L.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False)(x)
    x = L.BatchNormalization()(x)
    return L.ReLU(6.0 if relu6 else None)(x)


def _dw_bn_relu(x, strides=1, relu6=False):
    L = _layers()
    x = L.DepthwiseConv2D(3, strides=strides, padding="same", use_bias=False)(x)
    x = L.BatchNormalization()(x)
    return L.ReLU(6.0 if relu6 else None)(x)


def _keras_model(inputs, outputs, name):
    import tensorflow as tf
    return tf.keras.Model(inputs, outputs, name=name)


# ---------------------------------------------------------------------------
# The MLPerf Tiny networks (the reference Keras architectures)
# ---------------------------------------------------------------------------

@model("kws_dscnn")
def _kws():
    L = _layers()
    x = inputs = L.Input((49, 10, 1), batch_size=1)
    x = _conv_bn_relu(x, 64, (10, 4), strides=2)
    for _ in range(4):
        x = _dw_bn_relu(x)
        x = _conv_bn_relu(x, 64, 1)
    x = L.AveragePooling2D(pool_size=x.shape[1:3])(x)
    x = L.Flatten()(x)
    return _keras_model(inputs, L.Softmax()(L.Dense(12)(x)), "kws_dscnn")


@model("vww_mobilenet")
def _vww():
    L = _layers()
    x = inputs = L.Input((96, 96, 3), batch_size=1)
    x = _conv_bn_relu(x, 8, 3, strides=2, relu6=True)
    for filters, stride in ((16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1),
                            (128, 1), (128, 1), (128, 1), (128, 1), (256, 2), (256, 1)):
        x = _dw_bn_relu(x, stride, relu6=True)
        x = _conv_bn_relu(x, filters, 1, relu6=True)
    x = L.AveragePooling2D(pool_size=x.shape[1:3])(x)
    x = L.Flatten()(x)
    return _keras_model(inputs, L.Softmax()(L.Dense(2)(x)), "vww_mobilenet")


@model("resnet8")
def _resnet8():
    L = _layers()
    x = inputs = L.Input((32, 32, 3), batch_size=1)
    x = _conv_bn_relu(x, 16, 3)
    for filters, stride in ((16, 1), (32, 2), (64, 2)):
        y = _conv_bn_relu(x, filters, 3, strides=stride)
        y = L.BatchNormalization()(L.Conv2D(filters, 3, padding="same", use_bias=False)(y))
        if stride != 1:
            x = L.Conv2D(filters, 1, strides=stride, padding="same")(x)
        x = L.ReLU()(L.Add()([x, y]))
    x = L.AveragePooling2D(pool_size=x.shape[1:3])(x)
    x = L.Flatten()(x)
    return _keras_model(inputs, L.Softmax()(L.Dense(10)(x)), "resnet8")


@model("fc_autoencoder")
def _fc_autoencoder():
    L = _layers()
    x = inputs = L.Input((640,), batch_size=1)
    for units in (128, 128, 128, 128, 8, 128, 128, 128, 128):
        x = L.ReLU()(L.BatchNormalization()(L.Dense(units)(x)))
    return _keras_model(inputs, L.Dense(640)(x), "fc_autoencoder")


# ---------------------------------------------------------------------------
# One op each (the name says the op and the variant)
# ---------------------------------------------------------------------------

def _single(name, shape, layer_fn):
    L = _layers()
    inputs = L.Input(shape, batch_size=1)
    return _keras_model(inputs, layer_fn(inputs), name)


# name -> (input shape, the layer built from keras.layers, per-channel weights)
SINGLE_LAYER = {
    "op_conv": ((9, 9, 3), lambda L: L.Conv2D(8, 3, padding="same"), True),
    "op_conv_relu": ((9, 9, 3), lambda L: L.Conv2D(8, 3, padding="same", activation="relu"),
                     True),
    "op_conv_relu6": ((9, 9, 3), lambda L: L.Conv2D(8, 3, padding="same",
                                                    activation="relu6"), True),
    "op_conv_valid_stride2": ((9, 9, 3), lambda L: L.Conv2D(8, 3, strides=2), True),
    "op_conv_same_stride2": ((9, 9, 3), lambda L: L.Conv2D(8, 3, strides=2, padding="same",
                                                           activation="relu"), True),
    "op_conv_per_tensor": ((9, 9, 3), lambda L: L.Conv2D(8, 3, padding="same",
                                                         activation="relu"), False),
    "op_depthwise": ((8, 8, 6), lambda L: L.DepthwiseConv2D(3, padding="same",
                                                            activation="relu"), True),
    "op_depthwise_stride2_valid": ((9, 9, 4), lambda L: L.DepthwiseConv2D(3, strides=2), True),
    "op_fully_connected": ((20,), lambda L: L.Dense(10, activation="relu"), True),
    "op_fully_connected_per_tensor": ((20,), lambda L: L.Dense(10), False),
    "op_avg_pool": ((8, 8, 4), lambda L: L.AveragePooling2D(3, strides=2, padding="same"), True),
    "op_max_pool": ((8, 8, 4), lambda L: L.MaxPooling2D(2), True),
    "op_mean": ((6, 6, 8), lambda L: L.GlobalAveragePooling2D(), True),
}
for _name, (_shape, _layer, _per_channel) in SINGLE_LAYER.items():
    model(_name, _per_channel)(
        lambda _name=_name, _shape=_shape, _layer=_layer:
        _single(_name, _shape, lambda x: _layer(_layers())(x)))


@model("op_add")
def _add():
    L = _layers()
    inputs = L.Input((4, 4, 8), batch_size=1)
    a = L.Conv2D(8, 1)(inputs)
    b = L.Conv2D(8, 3, padding="same")(inputs)
    return _keras_model(inputs, L.Add()([a, b]), "op_add")


@model("op_softmax")
def _softmax():
    L = _layers()
    return _single("op_softmax", (10,), lambda x: L.Softmax()(L.Dense(10)(x)))


@model("op_reshape_concat")
def _reshape_concat():
    L = _layers()
    inputs = L.Input((4, 4, 3), batch_size=1)
    a = L.Conv2D(4, 1)(inputs)
    b = L.Conv2D(2, 1)(inputs)
    x = L.Concatenate()([a, b])
    return _keras_model(inputs, L.Reshape((16, 6))(x), "op_reshape_concat")


# ---------------------------------------------------------------------------
# Quantization and conversion
# ---------------------------------------------------------------------------

def seed(name: str) -> int:
    return zlib.crc32(name.encode())


def randomize(keras_model, rng):
    """Untrained weights, scaled so that activations stay O(1); batch-norm
    statistics away from (0, 1) so that folding them matters."""
    for layer in keras_model.layers:
        weights = layer.get_weights()
        if not weights:
            continue
        if type(layer).__name__ == "BatchNormalization":
            gamma, beta, mean, var = weights
            weights = [rng.uniform(0.5, 1.5, gamma.shape), rng.normal(0, 0.2, beta.shape),
                       rng.normal(0, 0.2, mean.shape), rng.uniform(0.5, 1.5, var.shape)]
        else:
            kernel = weights[0]
            fan_in = int(np.prod(kernel.shape[:-1])) if kernel.ndim > 1 else kernel.size
            if type(layer).__name__ == "DepthwiseConv2D":
                fan_in = int(np.prod(kernel.shape[:2]))
            weights = [rng.normal(0, np.sqrt(2.0 / fan_in), kernel.shape)] + \
                [rng.normal(0, 0.1, w.shape) for w in weights[1:]]
        layer.set_weights([w.astype(np.float32) for w in weights])


def quantize(name: str, keras_model, per_channel: bool) -> bytes:
    import tensorflow as tf
    rng = np.random.default_rng(seed(name) + 1)
    shift = rng.uniform(-0.5, 0.5)
    shape = (1, *keras_model.input_shape[1:])

    def representative():
        for _ in range(64):
            yield [(rng.standard_normal(shape) + shift).astype(np.float32)]

    converter = tf.lite.TFLiteConverter.from_keras_model(keras_model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = representative
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    converter.inference_input_type = tf.int8
    converter.inference_output_type = tf.int8
    if not per_channel:
        converter._experimental_disable_per_channel = True
    return converter.convert()


def convert_float(keras_model) -> bytes:
    """The model as TFLite converts it without quantization."""
    import tensorflow as tf
    return tf.lite.TFLiteConverter.from_keras_model(keras_model).convert()


def to_onnx(tflite: bytes, onnx_path: str) -> None:
    import onnx
    import tf2onnx
    with tempfile.NamedTemporaryFile(suffix=".tflite") as f:
        f.write(tflite)
        f.flush()
        tf2onnx.convert.from_tflite(f.name, opset=13, output_path=onnx_path)
        model = onnx.load(onnx_path)
        if restore_dropped_biases(model, f.name):
            onnx.save(model, onnx_path)


def restore_dropped_biases(model, tflite_path: str) -> int:
    """tf2onnx 1.17 drops the bias of a FULLY_CONNECTED whose input is 4-D
    (a Flatten the converter folded in): its MatMul gets no Add. Puts it
    back, as DequantizeLinear(int32 bias) + Add before the output's
    QuantizeLinear (in a float model, an Add of the float bias), so that
    the ONNX model computes what the TFLite one does. Returns how many it
    restored."""
    import tensorflow as tf
    from onnx import helper, numpy_helper
    interpreter = tf.lite.Interpreter(model_path=tflite_path)
    interpreter.allocate_tensors()
    details = interpreter.get_tensor_details()
    by_output = {node.output[0]: node for node in model.graph.node}
    restored = 0
    for op in interpreter._get_ops_details():
        if op["op_name"] != "FULLY_CONNECTED" or len(op["inputs"]) < 3 or op["inputs"][2] < 0:
            continue
        output, bias = details[op["outputs"][0]], details[op["inputs"][2]]
        producer = by_output.get(output["name"])
        if producer is not None and producer.op_type == "MatMul":  # a float model
            name = bias["name"]
            model.graph.initializer.append(
                numpy_helper.from_array(interpreter.get_tensor(bias["index"]), f"{name}_float"))
            product = f"{producer.output[0]}_without_bias"
            index = list(model.graph.node).index(producer)
            model.graph.node.insert(index + 1, helper.make_node(
                "Add", [product, f"{name}_float"], [producer.output[0]], name=f"{name}_add"))
            producer.output[0] = product
            restored += 1
            continue
        quantize = producer
        matmul = by_output.get(quantize.input[0]) if quantize is not None else None
        if matmul is None or matmul.op_type != "MatMul":
            continue
        name = bias["name"]
        params = bias["quantization_parameters"]
        model.graph.initializer.extend([
            numpy_helper.from_array(interpreter.get_tensor(bias["index"]), f"{name}_int32"),
            numpy_helper.from_array(params["scales"].astype(np.float32), f"{name}_scale"),
            numpy_helper.from_array(np.zeros(len(params["scales"]), np.int32),
                                    f"{name}_zero_point")])
        dequantized, summed = f"{name}_dequant", f"{matmul.output[0]}_plus_bias"
        index = list(model.graph.node).index(quantize)
        model.graph.node.insert(index, helper.make_node(
            "Add", [matmul.output[0], dequantized], [summed], name=f"{name}_add"))
        model.graph.node.insert(index, helper.make_node(
            "DequantizeLinear", [f"{name}_int32", f"{name}_scale", f"{name}_zero_point"],
            [dequantized], axis=0, name=f"{name}_dequantize"))
        quantize.input[0] = summed
        restored += 1
    return restored


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?")
    parser.add_argument("--float", action="store_true",
                        help="the networks as float32 TFLite models, not quantized")
    parser.add_argument("names", nargs="*", help="only these models (default: all)")
    parser.add_argument("--onnx-only", action="store_true",
                        help="convert the .tflite files already in OUT_DIR again, not rebuild them")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(MODELS)}")
    args.out_dir = args.out_dir or (FLOAT_OUT if args.float else DEFAULT_OUT)
    import tensorflow as tf
    os.makedirs(args.out_dir, exist_ok=True)
    for name in args.names or (NETWORKS if args.float else MODELS):
        path = os.path.join(args.out_dir, name)
        if args.onnx_only:
            with open(path + ".tflite", "rb") as f:
                to_onnx(f.read(), path + ".onnx")
            print(path + ".onnx")
            continue
        build, per_channel = MODELS[name]
        tf.keras.utils.set_random_seed(seed(name))
        keras_model = build()
        randomize(keras_model, np.random.default_rng(seed(name)))
        tflite = convert_float(keras_model) if args.float else \
            quantize(name, keras_model, per_channel)
        with open(path + ".tflite", "wb") as f:
            f.write(tflite)
        to_onnx(tflite, path + ".onnx")
        print(path + ".tflite", path + ".onnx")
    return 0


if __name__ == "__main__":
    sys.exit(main())

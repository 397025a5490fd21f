#!/usr/bin/env python3
"""Builds the Keras part of the recurrent corpus: small Keras LSTM and GRU
networks converted to `.tflite` the way users convert them.

    tools/build_keras_recurrent_models.py [OUT_DIR]   (default: test/models/recurrent)

- `keras_lstm`, `keras_lstm_stacked`: Keras 2 (`tf_keras`) LSTMs converted
  as TFLM's LSTM example (tensorflow/lite/micro/examples/mnist_lstm) does:
  a concrete function of batch 1, `TFLiteConverter.from_concrete_functions`,
  every other setting the default. The converter fuses each layer into one
  UNIDIRECTIONAL_SEQUENCE_LSTM operator.
- `keras_lstm_int8`: the first, fully integer (the converter's documented
  recipe: a representative dataset, int8 builtins, int8 input and output).
- `keras_gru`, `keras3_lstm`, `keras3_gru`, `keras3_stacked` (an LSTM
  returning its sequence into a GRU): `from_keras_model` with everything
  default and a batch of 1 (a dynamic batch fails in the converter's
  tensor-list lowering). TFLite has no GRU operator, and Keras 3 converts
  both layers to a WHILE loop over a cond and a body subgraph.
  TFLM miscomputes `keras3_stacked` (its LSTM's output sequence is
  written through SLICEs of a size that changes each step, which TFLM,
  without dynamic shapes, does not resize): `keras3_stacked.reference.npz`
  holds an input and TensorFlow Lite's output for it, the tests' reference.
- `keras_conv1d`, `keras3_conv1d` and `keras3_conv1d_int8`: a small
  Conv1D keyword-spotting network (what streaming audio models are made
  of), `from_keras_model` defaults, the last fully integer.
- `keras3_ds_tcn` and `keras3_ds_tcn_int8`: a depthwise-separable temporal
  convolution network of the shape MLPerf Tiny's streaming wake-word
  benchmark describes (49 frames of 40 features as [time, 1, feature],
  blocks of a (k, 1) DepthwiseConv2D, a 1x1 Conv2D, batch norm and ReLU,
  kernels 3, 5, 10 and 15, flattened into a Dense of 3), written here
  from that description; the firmware calls it once per window.

Keras 3 and Keras 2 cannot share a process (`TF_USE_LEGACY_KERAS` is read
when TensorFlow is imported): the Keras 3 models are built by this script
run again with `--keras3`. Needs tensorflow-cpu and tf_keras, which neither
the compiler nor the tests install: the files it writes are committed.
Weights are seeded.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "test", "models", "recurrent")


def seeded(keras, tf, name: str, model):
    """`model` with its weights drawn under the network's own seed."""
    keras.utils.set_random_seed(sum(map(ord, name)))
    for layer in model.layers:
        for weight in layer.weights:
            # A batch norm's variance must be positive.
            low = 0.5 if "variance" in weight.name else -0.5
            weight.assign(tf.random.uniform(weight.shape, low, low + 1.0))
    return model


def from_concrete_function(tf, model, shape, integer: bool = False) -> bytes:
    run = tf.function(lambda x: model(x))
    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [run.get_concrete_function(tf.TensorSpec(shape, tf.float32))], model)
    return (fully_integer(tf, converter, shape) if integer else converter).convert()


def keras2(out: str) -> None:
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import tensorflow as tf
    import tf_keras as keras
    layers = keras.layers
    lstm = seeded(keras, tf, "keras_lstm", keras.Sequential(
        [layers.Input(shape=(12, 10)), layers.LSTM(16), layers.Dense(4)]))
    stacked = seeded(keras, tf, "keras_lstm_stacked", keras.Sequential([
        layers.Input(shape=(8, 6)), layers.LSTM(12, return_sequences=True), layers.LSTM(8),
        layers.Dense(3, activation="softmax")]))
    gru = seeded(keras, tf, "keras_gru", keras.Sequential(
        [layers.Input(shape=(12, 10), batch_size=1), layers.GRU(16), layers.Dense(4)]))
    write(out, "keras_lstm", from_concrete_function(tf, lstm, [1, 12, 10]))
    write(out, "keras_lstm_stacked", from_concrete_function(tf, stacked, [1, 8, 6]))
    write(out, "keras_lstm_int8", from_concrete_function(tf, lstm, [1, 12, 10], integer=True))
    write(out, "keras_gru", tf.lite.TFLiteConverter.from_keras_model(gru).convert())
    conv1d = seeded(keras, tf, "keras_conv1d", conv1d_network(layers, keras))
    write(out, "keras_conv1d", tf.lite.TFLiteConverter.from_keras_model(conv1d).convert())


def conv1d_network(layers, keras):
    return keras.Sequential([
        layers.Input(shape=(49, 10)), layers.Conv1D(8, 3, activation="relu"),
        layers.MaxPooling1D(2), layers.Conv1D(8, 3, strides=2, activation="relu"),
        layers.GlobalAveragePooling1D(), layers.Dense(4, activation="softmax")])


def fully_integer(tf, converter, shape):
    """`converter` set to TFLiteConverter's documented full-integer recipe:
    a representative dataset, int8 builtins, int8 input and output."""
    rng = np.random.default_rng(0)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = lambda: (
        [rng.standard_normal(shape).astype(np.float32)] for _ in range(16))
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    converter.inference_input_type = converter.inference_output_type = tf.int8
    return converter


def keras3(out: str) -> None:
    import tensorflow as tf
    keras = tf.keras
    layers = keras.layers
    for kind in ("LSTM", "GRU"):
        name = f"keras3_{kind.lower()}"
        model = seeded(keras, tf, name, keras.Sequential(
            [layers.Input(shape=(12, 10), batch_size=1), getattr(layers, kind)(16),
             layers.Dense(4)]))
        write(out, name, tf.lite.TFLiteConverter.from_keras_model(model).convert())
    stacked = seeded(keras, tf, "keras3_stacked", keras.Sequential([
        layers.Input(shape=(8, 6), batch_size=1), layers.LSTM(12, return_sequences=True),
        layers.GRU(8), layers.Dense(3, activation="softmax")]))
    data = tf.lite.TFLiteConverter.from_keras_model(stacked).convert()
    write(out, "keras3_stacked", data)
    write_reference(tf, out, "keras3_stacked", data)
    conv1d = seeded(keras, tf, "keras3_conv1d", conv1d_network(layers, keras))
    write(out, "keras3_conv1d", tf.lite.TFLiteConverter.from_keras_model(conv1d).convert())
    write(out, "keras3_conv1d_int8", fully_integer(
        tf, tf.lite.TFLiteConverter.from_keras_model(conv1d), [1, 49, 10]).convert())
    ds_tcn = seeded(keras, tf, "keras3_ds_tcn", ds_tcn_network(layers, keras))
    write(out, "keras3_ds_tcn", tf.lite.TFLiteConverter.from_keras_model(ds_tcn).convert())
    write(out, "keras3_ds_tcn_int8", fully_integer(
        tf, tf.lite.TFLiteConverter.from_keras_model(ds_tcn), [1, 49, 1, 40]).convert())


def ds_tcn_network(layers, keras):
    x = inputs = layers.Input(shape=(49, 1, 40))
    for filters, kernel in ((128, 3), (64, 5), (64, 10), (32, 15)):
        x = layers.DepthwiseConv2D((kernel, 1), use_bias=False)(x)
        x = layers.Conv2D(filters, 1, use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
    return keras.Model(inputs, layers.Dense(3)(layers.Flatten()(x)))


def write_reference(tf, out: str, name: str, data: bytes) -> None:
    """An input and TensorFlow Lite's output for it, beside the model."""
    interpreter = tf.lite.Interpreter(model_content=data)
    interpreter.allocate_tensors()
    given, result = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    x = np.random.default_rng(1).standard_normal(given["shape"]).astype(np.float32)
    interpreter.set_tensor(given["index"], x)
    interpreter.invoke()
    path = os.path.join(out, f"{name}.reference.npz")
    np.savez(path, input=x, output=interpreter.get_tensor(result["index"]))
    print(path)


def write(out: str, name: str, data: bytes) -> None:
    path = os.path.join(out, f"{name}.tflite")
    with open(path, "wb") as f:
        f.write(data)
    print(path, len(data), "bytes")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=DEFAULT_OUT)
    parser.add_argument("--keras3", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    if args.keras3:
        keras3(args.out)
        return 0
    keras2(args.out)
    keras3_env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}
    return subprocess.run([sys.executable, __file__, "--keras3", args.out],
                          env=keras3_env).returncode


if __name__ == "__main__":
    sys.exit(main())

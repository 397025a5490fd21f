#!/usr/bin/env python3
"""Builds the 16x8 corpus: small Keras networks converted to `.tflite`
with TFLite's 16x8 quantization (int16 activations, int8 weights), the
converter's documented recipe and every other setting the default:

    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = ...
    converter.target_spec.supported_ops = [
        tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]

    tools/build_int16_models.py [OUT_DIR]   (default: test/models/int16)

- `keras_cnn_16x8`: an image classifier (Conv2D with ReLU, DepthwiseConv2D
  with ReLU6, max pool, a 1x1 Conv2D, LeakyReLU, average pool, Dense,
  Softmax), int16 input and output (`inference_input_type` and
  `inference_output_type` tf.int16); `keras_cnn_16x8_float_io` the same
  network with the converter's float input and output (a QUANTIZE in, a
  DEQUANTIZE out).
- `keras_conv1d_16x8`: an audio network of the kind 16x8 is meant for
  (Conv1D layers with tanh and sigmoid, their sum, LeakyReLU, a strided
  Conv1D, a scaled copy concatenated, global average pooling, Dense with
  ReLU), int16 in and out.

Weights are seeded; biases are drawn non-zero, as a trained network's are
(the converter omits a bias of zeros). Needs tensorflow-cpu, which
neither the compiler nor the tests install: the files it writes are
committed.
"""
from __future__ import annotations

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "test", "models", "int16")


def seeded(tf, name: str, model):
    """`model` with its weights drawn under the network's own seed."""
    tf.keras.utils.set_random_seed(sum(map(ord, name)))
    for layer in model.layers:
        for weight in layer.weights:
            scale = 0.5 if "kernel" in weight.name else 0.1
            weight.assign(tf.random.uniform(weight.shape, -scale, scale))
    return model


def convert_16x8(tf, model, shape, name: str, int16_io: bool = True) -> bytes:
    rng = np.random.default_rng(sum(map(ord, name)))

    def representative():
        for _ in range(32):
            yield [rng.normal(size=shape).astype(np.float32)]

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = representative
    converter.target_spec.supported_ops = [
        tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
    if int16_io:
        converter.inference_input_type = tf.int16
        converter.inference_output_type = tf.int16
    return converter.convert()


def cnn(tf):
    layers = tf.keras.layers
    x = inputs = tf.keras.Input((16, 16, 3), batch_size=1)
    x = layers.Conv2D(8, 3, padding="same", activation="relu")(x)
    x = layers.DepthwiseConv2D(3)(x)
    x = layers.ReLU(6.0)(x)
    x = layers.MaxPooling2D(2)(x)
    x = layers.Conv2D(16, 1)(x)
    x = layers.LeakyReLU(0.1)(x)
    x = layers.AveragePooling2D(2)(x)
    x = layers.Flatten()(x)
    x = layers.Dense(10)(x)
    return tf.keras.Model(inputs, layers.Softmax()(x))


def conv1d(tf):
    layers = tf.keras.layers
    inputs = tf.keras.Input((64, 4), batch_size=1)
    x = layers.Conv1D(8, 5, padding="same", activation="tanh")(inputs)
    gate = layers.Conv1D(8, 3, padding="same", activation="sigmoid")(x)
    x = layers.LeakyReLU(0.2)(layers.Add()([x, gate]))
    x = layers.Conv1D(8, 3, strides=2, padding="same")(x)
    x = layers.Concatenate()([x, layers.Rescaling(0.5)(x)])
    x = layers.GlobalAveragePooling1D()(x)
    return tf.keras.Model(inputs, layers.Dense(4, activation="relu")(x))


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_OUT
    os.makedirs(out, exist_ok=True)
    import tensorflow as tf
    models = {
        "keras_cnn_16x8": (cnn, (1, 16, 16, 3), True),
        "keras_cnn_16x8_float_io": (cnn, (1, 16, 16, 3), False),
        "keras_conv1d_16x8": (conv1d, (1, 64, 4), True),
    }
    for name, (build, shape, int16_io) in models.items():
        # Both cnn files are one network: seeded under one name.
        model = seeded(tf, name.replace("_float_io", ""), build(tf))
        data = convert_16x8(tf, model, shape, name.replace("_float_io", ""), int16_io)
        with open(os.path.join(out, f"{name}.tflite"), "wb") as f:
            f.write(data)
        print(f"{name}.tflite: {len(data)} bytes")


if __name__ == "__main__":
    main()

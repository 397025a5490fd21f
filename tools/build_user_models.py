#!/usr/bin/env python3
"""Builds the users' corpus: small Keras networks converted to `.tflite` the
way users convert them, with `tf.lite.TFLiteConverter`'s default settings
and nothing tuned for tinyml.

    tools/build_user_models.py [OUT_DIR] [NAME ...]   (default: test/models/users)

Each network is written in the converter's four modes:

- `<name>.float.tflite`: `from_keras_model(model).convert()`, nothing else;
- `<name>.dynamic_range.tflite`: `optimizations = [Optimize.DEFAULT]` (int8
  weights, float activations: a hybrid model);
- `<name>.int8.tflite`: full integer, the converter's documented recipe
  (a representative dataset, `TFLITE_BUILTINS_INT8`, int8 input and output);
- `<name>.int8_float_io.tflite`: a representative dataset and nothing else
  (int8 inside, float input and output: QUANTIZE and DEQUANTIZE at the edges).

The Keras inputs have no batch size, so every file has a dynamic batch (-1
in its shape signatures) as a user's has. Needs tensorflow-cpu, which
neither the compiler nor the tests install: the files it writes are
committed, and the tests read them with tflite-micro (the reference).
Weights are seeded by the network's name.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from build_int8_zoo import randomize, seed  # the zoo's weights: seeded, activations O(1)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "test", "models", "users")

NETWORKS: dict = {}


def network(build):
    NETWORKS[build.__name__.lstrip("_")] = build
    return build


def _layers():
    import tensorflow as tf
    return tf.keras.layers


@network
def _cifar_cnn():
    """Conv, max pool, Flatten (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE
    under a dynamic batch), Dense, softmax: the Keras tutorial's CNN."""
    L = _layers()
    x = inputs = L.Input((16, 16, 3))
    x = L.Conv2D(8, 3, activation="relu")(x)
    x = L.MaxPooling2D()(x)
    x = L.Conv2D(16, 3, activation="relu")(x)
    x = L.MaxPooling2D()(x)
    x = L.Flatten()(x)
    x = L.Dense(32, activation="relu")(x)
    return inputs, L.Dense(10, activation="softmax")(x)


@network
def _audio_dscnn():
    """A DS-CNN on a one-channel spectrogram: its first conv has one input
    channel, which the converter writes as a DEPTHWISE_CONV_2D with a
    channel multiplier."""
    L = _layers()
    x = inputs = L.Input((25, 10, 1))
    x = L.Conv2D(16, (5, 3), strides=(2, 1), padding="same")(x)
    x = L.BatchNormalization()(x)
    x = L.ReLU()(x)
    for _ in range(2):
        x = L.DepthwiseConv2D(3, padding="same")(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU()(x)
        x = L.Conv2D(16, 1)(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU()(x)
    x = L.GlobalAveragePooling2D()(x)
    return inputs, L.Dense(6)(x)


@network
def _mobilenet_block():
    """ZeroPadding2D before a strided valid depthwise conv (MobileNet's
    downsampling), a residual add, ReLU6."""
    L = _layers()
    x = inputs = L.Input((16, 16, 3))
    x = L.Conv2D(8, 3, strides=2, padding="same")(x)
    x = L.ReLU(6.0)(x)
    y = L.ZeroPadding2D(((0, 1), (0, 1)))(x)
    y = L.DepthwiseConv2D(3, strides=2, padding="valid")(y)
    y = L.ReLU(6.0)(y)
    y = L.Conv2D(8, 1)(y)
    z = L.DepthwiseConv2D(3, padding="same")(y)
    z = L.Conv2D(8, 1)(z)
    y = L.Add()([y, z])
    y = L.GlobalAveragePooling2D()(y)
    return inputs, L.Dense(4)(y)


@network
def _dense_autoencoder():
    """Dense layers only: the anomaly-detection autoencoder's shape."""
    L = _layers()
    x = inputs = L.Input((64,))
    for units in (32, 8, 32):
        x = L.Dense(units, activation="relu")(x)
    return inputs, L.Dense(64)(x)


@network
def _grayscale_cnn():
    """A DepthwiseConv2D with a channel multiplier on a one-channel image,
    ZeroPadding2D before a strided valid conv (an explicit PAD), and a
    Permute (a TRANSPOSE) in front of a conv."""
    L = _layers()
    x = inputs = L.Input((12, 12, 1))
    x = L.DepthwiseConv2D(3, depth_multiplier=8, padding="same")(x)
    x = L.ReLU()(x)
    x = L.ZeroPadding2D(1)(x)
    x = L.Conv2D(8, 3, strides=2)(x)
    x = L.Permute((2, 1, 3))(x)
    x = L.Conv2D(8, 3, padding="same", activation="relu")(x)
    x = L.GlobalAveragePooling2D()(x)
    return inputs, L.Dense(3)(x)


@network
def _activations_mlp():
    """The activations whose TFLM kernels are integer: LOGISTIC, TANH,
    LEAKY_RELU, HARD_SWISH, and an element-wise MUL."""
    import tensorflow as tf
    L = _layers()
    x = inputs = L.Input((24,))
    a = L.Dense(16, activation="sigmoid")(x)
    b = L.Dense(16, activation="tanh")(x)
    x = L.Multiply()([a, b])
    x = L.Dense(16)(x)
    x = L.LeakyReLU(0.2)(x)
    x = L.Dense(16)(x)
    x = L.Activation(tf.keras.activations.hard_swish)(x)
    return inputs, L.Dense(4)(x)


MODES = ("float", "dynamic_range", "int8", "int8_float_io")


def convert(name: str, keras_model, mode: str) -> bytes:
    import tensorflow as tf
    converter = tf.lite.TFLiteConverter.from_keras_model(keras_model)
    if mode == "float":
        return converter.convert()
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if mode == "dynamic_range":
        return converter.convert()
    rng = np.random.default_rng(seed(name) + 1)
    shape = (1, *keras_model.input_shape[1:])

    def representative():
        for _ in range(32):
            yield [rng.standard_normal(shape).astype(np.float32)]

    converter.representative_dataset = representative
    if mode == "int8":
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
    return converter.convert()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=DEFAULT_OUT)
    parser.add_argument("names", nargs="*", choices=[[], *NETWORKS], default=[])
    args = parser.parse_args(argv)
    import tensorflow as tf
    os.makedirs(args.out, exist_ok=True)
    for name in args.names or NETWORKS:
        tf.keras.utils.set_random_seed(seed(name))
        inputs, outputs = NETWORKS[name]()
        keras_model = tf.keras.Model(inputs, outputs, name=name)
        randomize(keras_model, np.random.default_rng(seed(name)))
        for mode in MODES:
            path = os.path.join(args.out, f"{name}.{mode}.tflite")
            with open(path, "wb") as f:
                f.write(convert(name, keras_model, mode))
            print(path, os.path.getsize(path), "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

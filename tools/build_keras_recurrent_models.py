#!/usr/bin/env python3
"""Builds the Keras part of the recurrent corpus: small Keras 2 (`tf_keras`)
LSTM networks converted to `.tflite` the way TFLM's LSTM example
(tensorflow/lite/micro/examples/mnist_lstm) converts them: a concrete
function of batch 1, `TFLiteConverter.from_concrete_functions`, every
other setting the default. The converter fuses a Keras 2 LSTM layer into
one UNIDIRECTIONAL_SEQUENCE_LSTM operator (Keras 3 gives a WHILE loop).

    tools/build_keras_recurrent_models.py [OUT_DIR]   (default: test/models/recurrent)

Needs tensorflow-cpu and tf_keras, which neither the compiler nor the tests
install: the files it writes are committed. Weights are seeded.
"""
from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "test", "models", "recurrent")


def networks(keras):
    """name -> (model, input shape with its batch of 1)."""
    layers = keras.layers
    return {
        # One LSTM layer, a classifier on its last state.
        "keras_lstm": (keras.Sequential([layers.Input(shape=(12, 10)), layers.LSTM(16),
                                         layers.Dense(4)]), [1, 12, 10]),
        # Two stacked layers: the first returns its whole sequence.
        "keras_lstm_stacked": (keras.Sequential([
            layers.Input(shape=(8, 6)), layers.LSTM(12, return_sequences=True),
            layers.LSTM(8), layers.Dense(3, activation="softmax")]), [1, 8, 6]),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import tensorflow as tf
    import tf_keras as keras
    os.makedirs(args.out, exist_ok=True)
    for name, (model, shape) in networks(keras).items():
        keras.utils.set_random_seed(sum(map(ord, name)))
        for layer in model.layers:  # re-drawn under the network's seed
            for weight in layer.weights:
                weight.assign(tf.random.uniform(weight.shape, -0.5, 0.5))
        run = tf.function(lambda x, model=model: model(x))
        concrete = run.get_concrete_function(tf.TensorSpec(shape, tf.float32))
        converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete], model)
        path = os.path.join(args.out, f"{name}.tflite")
        with open(path, "wb") as f:
            f.write(converter.convert())
        print(path, os.path.getsize(path), "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Builds the recurrent part of the users' corpus: small PyTorch LSTM and
GRU networks exported to ONNX the way users export them, with each
exporter's defaults.

    tools/build_recurrent_models.py [OUT_DIR]      (default: test/models/recurrent)

For each network, `<name>.torchscript.onnx` (`torch.onnx.export(...,
dynamo=False)` with a dynamic batch axis: the initial states come from
Shape/ConstantOfShape) and `<name>.dynamo.onnx` (`dynamo=True` with a
dynamic batch); for the LSTM classifier also `<name>.qdq.onnx`, the
TorchScript export through onnxruntime's `quantize_static` with its
defaults (which quantizes the Linear and leaves the LSTM in float). Needs
torch, onnxscript and onnxruntime, which neither the compiler nor the
tests install: the files it writes are committed. Weights are seeded.
"""
from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "test", "models", "recurrent")
sys.path.insert(0, HERE)

from build_torch_models import export, quantize  # noqa: E402


def networks():
    from torch import nn

    class LstmClassifier(nn.Module):
        """Two stacked LSTM layers over a sequence of feature frames, a
        linear classifier on the last step (a keyword or gesture model)."""

        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(10, 20, num_layers=2, batch_first=True)
            self.head = nn.Linear(20, 4)

        def forward(self, x):
            y, _ = self.rnn(x)
            return self.head(y[:, -1])

    class GruClassifier(nn.Module):
        """A GRU whose final hidden state feeds a linear classifier."""

        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(6, 16, batch_first=True)
            self.head = nn.Linear(16, 3)

        def forward(self, x):
            _, h = self.rnn(x)
            return self.head(h[-1])

    class BidirectionalLstm(nn.Module):
        """A bidirectional LSTM over time-first frames, averaged over time
        (an activity-recognition head)."""

        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(3, 8, bidirectional=True)
            self.head = nn.Linear(16, 5)

        def forward(self, x):
            y, _ = self.rnn(x)
            return self.head(y.mean(dim=0))

    return {"lstm_classifier": (LstmClassifier, (1, 12, 10), 0),
            "gru_classifier": (GruClassifier, (1, 16, 6), 0),
            "bilstm": (BidirectionalLstm, (10, 1, 3), 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    import torch
    os.makedirs(args.out, exist_ok=True)
    for seed, (name, (network, shape, batch_axis)) in enumerate(networks().items()):
        torch.manual_seed(seed)
        module = network().eval()
        for exporter in ("torchscript", "dynamo"):
            export(module, shape, os.path.join(args.out, f"{name}.{exporter}.onnx"),
                   dynamo=exporter == "dynamo", batch_axis=batch_axis)
        if name == "lstm_classifier":
            from onnxruntime.quantization import QuantFormat
            quantize(os.path.join(args.out, f"{name}.torchscript.onnx"), shape,
                     os.path.join(args.out, f"{name}.qdq.onnx"), QuantFormat.QDQ)
    for file in sorted(os.listdir(args.out)):
        print(file, os.path.getsize(os.path.join(args.out, file)), "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

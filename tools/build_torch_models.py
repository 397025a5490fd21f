#!/usr/bin/env python3
"""Builds the PyTorch part of the users' corpus: small PyTorch networks
exported to ONNX the way users export them, with each exporter's defaults,
and quantized by onnxruntime's `quantize_static` with its defaults.

    tools/build_torch_models.py [OUT_DIR]      (default: test/models/torch)

For each network:

- `<name>.torchscript.onnx`: `torch.onnx.export(..., dynamo=False)`, with a
  dynamic batch axis (`dynamic_axes`), as most tutorials write it;
- `<name>.dynamo.onnx`: `torch.onnx.export(..., dynamo=True)` with a dynamic
  batch (`dynamic_shapes`);
- `<name>.qdq.onnx`, `<name>.qoperator.onnx`: the TorchScript export after
  onnxruntime's shape-inference preprocessing, quantized by
  `quantize_static` in QDQ and QOperator formats, every other setting the
  default, calibrated on 16 seeded normal samples.

Needs torch, onnxscript and onnxruntime, which neither the compiler nor the
tests install: the files it writes are committed. Weights are seeded.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "test", "models", "torch")


def networks():
    import torch
    from torch import nn

    class SmallCnn(nn.Module):
        """Conv-BN-ReLU blocks, a max pool with ceil_mode, a residual add,
        global average pooling, flatten, a linear classifier."""

        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
            self.pool = nn.MaxPool2d(2, ceil_mode=True)
            self.block = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8),
                                       nn.ReLU(), nn.Conv2d(8, 8, 1))
            self.head = nn.Linear(8, 5)

        def forward(self, x):
            x = self.pool(self.stem(x))
            x = torch.relu(x + self.block(x))
            x = nn.functional.adaptive_avg_pool2d(x, 1)
            return self.head(torch.flatten(x, 1))

    class DepthwiseNet(nn.Module):
        """A depthwise-separable block with ReLU6 and a hard-swish head."""

        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU6(),
                nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.ReLU6(),
                nn.Conv2d(8, 16, 1), nn.Hardswish())
            self.head = nn.Linear(16, 4)

        def forward(self, x):
            x = self.body(x).mean(dim=(2, 3))
            return self.head(x)

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 16),
                                        nn.Sigmoid(), nn.Linear(16, 3))

        def forward(self, x):
            return self.layers(x)

    return {"small_cnn": (SmallCnn, (1, 3, 16, 16)),
            "depthwise_net": (DepthwiseNet, (1, 1, 20, 12)),
            "mlp": (Mlp, (1, 32))}


def _randomized(module, seed: int):
    """Seeded weights; batch-norm statistics away from (0, 1)."""
    import torch
    torch.manual_seed(seed)
    for layer in module.modules():
        if isinstance(layer, torch.nn.BatchNorm2d):
            layer.running_mean.uniform_(-0.2, 0.2)
            layer.running_var.uniform_(0.5, 1.5)
            layer.weight.data.uniform_(0.5, 1.5)
            layer.bias.data.uniform_(-0.2, 0.2)
    return module.eval()


def export(module, shape, path: str, dynamo: bool, batch_axis: int = 0) -> None:
    """`module` exported with a dynamic batch along `batch_axis` of its
    input (1 for a time-first sequence) and axis 0 of its output."""
    import torch
    x = torch.randn(*shape)
    if dynamo:
        batch = torch.export.Dim("batch")
        torch.onnx.export(module, (x,), path, dynamo=True, external_data=False,
                          dynamic_shapes=({batch_axis: batch},), input_names=["x"],
                          output_names=["y"])
    else:
        torch.onnx.export(module, (x,), path, dynamo=False, input_names=["x"],
                          output_names=["y"],
                          dynamic_axes={"x": {batch_axis: "batch"}, "y": {0: "batch"}})


def quantize(float_path: str, shape, out_path: str, quant_format) -> None:
    from onnxruntime.quantization import CalibrationDataReader, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Samples(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(0)
            self.samples = iter([{"x": rng.standard_normal(shape).astype(np.float32)}
                                 for _ in range(16)])

        def get_next(self):
            return next(self.samples, None)

    with tempfile.TemporaryDirectory() as tmp:
        prepared = os.path.join(tmp, "prepared.onnx")
        quant_pre_process(float_path, prepared)
        quantize_static(prepared, out_path, Samples(), quant_format=quant_format)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    from onnxruntime.quantization import QuantFormat
    os.makedirs(args.out, exist_ok=True)
    for seed, (name, (network, shape)) in enumerate(networks().items()):
        module = _randomized(network(), seed)
        for exporter in ("torchscript", "dynamo"):
            export(module, shape, os.path.join(args.out, f"{name}.{exporter}.onnx"),
                   dynamo=exporter == "dynamo")
        source = os.path.join(args.out, f"{name}.torchscript.onnx")
        for fmt, quant_format in (("qdq", QuantFormat.QDQ), ("qoperator", QuantFormat.QOperator)):
            quantize(source, shape, os.path.join(args.out, f"{name}.{fmt}.onnx"), quant_format)
    for file in sorted(os.listdir(args.out)):
        print(file, os.path.getsize(os.path.join(args.out, file)), "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The recurrent corpus (test/models/recurrent: PyTorch LSTM/GRU exports,
Keras 2 and 3 LSTMs, GRUs and Conv1D networks converted to TFLite) on emulated
Cortex-M cores: executed instructions, the share of them in the float
math library (the gates' sigmoid and tanh), arena against TFLM's for the
`.tflite` files, code, and the largest error against the reference
(onnxruntime, tflite-micro, or TensorFlow Lite's output committed beside a
model TFLM miscomputes) relative to the output's largest value.

    tools/benchmark_recurrent.py [--targets cortex-m4,cortex-m7] [model ...]

(the models given, e.g. TFLM's keyword_scrambled.tflite, else the corpus)

Prints the Markdown table in BENCHMARKS.md ("Recurrent models")."""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

import tinyml

RECURRENT = Path(__file__).resolve().parent.parent / "test" / "models" / "recurrent"
MATH_LIBRARY = ("expf", "tanhf")


def given_input(path: Path, compiled) -> np.ndarray:
    committed = path.with_suffix(".reference.npz")
    if committed.exists():
        return np.load(committed)["input"]
    rng = np.random.default_rng(1)
    shape, dtype = compiled.inputs[0].shape, np.dtype(compiled.inputs[0].dtype)
    return rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max + 1, shape).astype(dtype) \
        if dtype.kind == "i" else rng.standard_normal(shape).astype(np.float32)


def reference(path: Path, x: np.ndarray) -> np.ndarray:
    committed = path.with_suffix(".reference.npz")
    if committed.exists():
        return np.load(committed)["output"]
    if path.suffix == ".tflite":
        from tflite_micro.python.tflite_micro import runtime
        interpreter = runtime.Interpreter.from_bytes(path.read_bytes())
        interpreter.set_input(x, 0)
        interpreter.invoke()
        return interpreter.get_output(0)
    import onnxruntime
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x})[0]


def tflm_arena(path: Path, x: np.ndarray) -> int | None:
    """TFLM's arena for a `.tflite` file, as its recording allocator prints
    it (to the process's stderr, hence a process of its own)."""
    if path.suffix != ".tflite":
        return None
    script = ("import sys, numpy as np\n"
              "from tflite_micro.python.tflite_micro import runtime\n"
              "i = runtime.Interpreter.from_file(sys.argv[1])\n"
              f"i.set_input(np.zeros({list(x.shape)}, np.{x.dtype}), 0)\n"
              "i.invoke()\ni.print_allocations()\n")
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                         text=True, check=True).stderr
    match = re.search(r"Arena allocation total (\d+) bytes", out)
    return int(match.group(1)) if match else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="cortex-m4,cortex-m7")
    parser.add_argument("models", nargs="*", type=Path)
    args = parser.parse_args(argv)
    print("| model | target | MACs | instructions | instr/MAC | in expf/tanhf | arena B "
          "| TFLM arena B | text B | max error / max output |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    corpus = sorted(RECURRENT.glob("*.onnx")) + sorted(RECURRENT.glob("*.tflite"))
    for path in args.models or corpus:
        for target in args.targets.split(","):
            try:
                compiled = tinyml.compile(str(path), target=target)
            except tinyml.CompileError as error:
                print(f"| {path.name} | {target} | refused: {str(error).split(': ', 1)[-1]} "
                      "||||||||", flush=True)
                continue
            x = given_input(path, compiled)
            result = compiled.run(x, profile=True)
            want = reference(path, x)
            error = float(np.abs(result.outputs[0].reshape(want.shape).astype(np.float64)
                                 - want).max()) / float(np.abs(want).max())
            library = sum(count for layer in result.profile["layers"]
                          for kernel in layer["kernels"]
                          for helper, count in kernel["helpers"].items()
                          if helper in MATH_LIBRARY)
            report = compiled.report
            tflm = tflm_arena(path, x)
            print(f"| {path.name} | {target} | {report.macs:,} | {result.instructions:,} | "
                  f"{result.instructions / report.macs:.2f} | "
                  f"{library / result.instructions:.0%} | {report.arena_bytes:,} | "
                  f"{'-' if tflm is None else f'{tflm:,}'} | {report.flash.text:,} | "
                  f"{error:.1e} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

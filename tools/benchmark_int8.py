#!/usr/bin/env python3
"""The int8 zoo's networks on emulated Cortex-M cores: executed
instructions, arena, code and weight sizes, and whether the outputs are bit-exact
to TensorFlow Lite Micro (one input, spread around the input zero point).

    tools/benchmark_int8.py [--targets cortex-m4,cortex-m0] [NAME ...]

Prints a Markdown table (the one in BENCHMARKS.md)."""
import argparse
import sys
from pathlib import Path

import numpy as np
from tflite_micro.python.tflite_micro import runtime

import tinyml

INT8_ZOO = Path(__file__).resolve().parent.parent / "test" / "models" / "int8"
NETWORKS = ["kws_dscnn", "vww_mobilenet", "resnet8", "fc_autoencoder"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="cortex-m4,cortex-m0")
    parser.add_argument("names", nargs="*", default=NETWORKS)
    args = parser.parse_args(argv)
    print("| model | target | instructions | instr/MAC | arena B | text B | rodata B (weights) "
          "| kernels | mismatches vs TFLM |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.names:
        interpreter = runtime.Interpreter.from_bytes((INT8_ZOO / f"{name}.tflite").read_bytes())
        details = interpreter.get_input_details(0)
        zero_point = int(details["quantization_parameters"]["zero_points"][0])
        rng = np.random.default_rng(0)
        x = np.clip(zero_point + rng.integers(-8, 9, size=details["shape"]), -128, 127)
        x = x.astype(np.int8)
        interpreter.set_input(x, 0)
        interpreter.invoke()
        want = interpreter.get_output(0)
        for target in args.targets.split(","):
            compiled = tinyml.compile(str(INT8_ZOO / f"{name}.onnx"), target=target)
            result = compiled.run(x, arena_fill=b"\xff")
            report = compiled.report
            mismatches = int((result.outputs[0].reshape(want.shape) != want).sum())
            print(f"| {name} | {target} | {result.instructions:,} | "
                  f"{result.instructions / report.macs:.2f} | {report.arena_bytes:,} | "
                  f"{report.flash.text:,} | {report.flash.rodata:,} | "
                  f"{report.kernels} | {mismatches} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

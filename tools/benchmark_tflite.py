#!/usr/bin/env python3
"""The zoo compiled from `.tflite` and from its tf2onnx `.onnx`, side by
side: executed instructions, arena and whether the outputs are equal, per
network and target (int8 on M4, M7 and M0; float on M4 and M7).

    tools/benchmark_tflite.py

Prints the Markdown table in BENCHMARKS.md ("TFLite input")."""
import sys
from pathlib import Path

import numpy as np

import tinyml

MODELS = Path(__file__).resolve().parent.parent / "test" / "models"
NETWORKS = ["kws_dscnn", "vww_mobilenet", "resnet8", "fc_autoencoder"]
ZOOS = (("int8", ["cortex-m4", "cortex-m7", "cortex-m0"]),
        ("float_tflite", ["cortex-m4", "cortex-m7"]))


def main() -> int:
    print("| zoo | model | target | instructions (.tflite) | instructions (.onnx) "
          "| arena B (.tflite) | arena B (.onnx) | outputs equal |")
    print("|---|---|---|---|---|---|---|---|")
    for zoo, targets in ZOOS:
        for name in NETWORKS:
            for target in targets:
                runs, arenas = [], []
                for suffix in (".tflite", ".onnx"):
                    compiled = tinyml.compile(str(MODELS / zoo / f"{name}{suffix}"),
                                              target=target)
                    info = compiled.inputs[0]
                    rng = np.random.default_rng(0)
                    x = rng.integers(-20, 20, info.shape).astype(np.int8) \
                        if info.dtype == "int8" else \
                        rng.standard_normal(info.shape).astype(np.float32)
                    runs.append(compiled.run(x))
                    arenas.append(compiled.arena_bytes)
                equal = np.array_equal(runs[0].outputs[0], runs[1].outputs[0])
                print(f"| {zoo} | {name} | {target} | {runs[0].instructions:,} | "
                      f"{runs[1].instructions:,} | {arenas[0]:,} | {arenas[1]:,} | "
                      f"{'yes' if equal else 'NO'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

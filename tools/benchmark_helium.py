#!/usr/bin/env python3
"""What Helium gains on the Cortex-M55: the MLPerf Tiny networks (the int8
zoo's and the float zoo's) compiled for the M55 as tinyml builds it
(Helium: LLVM's MVE code generation, int8 VMLADAVA dot products) and as a
scalar build of the same core (LLVM features -mve and -mve.fp, the M4's
SMLAD design and tiles), run in the example firmware on QEMU's mps3-an547
with instructions counted by tinyml's QEMU plugin; beside them the
reference core's build (default the M4) in the unicorn emulator, whose
outputs both M55 builds must equal bit for bit (one input per network).

    tools/benchmark_helium.py [--reference cortex-m4] [--networks kws_dscnn ...]

Prints the Markdown table in BENCHMARKS.md ("The M55 (Helium)")."""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from pathlib import Path

import numpy as np

import tinyml
from tinyml import targets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "models"))
import zoo  # noqa: E402

NETWORKS = ["kws_dscnn", "vww_mobilenet", "resnet8", "fc_autoencoder"]


@contextlib.contextmanager
def scalar_m55(reference: str):
    """`cortex-m55` compiles without Helium while inside: the reference
    core's tiles and int8 design on the M55's scalar instruction set."""
    helium = targets.TARGETS["cortex-m55"]
    like = targets.TARGETS[reference]
    targets.TARGETS["cortex-m55"] = dataclasses.replace(
        helium, mve=False, dsp=like.dsp, int_tile=like.int_tile, features=("-mve.fp", "-mve"))
    try:
        yield
    finally:
        targets.TARGETS["cortex-m55"] = helium


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", default="cortex-m4")
    parser.add_argument("--networks", nargs="+", default=NETWORKS, choices=NETWORKS)
    args = parser.parse_args(argv)
    ref = args.reference
    print(f"| model | {ref} instr | M55 scalar instr | M55 Helium instr | Helium gain | "
          f"{ref} text B | M55 scalar text B | M55 Helium text B | M55 arena B | outputs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind in ("int8", "float"):
        for name in args.networks:
            model = str(ROOT / "test" / "models" / "int8" / f"{name}.onnx") \
                if kind == "int8" else zoo.build(name)
            reference = tinyml.compile(model, target=ref)
            helium = tinyml.compile(model, target="cortex-m55")
            info = reference.inputs[0]
            rng = np.random.default_rng(0)
            x = rng.integers(-128, 128, info.shape).astype(np.int8) if kind == "int8" \
                else rng.normal(size=info.shape).astype(np.float32)
            want = reference.run(x)
            with scalar_m55(ref):
                scalar = tinyml.compile(model, target="cortex-m55")
                on_scalar = scalar.run(x, emulator="qemu")
            on_helium = helium.run(x, emulator="qemu")
            same = all(np.array_equal(run.outputs[0], want.outputs[0])
                       for run in (on_scalar, on_helium))
            print(f"| {name} ({kind}) | {want.instructions:,} | {on_scalar.instructions:,} | "
                  f"{on_helium.instructions:,} | "
                  f"{on_scalar.instructions / on_helium.instructions:.2f}x | "
                  f"{reference.report.flash.text:,} | {scalar.report.flash.text:,} | "
                  f"{helium.report.flash.text:,} | {helium.report.arena_bytes:,} | "
                  f"{'bit-identical' if same else 'DIFFERENT'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The MLPerf Tiny networks (the int8 zoo's and the float zoo's) compiled for
the Cortex-M55 and a reference core: code, weights and arena of the M55's
build, and its outputs in the example firmware on QEMU's mps3-an547 against
the reference build's in the emulator (one input). unicorn has no M55, and
QEMU counts no instructions: no speed here.

    tools/benchmark_helium.py [--reference cortex-m4]

Prints the Markdown table in BENCHMARKS.md ("The M55 (Helium)")."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import tinyml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "models"))
import zoo  # noqa: E402

NETWORKS = ["kws_dscnn", "vww_mobilenet", "resnet8", "fc_autoencoder"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", default="cortex-m4")
    args = parser.parse_args(argv)
    print(f"| model | {args.reference} text B | M55 text B | rodata B | M55 arena B "
          f"| M55 on QEMU vs {args.reference} |")
    print("|---|---|---|---|---|---|")
    for kind in ("int8", "float"):
        for name in NETWORKS:
            model = str(ROOT / "test" / "models" / "int8" / f"{name}.onnx") \
                if kind == "int8" else zoo.build(name)
            reference = tinyml.compile(model, target=args.reference)
            m55 = tinyml.compile(model, target="cortex-m55")
            rng = np.random.default_rng(0)
            info = reference.inputs[0]
            x = rng.integers(-128, 128, info.shape).astype(np.int8) if kind == "int8" \
                else rng.normal(size=info.shape).astype(np.float32)
            want = reference.run(x).outputs[0]
            try:
                got = m55.run(x, emulator="qemu").outputs[0]
                verdict = "bit-identical" if np.array_equal(got, want) else \
                    f"max difference {np.abs(got.astype(float) - want.astype(float)).max():.2e}"
            except tinyml.RunError as error:
                verdict = f"not run: {error}"
            flash = m55.report.flash
            print(f"| {name} ({kind}) | {reference.report.flash.text:,} | {flash.text:,} | "
                  f"{flash.rodata:,} | {m55.report.arena_bytes:,} | {verdict} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

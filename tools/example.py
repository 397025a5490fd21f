"""The main job: compile the bundled example model for a Cortex-M4, run it
in the emulator on a fixed input, and print its report (arena, flash,
instructions, error against onnxruntime)."""
import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

import tinyml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "models"))
import zoo  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model", nargs="?", default=str(ROOT / "examples" / "kws_dscnn.onnx"))
    parser.add_argument("--target", default="cortex-m4")
    parser.add_argument("-o", "--output", help="keep the compiled model here")
    args = parser.parse_args()

    model = onnx.load(args.model)
    inputs = zoo.random_inputs(model, seed=0)
    reference = zoo.reference(model, inputs)
    compiled = tinyml.compile(args.model, target=args.target)
    result = compiled.run(*inputs.values(), arena_fill=b"\xff", estimate_cycles=True)
    outdir = Path(args.output or tempfile.mkdtemp(prefix="tinyml-example-"))
    compiled.save(outdir)

    report = compiled.report()
    error = max(float(np.max(np.abs(o - r))) for o, r in zip(result.outputs, reference))
    same_class = all(int(np.argmax(o)) == int(np.argmax(r))
                     for o, r in zip(result.outputs, reference))
    flash = report["flash"]
    lines = [
        f"model            {report['model']} ({args.model})",
        f"target           {report['target']} (emulated, arena poisoned with NaN)",
        f"MACs             {report['macs']:,}",
        f"kernels          {report['kernels']} loop nests",
        f"arena            {report['arena_bytes']:,} B  (TFLM-style greedy {report['greedy_arena_bytes']:,} B,"
        f" lower bound {report['lower_bound_bytes']:,} B, naive {report['naive_arena_bytes']:,} B)",
        f"peak at          {report['peak_op']}",
        f"flash            text {flash['text']:,} B, rodata {flash['rodata']:,} B,"
        f" data {flash['data']} B, bss {flash['bss']} B",
        f"instructions     {result.instructions:,} ({result.instructions / max(report['macs'], 1):.2f} per MAC)",
        f"cycles estimate  {result.cycles_estimate:,} (llvm-mca per block x executed count)"
        if result.cycles_estimate else "cycles estimate  n/a",
        f"stack            {result.stack_bytes} B",
        f"max abs error    {error:.3g} vs onnxruntime, argmax {'equal' if same_class else 'DIFFERENT'}",
        f"artefacts        {outdir}",
    ]
    print("\n".join(lines))
    print(json.dumps({**{k: report[k] for k in ("model", "target", "macs", "kernels", "arena_bytes",
                                                "flash")},
                      "instructions": result.instructions, "stack_bytes": result.stack_bytes,
                      "cycles_estimate": result.cycles_estimate, "max_abs_error": error,
                      "argmax_equal": same_class}))
    return 0 if error <= 1e-4 and same_class else 1


if __name__ == "__main__":
    sys.exit(main())

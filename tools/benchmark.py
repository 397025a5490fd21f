"""The tinyml benchmark: compile zoo models for a Cortex-M, fused and
unfused, run both in the emulator, and print one markdown table per topic.

    python tools/benchmark.py [--target cortex-m4] [--opt-level Os] [--models mlperf|all|NAME,...]
                              [--json FILE]

Columns: MACs; kernels (loop nests per inference) and bytes of intermediate
tensors unfused vs fused; the arena planned by tinyml vs the TFLM-style
greedy-by-size plan of the same buffers, the op-by-op lower bound, and the
arena TensorFlow Lite Micro reports for the MLPerf Tiny float models; flash
(text, rodata); executed instructions unfused vs fused, per MAC; an llvm-mca
cycle estimate; measured stack; compile seconds.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import tinyml
from tinyml import zoo

# TFLM's arena for the MLPerf Tiny float models, measured with its
# interpreter (see DESIGN.md); the zoo models have the same shapes.
TFLM_ARENA = {"kws_dscnn": 72208, "vww_mobilenet": 324800, "resnet8": 203376,
              "fc_autoencoder": 6224}


def measure(name: str, target: str, opt_level: str) -> dict:
    model = zoo.build(name)
    inputs = list(zoo.random_inputs(model).values())
    row = {"model": name}
    for fuse in (False, True):
        start = time.perf_counter()
        compiled = tinyml.compile(model, target=target, fuse=fuse, opt_level=opt_level)
        seconds = time.perf_counter() - start
        result = compiled.run(*inputs, arena_fill=b"\xff", estimate_cycles=fuse)
        report = compiled.report_data
        key = "fused" if fuse else "unfused"
        row[f"kernels_{key}"] = report["kernels"]
        row[f"intermediate_bytes_{key}"] = report["naive_arena_bytes"]
        row[f"instructions_{key}"] = result.instructions
        if fuse:
            row.update(macs=report["macs"], arena=report["arena_bytes"],
                       greedy=report["greedy_arena_bytes"], lower_bound=report["lower_bound_bytes"],
                       tflm=TFLM_ARENA.get(name), peak_op=report["peak_op"],
                       text=report["flash"]["text"], rodata=report["flash"]["rodata"],
                       stack=result.stack_bytes, cycles=result.cycles_estimate,
                       compile_seconds=round(seconds, 2))
    return row


def per_mac(row: dict, key: str) -> str:
    return f"{row[key] / row['macs']:.2f}" if row["macs"] else "-"


def tables(rows: list[dict], target: str) -> str:
    def table(title, header, cells):
        lines = [f"### {title}", "", "| " + " | ".join(header) + " |",
                 "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(str(c) for c in cells(r)) + " |" for r in rows]
        return "\n".join(lines) + "\n"

    return "\n".join([
        table(f"Fusion ({target})", ["model", "MACs", "kernels unfused", "kernels fused",
                                     "intermediates unfused (B)", "intermediates fused (B)"],
              lambda r: [r["model"], f"{r['macs']:,}", r["kernels_unfused"], r["kernels_fused"],
                         f"{r['intermediate_bytes_unfused']:,}",
                         f"{r['intermediate_bytes_fused']:,}"]),
        table("Arena (bytes)", ["model", "tinyml", "TFLM-style greedy", "lower bound",
                                "naive", "TFLM measured", "peak at"],
              lambda r: [r["model"], f"{r['arena']:,}", f"{r['greedy']:,}",
                         f"{r['lower_bound']:,}", f"{r['intermediate_bytes_fused']:,}",
                         f"{r['tflm']:,}" if r["tflm"] else "-", r["peak_op"]]),
        table(f"Code and speed ({target})",
              ["model", "text (B)", "rodata (B)", "instructions unfused", "instructions fused",
               "instr/MAC fused", "cycles (mca)", "stack (B)", "compile (s)"],
              lambda r: [r["model"], f"{r['text']:,}", f"{r['rodata']:,}",
                         f"{r['instructions_unfused']:,}", f"{r['instructions_fused']:,}",
                         per_mac(r, "instructions_fused"),
                         f"{r['cycles']:,}" if r["cycles"] else "-", r["stack"],
                         r["compile_seconds"]]),
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="cortex-m4")
    parser.add_argument("--opt-level", default="Os", help="LLVM level: O2, O3, Os, Oz")
    parser.add_argument("--models", default="mlperf",
                        help="mlperf (default), all, or a comma-separated list of zoo names")
    parser.add_argument("--json", help="also write the rows as JSON here")
    args = parser.parse_args()
    names = {"mlperf": zoo.names("mlperf"), "all": zoo.names()}.get(
        args.models, args.models.split(","))
    rows = []
    for name in names:
        rows.append(measure(name, args.target, args.opt_level))
        print(f"measured {name}", file=sys.stderr)
    print(tables(rows, f"{args.target}, -{args.opt_level}"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The tinyml benchmark: compile zoo models for a Cortex-M, fused and
unfused, run both in the emulator, and print one markdown table per topic.

    python tools/benchmark.py [--target cortex-m4] [--opt-level Os] [--models mlperf|all|NAME,...]
                              [--json FILE]

Columns: MACs; kernels (loop nests per inference) and bytes of intermediate
tensors unfused vs fused; the arena planned by tinyml vs the TFLM-style
greedy-by-size plan of the same buffers, the op-by-op lower bound, and the
arena TensorFlow Lite Micro reports for the MLPerf Tiny float models; flash
(text, rodata); executed instructions unfused vs fused, per MAC; an llvm-mca
cycle estimate; measured stack; compile seconds. Then the per-layer profile
of each fused model (`tinyml.targets.profile`): its top-3 layers, instructions per
MAC by layer type, and the whole per-layer table.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import tinyml
from tinyml.targets import profile as profiling

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "models"))
import zoo  # noqa: E402

# TFLM's arena for the MLPerf Tiny float models, measured with
# tflite-micro's Python interpreter; the zoo models have the same shapes.
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
        result = compiled.run(*inputs, arena_fill=b"\xff", estimate_cycles=fuse, profile=fuse)
        report = compiled.report
        key = "fused" if fuse else "unfused"
        row[f"kernels_{key}"] = report.kernels
        row[f"intermediate_bytes_{key}"] = report.naive_arena_bytes
        row[f"instructions_{key}"] = result.instructions
        if fuse:
            row.update(macs=report.macs, arena=report.arena_bytes,
                       greedy=report.greedy_arena_bytes, lower_bound=report.lower_bound_bytes,
                       tflm=TFLM_ARENA.get(name), peak_op=report.peak_op,
                       text=report.flash.text, rodata=report.flash.rodata,
                       stack=result.stack_bytes, cycles=result.cycles_estimate,
                       compile_seconds=round(seconds, 2), profile=result.profile)
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


# Layer types of the per-type table: the kernel kinds of `analysis.kernel_kind`.
LAYER_TYPES = (("pointwise", "pointwise"), ("depthwise", "depthwise"),
               ("KxK conv", "conv"), ("FC", "fc"), ("pooling", "pool"), ("softmax", "softmax"))


def _kind_matches(kind: str, prefix: str) -> bool:
    return kind == prefix or (prefix == "conv" and kind.startswith("conv"))


def top_layers(rows: list[dict]) -> str:
    lines = ["### Top-3 layers (fused)", "", "| model | 1st | 2nd | 3rd |", "|---|---|---|---|"]
    for r in rows:
        cells = [f"{t['name']} ({t['kind']}) {100 * t['share']:.1f}%"
                 + (f", {t['instr_per_mac']:.2f}/MAC" if t["instr_per_mac"] else "")
                 for t in profiling.top(r["profile"])]
        lines.append(f"| {r['model']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def by_layer_type(rows: list[dict]) -> str:
    """Instructions per MAC of each layer type (all its layers together) and
    its share of the run; pooling and softmax have no MACs."""
    header = ["model"] + [name for name, _ in LAYER_TYPES] + ["other code"]
    lines = ["### Instructions per MAC by layer type (share of the run)", "",
             "| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        profile = r["profile"]
        cells = [r["model"]]
        for _, prefix in LAYER_TYPES:
            layers = [l for l in profile["layers"] if _kind_matches(l["kind"], prefix)]
            instructions = sum(l["instructions"] for l in layers)
            macs = sum(l["macs"] for l in layers)
            share = f"{100 * instructions / profile['instructions']:.1f}%"
            cells.append("-" if not layers else
                         f"{instructions / macs:.2f} ({share})" if macs else f"- ({share})")
        cells.append(f"{100 * (1 - profile['attributed']):.2f}%")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def layer_table(row: dict) -> str:
    header = ["layer(s)", "kind", "instructions", "%", "cum %", "MACs", "instr/MAC",
              "cycles (mca)", "code (B)", "live arena (B)"]
    lines = [f"#### {row['model']}", "", "| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    for layer in profiling.ranked(row["profile"]):
        def number(key):
            value = layer.get(key)
            return "-" if value is None else f"{value:,}"
        lines.append("| " + " | ".join([
            layer["name"], layer["kind"], number("instructions"), f"{100 * layer['share']:.1f}",
            f"{100 * layer['cumulative']:.1f}", number("macs"),
            f"{layer['instr_per_mac']:.2f}" if layer.get("instr_per_mac") else "-",
            number("cycles"), number("code_bytes"), number("live_bytes")]) + " |")
    return "\n".join(lines) + "\n"


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
    print(top_layers(rows))
    print(by_layer_type(rows))
    print(f"### Per-layer profile ({args.target}, -{args.opt_level})\n")
    print("\n".join(layer_table(row) for row in rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

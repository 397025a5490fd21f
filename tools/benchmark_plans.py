#!/usr/bin/env python3
"""Flash against SRAM: each MLPerf-Tiny-shaped network of the zoo (float,
and the int8 zoo) compiled with every memory plan alone
(`tinyml.pipeline.stages.MEMORY_PLANS`), each run in the emulator with the
arena poisoned; then compiled as a user would, with no budget, and with an
SRAM budget between two plans.

Per plan: the arena, the code (.text), the executed instructions, and
whether its outputs are bit-identical to the plan "none"'s. Per model: the
plan the compile keeps with no budget (the least arena for at most 15% more
code than "none"), and the plan it keeps with an SRAM budget one byte under
the arena of the plan "none" (the least code that fits).

    tools/benchmark_plans.py [--target cortex-m4] [--models kws_dscnn,...]

Prints the Markdown tables in BENCHMARKS.md ("Memory plans")."""
import argparse
import sys
from pathlib import Path

import numpy as np

import tinyml
from tinyml.pipeline.stages import MEMORY_PLANS

MODELS = Path(__file__).resolve().parent.parent / "test" / "models"
sys.path.insert(0, str(MODELS))
import zoo  # noqa: E402

NETWORKS = ["kws_dscnn", "vww_mobilenet", "resnet8", "fc_autoencoder"]


def inputs_for(compiled) -> list:
    rng = np.random.default_rng(0)
    return [rng.integers(-128, 128, i.shape).astype(np.int8) if i.dtype == "int8"
            else rng.standard_normal(i.shape).astype(np.float32) for i in compiled.inputs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="cortex-m4")
    parser.add_argument("--models", default=",".join(NETWORKS))
    args = parser.parse_args()
    plans_table = ["| model | zoo | plan | arena B | .text B | text / none | instructions "
                   "| instructions / none | outputs as none |",
                   "|---|---|---|---|---|---|---|---|---|"]
    choice_table = ["| model | zoo | default keeps | arena B | .text B "
                    "| SRAM budget B | budget keeps | arena B | .text B |",
                    "|---|---|---|---|---|---|---|---|---|"]
    identical_everywhere = True
    for name in args.models.split(","):
        for kind, model in (("f32", zoo.build(name)),
                            ("int8", str(MODELS / "int8" / f"{name}.onnx"))):
            alone, runs = {}, {}
            for plan in MEMORY_PLANS:
                alone[plan] = tinyml.compile(model, target=args.target, memory_plan=plan)
                runs[plan] = alone[plan].run(*inputs_for(alone[plan]), arena_fill=b"\xff")
            none, none_run = alone["none"].report, runs["none"]
            for plan, compiled in alone.items():
                report, run = compiled.report, runs[plan]
                identical = all(a.tobytes() == b.tobytes()
                                for a, b in zip(run.outputs, none_run.outputs))
                identical_everywhere &= identical
                plans_table.append(
                    f"| {name} | {kind} | {plan} | {report.arena_bytes:,} "
                    f"| {report.flash.text:,} | {report.flash.text / none.flash.text:.2f}x "
                    f"| {run.instructions:,} | {run.instructions / none_run.instructions:.3f}x "
                    f"| {'yes' if identical else 'NO'} |")
            default = tinyml.compile(model, target=args.target).report
            budget = none.arena_bytes - 1
            try:
                fitted = tinyml.compile(model, target=args.target, sram_budget=budget).report
                kept = (f"{fitted.options['memory_plan']} | {fitted.arena_bytes:,} "
                        f"| {fitted.flash.text:,}")
            except tinyml.CompileError:  # no plan lowers this model's arena
                kept = "(none fits) | - | -"
            choice_table.append(
                f"| {name} | {kind} | {default.options['memory_plan']} "
                f"| {default.arena_bytes:,} | {default.flash.text:,} | {budget:,} | {kept} |")
            print(f"measured {name} {kind}", file=sys.stderr, flush=True)
    print(f"Every plan alone ({args.target}, -Os):\n")
    print("\n".join(plans_table))
    print("\nThe plan a compile keeps:\n")
    print("\n".join(choice_table))
    return 0 if identical_everywhere else 1


if __name__ == "__main__":
    sys.exit(main())

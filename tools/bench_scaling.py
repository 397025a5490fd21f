"""Compile time vs graph size: builds model families of growing size and
prints how long each takes to compile, so a step that grows faster than the
graph shows up as a row whose time grows faster than N.

    python tools/bench_scaling.py [--family conv,concat,branches] [--conv 50,100,200]
                                  [--concat 250,500,1000] [--branches 100,200,400]
                                  [--stages] [--repeat 1]
                                  [--target host] [--profile FILE]

Families (`test/models/scaling.py`, built with onnx.helper, fixed-seed weights):
  conv    N chained 3x3 convolutions, 4 -> 4 channels, padding 1, no bias,
          on a 1x4x8x8 NCHW input.
  concat  one 1x4 input, N Relu branches of it, one Concat of all N (axis 1).
  branches  the same with N different branches Relu(x * (i + 1)).

Each row is the fastest of `--repeat` compiles: its wall seconds and the
CPU seconds of this process (the compiler is single-threaded, so on a
machine others load too the CPU column is the steadier one). `--stages`
adds the wall seconds of every stage of `pipeline.stages.compile_stages`;
`--profile FILE` writes a cProfile of the largest model of each family.
Compiles with `warm_up=False` (the JIT is not timed).
"""
from __future__ import annotations

import argparse
import cProfile
import sys
import time
from pathlib import Path

import onnx

import tinyml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "models"))
from scaling import concat_branches, concat_fan_out, conv_chain  # noqa: E402

FAMILIES = {"conv": conv_chain, "concat": concat_fan_out, "branches": concat_branches}


def compile_once(model: onnx.ModelProto, target: str) -> tuple[float, float, dict[str, float]]:
    """(wall seconds, CPU seconds of this process, wall seconds per stage)."""
    start, start_cpu = time.perf_counter(), time.process_time()
    compiled = tinyml.compile(model, target=target, warm_up=False)
    return (time.perf_counter() - start, time.process_time() - start_cpu,
            compiled.report.stage_seconds)


def measure(family: str, sizes: list[int], target: str, repeat: int,
            stages: bool) -> list[dict]:
    rows = []
    for n in sizes:
        model = FAMILIES[family](n)
        runs = [compile_once(model, target) for _ in range(repeat)]
        seconds, cpu_seconds, stage_seconds = min(runs, key=lambda run: run[0])
        row = {"family": family, "n": n, "seconds": seconds, "cpu_seconds": cpu_seconds,
               "stage_seconds": stage_seconds if stages else {}}
        rows.append(row)
        print(format_row(row, stages), file=sys.stderr, flush=True)
    return rows


def format_row(row: dict, stages: bool) -> str:
    cells = [row["family"], str(row["n"]), f"{row['seconds']:.2f}", f"{row['cpu_seconds']:.2f}"]
    if stages:
        cells += [f"{seconds:.2f}" for seconds in row["stage_seconds"].values()]
    return "| " + " | ".join(cells) + " |"


def table(rows: list[dict], stages: bool) -> str:
    header = ["family", "N", "seconds", "CPU seconds"]
    if stages and rows:
        header += list(rows[0]["stage_seconds"])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += [format_row(row, stages) for row in rows]
    return "\n".join(lines)


def sizes(text: str) -> list[int]:
    return [int(word) for word in text.split(",") if word]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", default="conv,concat",
                        help="comma-separated: " + ", ".join(FAMILIES))
    parser.add_argument("--conv", type=sizes, default=sizes("50,100,200,300,600"))
    parser.add_argument("--concat", type=sizes, default=sizes("250,500,1000,2000"))
    parser.add_argument("--branches", type=sizes, default=sizes("100,200,400,800"))
    parser.add_argument("--target", default="host")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many compiles")
    parser.add_argument("--stages", action="store_true", help="seconds of every stage")
    parser.add_argument("--profile", metavar="FILE",
                        help="cProfile of the largest model of each family (FILE.<family>)")
    args = parser.parse_args(argv)
    families = [name for name in args.family.split(",") if name]
    unknown = [name for name in families if name not in FAMILIES]
    if unknown:
        parser.error(f"unknown family {unknown[0]!r} (known: {', '.join(FAMILIES)})")
    rows = []
    for family in families:
        family_sizes = getattr(args, family)
        if args.profile:
            model = FAMILIES[family](max(family_sizes))
            cProfile.runctx("tinyml.compile(model, target=target, warm_up=False)",
                            {"tinyml": tinyml}, {"model": model, "target": args.target},
                            f"{args.profile}.{family}")
            continue
        rows += measure(family, family_sizes, args.target, args.repeat, args.stages)
    if rows:
        print(table(rows, args.stages))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""tinyml-compile: compile a model into an output directory.

    tinyml-compile MODEL.onnx -o OUTDIR [--target cortex-m4|cortex-m7|cortex-m33|cortex-m3|...]
                   [--float-abi hard|softfp|soft]
                   [--no-fusion] [--no-in-place] [--memory-plan PLAN] [--sram-budget BYTES]
                   [--flash-budget BYTES] [--opt-level Os]
                   [--emit-stages] [--emit-assembly]

writes, for a Cortex-M target, OUTDIR/<name>.o (Thumb object), <name>.h (the
C declaration, arena size and alignment), <name>.ll and <name>.mlir; for the
host, <name>.mlir (LLVM dialect, run by the JIT). Always OUTDIR/report.json
(signature, MACs, kernels, arena sizes, flash sizes, compile time) and the
memory timeline memory.json / memory.svg; with --emit-stages also
OUTDIR/stages/NN-<stage>.mlir, the IR after every pipeline stage. OUTDIR is written to a temporary
directory beside it and renamed into place, so a failed compile never
leaves a half-written OUTDIR; an existing OUTDIR is replaced only when it is
empty or an earlier tinyml output (its `.tinyml-output` marker lists every
file in it), and OUTDIR may not hold the model. Errors print one line
`tinyml-compile: error: ...` and exit 1; a defect in tinyml prints
`tinyml-compile: internal error: ...` and exits 2.
"""
from __future__ import annotations

import argparse
import re
import sys
from typing import Any, Sequence
from pathlib import Path

from .crash_guard import internal_error, phase, print_summary, run_guarded

USAGE_ERROR_EXIT = 1


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 1 (argparse would exit 2)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(USAGE_ERROR_EXIT)


def _whole_number(text: str) -> int:
    # int() would accept ' 5', '+5' and '1_000'; an option value is digits only.
    if not re.fullmatch(r"[0-9]+", text):
        raise argparse.ArgumentTypeError(f"expected a whole number of digits, got {text!r}")
    return int(text)


def make_parser() -> argparse.ArgumentParser:
    from ..pipeline.stages import MEMORY_PLANS
    from ..targets import COMPILE_TARGETS, DEFAULT_TARGET, FLOAT_ABIS
    parser = _Parser(prog="tinyml-compile",
                     description="Compile an ONNX or TFLite model (or tinyml MLIR) into OUTDIR.")
    parser.add_argument("model", help="the model: .onnx, .tflite (recognised by its content), "
                                      "or .mlir in the tinyml dialect")
    parser.add_argument("-o", "--output", required=True, metavar="OUTDIR",
                        help="the output directory (an existing one is replaced only if it "
                             "is empty or an earlier tinyml output)")
    parser.add_argument("--target", default=DEFAULT_TARGET,
                        help=f"the target (one of: {', '.join(COMPILE_TARGETS)}; "
                             f"default: {DEFAULT_TARGET})")
    parser.add_argument("--float-abi", choices=FLOAT_ABIS,
                        help="the object's float ABI, as the firmware's -mfloat-abi: "
                             "hard (default on a core with an FPU), softfp (float arguments "
                             "in core registers, the FPU used inside) or soft (no FPU: "
                             "integer models only)")
    parser.add_argument("--no-fusion", action="store_true",
                        help="turn all fusion off (to compare with the fused build)")
    parser.add_argument("--no-in-place", action="store_true",
                        help="compute no layer over its input or inside its consumer's "
                             "loop over rows (the memory plan 'none': a few percent fewer "
                             "instructions, a larger arena)")
    parser.add_argument("--memory-plan", choices=list(MEMORY_PLANS),
                        help="build this memory plan only (default: choose one, see "
                             "--sram-budget; the report lists the plans built)")
    parser.add_argument("--sram-budget", type=_whole_number, metavar="BYTES",
                        help="keep the memory plan with the least code whose activation "
                             "arena fits BYTES (if none fits, the plans are built again "
                             "without the forms that trade memory for speed: on a DSP "
                             "core the byte-pair matrix-vector products' packed inputs "
                             "and the small conv weights stored as int16, "
                             "on ARMv6-M the conv tiles' unsigned input stages, on every "
                             "Cortex-M but the M55 the Winograd rows); fail when none does")
    parser.add_argument("--flash-budget", type=_whole_number, metavar="BYTES",
                        help="keep the memory plan with the least arena whose object "
                             "(code and constants) fits BYTES of flash (if none fits, "
                             "built again as under --sram-budget: the Winograd rows' "
                             "weights take 24 bytes per channel pair where int8 takes "
                             "9); fail when none does (default, with neither budget: the "
                             "least arena for at most 15%% more code than the plan 'none')")
    parser.add_argument("--emit-stages", action="store_true",
                        help="also write the IR after every pipeline stage")
    parser.add_argument("--opt-level", default="Os", choices=("O1", "O2", "O3", "Os", "Oz"),
                        help="LLVM optimization level of a Cortex-M object (default: Os, "
                             "O3 is a little faster and about twice the code)")
    parser.add_argument("--emit-assembly", action="store_true",
                        help="also write the Thumb assembly <name>.s (Cortex-M targets)")
    parser.add_argument("--batch", type=_whole_number, default=1,
                        help="the value of a symbolic batch dimension (default: 1)")
    parser.add_argument("--name", help="the artefact name and C symbol (default: the model "
                                       "file name up to its first dot)")
    parser.add_argument("--streaming", action="store_true",
                        help="a TFLite model's variable tensors (SVDF, LSTM state) become state "
                             "inputs and next-state outputs the caller keeps between calls "
                             "(default: each call starts from their reset value)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The console entry point: the tool runs in a child process, so that a
    crash in upstream MLIR becomes one line and exit code 2."""
    return run_guarded("tinyml-compile", compile_command, sys.argv[1:] if argv is None else argv)


def compile_command(argv: Sequence[str]) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    try:
        from ..compiler import compile
        from ..errors import CompileError
        from ..frontend import FrontendError
        from ..pipeline.registry import PassError, PipelineError
        from ..safe_io import OutputError, check_output_dir, unreadable_reason
        if args.batch < 1:
            raise CompileError(f"--batch must be at least 1, got {args.batch}")
        reason = unreadable_reason(args.model)
        if reason:
            raise CompileError(f"cannot open model '{args.model}': {reason}")
        check_output_dir(args.output, [args.model])  # before the work, to fail fast
        phase(f"compiling '{args.model}' crashed")
        compiled = compile(args.model, target=args.target, float_abi=args.float_abi,
                           batch=args.batch, fuse=not args.no_fusion, in_place=not args.no_in_place,
                           memory_plan=args.memory_plan, sram_budget=args.sram_budget,
                           flash_budget=args.flash_budget, opt_level=args.opt_level,
                           emit_stages=args.emit_stages, emit_assembly=args.emit_assembly,
                           name=args.name, warm_up=False, streaming=args.streaming)
        compiled.save(args.output, [args.model])
    except (CompileError, FrontendError, PassError, PipelineError, OutputError) as error:
        lines = str(error).strip().splitlines() or [type(error).__name__]
        print(f"tinyml-compile: error: {lines[0]}", file=sys.stderr)
        return 1
    except Exception as error:  # a defect in tinyml itself, not bad input
        return internal_error("tinyml-compile", error)
    for layer in compiled.report.float_layers:
        print(f"tinyml-compile: warning: layer '{layer.layer}' ({layer.op}) computes in "
              "float32 in this quantized model: it has no int8 kernel", file=sys.stderr)
    report = compiled.report.to_json()
    summary: dict[str, Any] = {key: report[key] for key in ("model", "target", "macs", "kernels", "arena_bytes",
                                            "flash", "compile_seconds") if key in report}
    summary["memory_plan"] = report["options"]["memory_plan"]
    summary["output"] = str(Path(args.output))
    return print_summary(summary)


if __name__ == "__main__":
    sys.exit(main())

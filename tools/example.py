"""The main job: compile the bundled example model for a Cortex-M4, run it
in the emulator on a fixed input, and print its report (arena, flash,
instructions, error against onnxruntime). An int8 model (for example
test/models/int8/kws_dscnn.onnx) is compared with TFLite Micro running the
.tflite file beside it: the report counts the outputs that differ, and
bit-exact means 0. A .tflite model (float or int8) is compared with TFLite
Micro running it. With --qemu the model also runs in the example firmware
(examples/firmware) on QEMU's board, whose outputs must equal the
emulator's bit for bit."""
import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

import tinyml
from tinyml.frontend.tflite import is_tflite

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "models"))
import zoo  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model", nargs="?", default=str(ROOT / "examples" / "kws_dscnn.onnx"))
    parser.add_argument("--target", default="cortex-m4")
    parser.add_argument("-o", "--output", help="keep the compiled model here")
    parser.add_argument("--qemu", action="store_true",
                        help="also run it in the example firmware on QEMU's board of the "
                             "target (cortex-m4: mps2-an386, cortex-m7: mps2-an500)")
    args = parser.parse_args()

    if is_tflite(Path(args.model).read_bytes()[:8]):
        inputs = tflite_inputs(args.model)
        int8 = all(x.dtype.kind == "i" for x in inputs.values())
        reference = tflite_micro_reference(args.model, inputs)
        reference_name = "tflite-micro"
    else:
        model = onnx.load(args.model)
        inputs = zoo.random_inputs(model, seed=0)
        int8 = all(i.type.tensor_type.elem_type == onnx.TensorProto.INT8
                   for i in model.graph.input)
        reference = tflite_micro_reference(Path(args.model).with_suffix(".tflite"), inputs) \
            if int8 else zoo.reference(model, inputs)
        reference_name = "onnxruntime"
    compiled = tinyml.compile(args.model, target=args.target)
    result = compiled.run(*inputs.values(), arena_fill=b"\xff", estimate_cycles=True)
    on_qemu = compiled.run(*inputs.values(), arena_fill=b"\xff", emulator="qemu") \
        if args.qemu else None
    identical = on_qemu is None or all(q.tobytes() == u.tobytes()
                                       for q, u in zip(on_qemu.outputs, result.outputs))
    outdir = Path(args.output or tempfile.mkdtemp(prefix="tinyml-example-"))
    compiled.save(outdir)

    report = compiled.report
    error = max(float(np.max(np.abs(o.astype(np.float64) - r.reshape(o.shape))))
                for o, r in zip(result.outputs, reference))
    mismatches = sum(int((o != r.reshape(o.shape)).sum()) for o, r in zip(result.outputs, reference))
    same_class = all(int(np.argmax(o)) == int(np.argmax(r))
                     for o, r in zip(result.outputs, reference))
    flash = report.flash
    lines = [
        f"model            {report.model} ({args.model})",
        f"target           {report.target} (emulated, arena poisoned with 0xFF bytes)",
        f"MACs             {report.macs:,}",
        f"kernels          {report.kernels} loop nests",
        f"arena            {report.arena_bytes:,} B  (TFLM-style greedy {report.greedy_arena_bytes:,} B,"
        f" lower bound {report.lower_bound_bytes:,} B, naive {report.naive_arena_bytes:,} B)",
        f"peak at          {report.peak_op}",
        "memory plan      " + ", ".join(
            f"{'[' if plan.chosen else ''}{plan.plan} {plan.arena_bytes:,} B / text "
            f"{plan.text_bytes:,} B{']' if plan.chosen else ''}"
            for plan in report.memory_plans) + "  ([kept]: least arena within 15% more code)",
        f"flash            text {flash.text:,} B, rodata {flash.rodata:,} B,"
        f" data {flash.data} B, bss {flash.bss} B",
        f"instructions     {result.instructions:,} ({result.instructions / max(report.macs, 1):.2f} per MAC)",
        f"cycles estimate  {result.cycles_estimate:,} (llvm-mca per block x executed count)"
        if result.cycles_estimate else "cycles estimate  n/a",
        f"stack            {result.stack_bytes} B",
        f"mismatches       {mismatches} of {sum(o.size for o in result.outputs)} integer outputs vs "
        f"tflite-micro, argmax {'equal' if same_class else 'DIFFERENT'}" if int8 else
        f"max abs error    {error:.3g} vs {reference_name}, argmax "
        f"{'equal' if same_class else 'DIFFERENT'}",
        *([f"qemu             {on_qemu.board} (example firmware, arm-none-eabi-gcc): outputs "
           f"{'bit-identical to' if identical else 'DIFFERENT from'} the emulator's"]
          if on_qemu else []),
        f"artefacts        {outdir}",
    ]
    print("\n".join(lines))
    saved = report.to_json()
    print(json.dumps({**{k: saved[k] for k in ("model", "target", "macs", "kernels", "arena_bytes",
                                               "flash")},
                      "instructions": result.instructions, "stack_bytes": result.stack_bytes,
                      "cycles_estimate": result.cycles_estimate,
                      **({"mismatches": mismatches} if int8 else {"max_abs_error": error}),
                      "argmax_equal": same_class,
                      **({"qemu": {"board": on_qemu.board, "bit_identical": identical}}
                         if on_qemu else {})}))
    return 0 if (mismatches == 0 if int8 else error <= 1e-4) and same_class and identical else 1


def tflite_inputs(tflite_path: str) -> dict[str, np.ndarray]:
    """Inputs of a .tflite model: standard normal for float, uniform over
    the type's values for an integer one (zoo.random_inputs' convention)."""
    import tflite
    from tflite_micro.python.tflite_micro import runtime
    data = Path(tflite_path).read_bytes()
    interpreter = runtime.Interpreter.from_bytes(data)
    rng = np.random.default_rng(0)
    inputs = {}
    for index in range(tflite.Model.GetRootAsModel(data, 0).Subgraphs(0).InputsLength()):
        details = interpreter.get_input_details(index)
        shape = tuple(details["shape"])
        dtype = np.dtype(details["dtype"])
        inputs[f"input{index}"] = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max + 1,
                                               shape).astype(dtype) \
            if dtype.kind == "i" else rng.standard_normal(shape).astype(np.float32)
    return inputs


def tflite_micro_reference(tflite_path, inputs: dict) -> list[np.ndarray]:
    """TFLM's reference kernels on a .tflite file (for an int8 ONNX model,
    the one it was made from)."""
    from tflite_micro.python.tflite_micro import runtime
    interpreter = runtime.Interpreter.from_bytes(Path(tflite_path).read_bytes())
    for index, array in enumerate(inputs.values()):
        interpreter.set_input(array, index)
    interpreter.invoke()
    return [interpreter.get_output(0)]


if __name__ == "__main__":
    sys.exit(main())

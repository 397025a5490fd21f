"""The users' corpus on a Cortex-M: every model made the way users make
them (test/models/users: Keras -> TFLiteConverter in its four modes;
test/models/torch: PyTorch exports and onnxruntime quantizations), compiled
and run in the emulator; one markdown table.

    python tools/benchmark_users.py [--targets cortex-m4,cortex-m0] [--json FILE]

Columns per target: the arena, executed instructions, code (.text) bytes,
and the layers left in float (the report's `float_layers`); `refused` with
the first words of the error where the model does not compile for that
target (a float model on the M0).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import tinyml
from tinyml import CompileError

MODELS = Path(__file__).resolve().parents[1] / "test" / "models"


def corpus() -> list[Path]:
    return sorted((MODELS / "users").glob("*.tflite")) + sorted((MODELS / "torch").glob("*.onnx"))


def sample(model: tinyml.CompiledModel) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    arrays = []
    for info in model.inputs:
        if info.dtype == "int8":
            arrays.append(rng.integers(-128, 128, info.shape).astype(np.int8))
        else:
            arrays.append(rng.standard_normal(info.shape).astype(np.float32))
    return arrays


def measure(path: Path, target: str) -> dict:
    try:
        model = tinyml.compile(str(path), target=target)
    except CompileError as error:
        return {"refused": str(error).split(":")[0][:40]}
    report = model.report
    result = model.run(*sample(model))
    return {"arena": report.arena_bytes, "instructions": result.instructions,
            "text": report.flash.text, "float_layers": len(report.float_layers)}


def table(rows: list[dict], targets: list[str]) -> str:
    header = ["model"] + [f"{t} {c}" for t in targets
                          for c in ("arena B", "instructions", ".text B", "float layers")]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [row["model"]]
        for target in targets:
            m = row[target]
            cells += [m["refused"], "", "", ""] if "refused" in m else [
                f"{m['arena']:,}", f"{m['instructions']:,}", f"{m['text']:,}",
                str(m["float_layers"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="cortex-m4,cortex-m0")
    parser.add_argument("--json", help="also write the rows as JSON here")
    args = parser.parse_args()
    targets = args.targets.split(",")
    rows = [{"model": f"{path.parent.name}/{path.name}",
             **{target: measure(path, target) for target in targets}} for path in corpus()]
    print(table(rows, targets))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

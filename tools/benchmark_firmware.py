#!/usr/bin/env python3
"""The zoo's networks in the example firmware (examples/firmware, built by
arm-none-eabi-gcc) on QEMU's boards, beside the unicorn harness: whether the
outputs are bit-identical (arena poisoned in both), and what the firmware
adds to the model: flash (the image's text + data against the object's
text + rodata) and static RAM (bss against the arena).

    tools/benchmark_firmware.py

Prints the Markdown table in BENCHMARKS.md ("Firmware on QEMU")."""
import sys
from pathlib import Path

import numpy as np

import tinyml

MODELS = Path(__file__).resolve().parent.parent / "test" / "models"
NETWORKS = ["kws_dscnn", "vww_mobilenet", "resnet8", "fc_autoencoder"]
ZOOS = ("float_tflite", "int8")
TARGETS = ("cortex-m4", "cortex-m7")


def main() -> int:
    print("| model | zoo | target (board) | outputs bit-identical | model flash B "
          "| firmware flash B | firmware's own flash B | arena B | firmware bss B |")
    print("|---|---|---|---|---|---|---|---|---|")
    all_identical = True
    for name in NETWORKS:
        for zoo in ZOOS:
            for target in TARGETS:
                compiled = tinyml.compile(str(MODELS / zoo / f"{name}.onnx"), target=target)
                rng = np.random.default_rng(0)
                inputs = [rng.integers(-128, 128, i.shape).astype(np.int8) if i.dtype == "int8"
                          else rng.standard_normal(i.shape).astype(np.float32)
                          for i in compiled.inputs]
                emulated = compiled.run(*inputs, arena_fill=b"\xff")
                firmware = compiled.run(*inputs, arena_fill=b"\xff", emulator="qemu")
                identical = all(a.tobytes() == b.tobytes()
                                for a, b in zip(emulated.outputs, firmware.outputs))
                all_identical &= identical
                model = compiled.report.flash
                model_flash = model.text + model.rodata + model.data
                image = firmware.firmware_bytes
                image_flash = image["text"] + image["rodata"] + image["data"]
                print(f"| {name} | {'int8' if zoo == 'int8' else 'f32'} "
                      f"| {target} ({firmware.board}) | {'yes' if identical else 'NO'} "
                      f"| {model_flash:,} | {image_flash:,} | {image_flash - model_flash:,} "
                      f"| {compiled.arena_bytes:,} | {image['bss']:,} |", flush=True)
    return 0 if all_identical else 1


if __name__ == "__main__":
    sys.exit(main())

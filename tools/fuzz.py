#!/usr/bin/env python3
"""Seeded fuzzer of tinyml's command-line tools (the logic is in
test/fuzz/fuzz.py):

    tools/fuzz.py --cases N --seed S [--kinds onnx-bytes tflite-bytes onnx-struct
                  tflite-struct mlir compiled]
                  [--jobs 1] [--timeout 60] [--save-failures DIR] [--case INDEX]

Prints a table of outcome classes per kind and a reproducer line per failing
case; exits 0 only if every case passed."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "fuzz"))
from fuzz import main  # noqa: E402

sys.exit(main())

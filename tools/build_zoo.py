#!/usr/bin/env python3
"""Writes the tinyml model zoo (test/models/zoo.py) as <name>.onnx files.

    tools/build_zoo.py OUT_DIR [--kind mlperf|small] [NAME ...]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "models"))
import onnx  # noqa: E402

import zoo  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", help="directory to write <name>.onnx into (created)")
    parser.add_argument("--kind", choices=zoo.KINDS, help="only models of this kind")
    parser.add_argument("names", nargs="*", help="only these models (default: all)")
    args = parser.parse_intermixed_args(argv)

    unknown = [n for n in args.names if n not in zoo.MODELS]
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}")
    selected = [n for n in zoo.names(args.kind) if not args.names or n in args.names]
    os.makedirs(args.out_dir, exist_ok=True)
    for name in selected:
        path = os.path.join(args.out_dir, f"{name}.onnx")
        onnx.save_model(zoo.build(name), path)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes models of the tinyml zoo (test/models/zoo.py) as <name>.onnx files.

    tools/build_zoo.py OUT_DIR [--kind mlperf|small|frontend] [NAME ...]

Without NAMEs it writes the compiled zoo (mlperf and small), or one kind.
The frontend's lit tests write their fixtures with it.
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
    parser.add_argument("names", nargs="*",
                        help="only these models (default: the compiled zoo)")
    args = parser.parse_intermixed_args(argv)

    unknown = [n for n in args.names if n not in zoo.MODELS]
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}")
    kinds = [args.kind] if args.kind else []
    selected = [n for n in args.names or zoo.names(*kinds) if not kinds or n in zoo.names(*kinds)]
    os.makedirs(args.out_dir, exist_ok=True)
    for name in selected:
        path = os.path.join(args.out_dir, f"{name}.onnx")
        onnx.save_model(zoo.build(name), path)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

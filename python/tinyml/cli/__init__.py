"""Command-line entry points: tinyml-opt, tinyml-compile, tinyml-run."""

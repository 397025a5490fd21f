"""Test helpers that ship with tinyml (the seeded fuzzer of the command-line tools)."""

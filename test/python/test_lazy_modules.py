"""Modules tinyml imports on first use (`tinyml.ir.lazy_modules`): not
loaded by a tool's start-up, and whole for whoever uses them."""
import subprocess
import sys


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_tinyml_opt_starts_without_building_linalgs_named_ops():
    # `yaml` comes only with the OpDSL named ops that importing linalg builds.
    assert _python("import sys, tinyml.cli.opt; print('yaml' in sys.modules)") == "False"


def test_linalg_imported_after_tinyml_is_the_whole_module():
    assert _python("import tinyml, mlir.dialects.linalg; "
                   "print(mlir.dialects.linalg.GenericOp.OPERATION_NAME, "
                   "mlir.dialects.linalg.matmul.__name__)") == "linalg.generic matmul"

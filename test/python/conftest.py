"""What the tests share: the tolerance against onnxruntime, the command-line
tools run as users run them, the one-line-error check, and a cache of
compiled zoo models, so that each model is compiled once per target and
fusion setting in a test process.

Test modules import the helpers with `from conftest import ...` (pytest puts
this folder on sys.path) and take the cache as the `compiled_zoo` fixture;
this file also puts `test/models` (the zoo, the scaling families) and
`test/fuzz` (the fuzzer) on sys.path, for `import zoo`, `import fuzz`.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import tinyml

# The model builders (test/models: the zoo, the scaling families) and the
# fuzzer (test/fuzz) are the tests' and the tools'; not part of the package.
for folder in ("models", "fuzz"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / folder))
import zoo  # noqa: E402
# another order than onnxruntime and contract multiply-adds into FMAs.
TOLERANCE = 1e-4


def argmax_rows(a: np.ndarray) -> np.ndarray:
    """The class each row (the first dimension) picks; a scalar picks 0."""
    return a.reshape(a.shape[0], -1).argmax(axis=-1) if a.ndim else np.array(0)


def cli(tool: str, *args, env: dict | None = None, cwd=None, stdin: str | None = None,
        timeout: int = 600) -> subprocess.CompletedProcess:
    """`tinyml-<tool>` (compile, opt or run) in a fresh process."""
    return subprocess.run([sys.executable, "-m", f"tinyml.cli.{tool}", *map(str, args)],
                          input=stdin, capture_output=True, text=True, timeout=timeout,
                          env=env, cwd=cwd)


def assert_one_line_error(done: subprocess.CompletedProcess, tool: str, text: str = "") -> str:
    """`done` failed with exit 1 and one line `tinyml-<tool>: error: ...`
    holding `text`, and no traceback; returns the line."""
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"tinyml-{tool}: error: ") and text in lines[0], lines[0]
    assert "Traceback" not in done.stderr
    return lines[0]


def tflite_micro_output(data: bytes, x: np.ndarray) -> np.ndarray:
    """The first output of tflite-micro's interpreter on a `.tflite` model's
    bytes and one input: the reference of the int8 and TFLite tests."""
    # Imported here: only the tests that compare with TFLM pay for loading it.
    from tflite_micro.python.tflite_micro import runtime
    interpreter = runtime.Interpreter.from_bytes(data)
    interpreter.set_input(x, 0)
    interpreter.invoke()
    return interpreter.get_output(0)


def tflite_micro_frames(data: bytes, frames: list[list[np.ndarray]]) -> list[np.ndarray]:
    """The first output of one tflite-micro interpreter invoked on each
    frame (its inputs) in turn: its variables carried from call to call."""
    from tflite_micro.python.tflite_micro import runtime
    interpreter = runtime.Interpreter.from_bytes(data)
    outputs = []
    for frame in frames:
        for index, x in enumerate(frame):
            interpreter.set_input(x, index)
        interpreter.invoke()
        outputs.append(interpreter.get_output(0))
    return outputs


@pytest.fixture(scope="session")
def compiled_zoo() -> Callable[..., tinyml.CompiledModel]:
    """`compiled_zoo(name, target="host", fuse=True)`: the zoo model
    compiled with those settings, once per test process."""
    cache: dict[tuple, tinyml.CompiledModel] = {}

    def get(name: str, target: str = "host", fuse: bool = True) -> tinyml.CompiledModel:
        key = (name, target, fuse)
        if key not in cache:
            cache[key] = tinyml.compile(zoo.build(name), target=target, fuse=fuse)
        return cache[key]
    return get


def assert_import_refused(model, message: str) -> None:
    """Importing the ONNX `model` fails with one line matching `message`."""
    from tinyml.frontend import FrontendError, import_onnx
    with pytest.raises(FrontendError) as error:
        import_onnx(model)
    text = str(error.value)
    assert "\n" not in text
    assert re.search(message, text), text


# -- the quick suite (`tools/run-tests --quick`) ---------------------------------

#: The test modules that compile MLPerf-sized networks or the users' corpora,
#: run emulated Cortex-M objects, QEMU firmware or the fuzzer, or drive the
#: command lines end to end case by case (compiled folders, output safety):
#: the whole suite runs them, the quick suite (the edit-test loop) leaves them
#: out, with every test of another module that takes a full-size network as a
#: parameter (`NETWORKS`), and every test marked `@pytest.mark.network`: one
#: that compiles a full-size network in its body, or compiles every zoo model
#: for the host as test_host_zoo does (test_frontend still checks each small
#: zoo model, imported and cleaned up, against onnxruntime in the quick suite).
#: test_planner stays in: its full-size cases are parameters.
NETWORK_MODULES = {
    "test_compile_scaling", "test_compiled_folder", "test_compiled_signature", "test_cortexm",
    "test_emulator", "test_fuzz", "test_generated_code", "test_host_zoo", "test_in_place",
    "test_int8", "test_int8_tables", "test_onnx_node_gaps", "test_ort_quantized",
    "test_output_safety", "test_profile", "test_qemu", "test_torch_models",
    "test_user_models", "test_zoo",
}


def pytest_configure(config):
    config.addinivalue_line("markers", "network: compiles a full-size network or the whole zoo, "
                                       "runs emulated targets, or drives the command lines end "
                                       "to end case by case (left out by tools/run-tests --quick)")


#: The MLPerf Tiny networks (and the zoo's other full-size ones) by name: a
#: test given one of them as a parameter compiles it.
NETWORKS = re.compile(r"kws_dscnn|vww_mobilenet|resnet8|fc_autoencoder|mobilenet|cifar")


def pytest_collection_modifyitems(items):
    for item in items:
        callspec = getattr(item, "callspec", None)
        parameters = " ".join(map(str, callspec.params.values())) if callspec else ""
        if item.module.__name__ in NETWORK_MODULES or NETWORKS.search(parameters):
            item.add_marker(pytest.mark.network)

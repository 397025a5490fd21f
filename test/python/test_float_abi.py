"""`--float-abi`: a Cortex-M object for a firmware built with
-mfloat-abi=hard (the default), softfp (float arguments in core
registers, the FPU used inside) or soft (no FPU: integer models only).
Each object's build attributes say its ABI, its header refuses a firmware
built for another, and it runs in the example firmware built with the
same flags on QEMU, with the outputs of the hard-float build."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tinyml
from conftest import assert_one_line_error, cli
from tinyml.targets import qemu
from tinyml.targets.toolchain import run_tool

ROOT = Path(__file__).resolve().parents[2]
FLOAT_KWS = str(ROOT / "examples" / "kws_dscnn.onnx")
INT8_KWS = str(ROOT / "test" / "models" / "int8" / "kws_dscnn.onnx")


def _build_attributes(tmp_path, compiled: tinyml.CompiledModel) -> str:
    """The object's ARM build attributes, as llvm-readobj prints them."""
    compiled.save(tmp_path / "out")
    (obj,) = (tmp_path / "out").glob("*.o")
    return run_tool("llvm-readobj", "--arch-specific", obj)


@pytest.fixture(scope="module")
def float_kws():
    """The float KWS network, hard-float and softfp, and an input."""
    builds = {abi: tinyml.compile(FLOAT_KWS, target="cortex-m4", float_abi=abi)
              for abi in ("hard", "softfp")}
    x = np.random.default_rng(0).normal(size=builds["hard"].inputs[0].shape)
    return builds, x.astype(np.float32)


def test_a_softfp_object_passes_floats_in_core_registers(float_kws, tmp_path):
    builds, _ = float_kws
    hard = _build_attributes(tmp_path / "hard", builds["hard"])
    softfp = _build_attributes(tmp_path / "softfp", builds["softfp"])
    assert "TagName: ABI_VFP_args" in hard and "VFPv4" in hard
    # The base AAPCS (no VFP_args tag), the FPU still used.
    assert "TagName: ABI_VFP_args" not in softfp and "VFPv4" in softfp
    header = builds["softfp"].artefacts["kws_dscnn.h"]
    assert '#define TINYML_KWS_DSCNN_FLOAT_ABI "softfp"' in header
    assert builds["softfp"].report.options["float_abi"] == "softfp"


def test_a_softfp_float_model_computes_the_hard_builds_outputs(float_kws):
    builds, x = float_kws
    want = builds["hard"].run(x).outputs[0]
    assert np.array_equal(builds["softfp"].run(x).outputs[0], want)
    # Linked into the example firmware built with -mfloat-abi=softfp.
    assert np.array_equal(builds["softfp"].run(x, emulator="qemu").outputs[0], want)


def test_a_soft_object_uses_no_fpu(tmp_path):
    """An int8 model: its float-free object runs in a firmware built with
    -mfloat-abi=soft, which leaves the FPU off (an FP instruction would
    fault there)."""
    hard, soft = (tinyml.compile(INT8_KWS, target="cortex-m4", float_abi=abi)
                  for abi in ("hard", "soft"))
    attributes = _build_attributes(tmp_path, soft)
    assert "TagName: ABI_VFP_args" not in attributes and "TagName: FP_arch" not in attributes
    x = np.random.default_rng(1).integers(-128, 128, hard.inputs[0].shape).astype(np.int8)
    want = hard.run(x).outputs[0]
    assert np.array_equal(soft.run(x).outputs[0], want)
    assert np.array_equal(soft.run(x, emulator="qemu").outputs[0], want)


def test_a_firmware_of_another_float_abi_is_refused_by_the_header(float_kws):
    builds, x = float_kws
    hard = builds["hard"]
    with pytest.raises(qemu.QemuError, match="kws_dscnn.o uses the hard float ABI: build with "
                                             "-mfloat-abi=hard"):
        qemu.run_firmware(hard.function, "cortex-m4", hard._object(),
                          hard.artefacts["kws_dscnn.h"], [x],
                          [(tuple(o.shape), o.dtype) for o in hard.outputs], float_abi="softfp")


@pytest.mark.parametrize("model,target,abi,text", [
    (FLOAT_KWS, "cortex-m4", "soft", "cortex-m4 with the soft float ABI uses no FPU: only "
                                     "integer models whose every layer has an integer kernel "
                                     "compile for it"),
    (INT8_KWS, "cortex-m0", "hard", "cortex-m0 has no FPU: its objects use the soft-float ABI, "
                                    "not hard"),
    (INT8_KWS, "host", "softfp", "the host has no float ABI to choose"),
], ids=["float model, soft", "m0, hard", "host"])
def test_a_float_abi_the_target_cannot_take_is_one_line(tmp_path, model, target, abi, text):
    done = cli("compile", model, "-o", tmp_path / "out", "--target", target, "--float-abi", abi)
    assert_one_line_error(done, "compile", text)
    assert not (tmp_path / "out").exists()


def test_the_cortex_m33_takes_softfp_too():
    """FPv5-SP on ARMv8-M mainline: the same outputs with either ABI."""
    builds = [tinyml.compile(FLOAT_KWS, target="cortex-m33", float_abi=abi)
              for abi in ("hard", "softfp")]
    x = np.random.default_rng(2).normal(size=builds[0].inputs[0].shape).astype(np.float32)
    want = builds[0].run(x).outputs[0]
    assert np.array_equal(builds[1].run(x).outputs[0], want)
    # In the example firmware on mps2-an505, built with -mfloat-abi=softfp.
    assert np.array_equal(builds[1].run(x, emulator="qemu").outputs[0], want)

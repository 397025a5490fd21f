"""The example firmware (examples/firmware) around compiled models: built by
GNU's arm-none-eabi-gcc with every warning an error, run on QEMU's MPS2
boards (mps2-an386: Cortex-M4, mps2-an500: Cortex-M7) through
`tinyml-run --emulator qemu` and the Makefile a user runs. The outputs are
the unicorn harness's bit for bit, and so is the instruction count of QEMU's
plugin (count_instructions.c), the float KWS within tolerance of
onnxruntime, the int8 KWS equal to tflite-micro; what cannot run says so in
one line."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import pytest
from elftools.elf.elffile import ELFFile
from onnx import TensorProto, helper

import tinyml
import zoo
from tinyml import RunError, load
from tinyml.targets import qemu

from conftest import TOLERANCE, assert_one_line_error, cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "kws_dscnn.onnx"
INT8_KWS = ROOT / "test" / "models" / "int8" / "kws_dscnn"
FIRMWARE = ROOT / "examples" / "firmware"
#: The boards with an FPU, which run the float example.
QEMU_TARGETS = ["cortex-m4", "cortex-m7", "cortex-m33"]


@pytest.fixture(scope="module")
def example_dirs(tmp_path_factory):
    """The bundled example model compiled for each QEMU target, as the
    README does, with one input."""
    base = tmp_path_factory.mktemp("example")
    x = zoo.random_inputs(onnx.load(EXAMPLE), seed=3)
    np.save(base / "in.npy", next(iter(x.values())))
    np.save(base / "ref.npy", zoo.reference(onnx.load(EXAMPLE), x)[0])
    for target in QEMU_TARGETS:
        done = cli("compile", EXAMPLE, "-o", base / target, "--target", target)
        assert done.returncode == 0, done.stderr
    return base


def _run(outdir: Path, out: Path, *extra) -> dict:
    done = cli("run", outdir, "--input", outdir.parent / "in.npy", "--output", out, *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("target", QEMU_TARGETS)
def test_the_example_model_on_qemu_equals_the_emulator_bit_for_bit(example_dirs, target):
    outdir = example_dirs / target
    on_qemu = _run(outdir, example_dirs / f"{target}-qemu.npy", "--emulator", "qemu",
                   "--poison-arena")
    on_unicorn = _run(outdir, example_dirs / f"{target}-unicorn.npy", "--poison-arena")
    assert on_qemu["emulator"] == "qemu" and on_unicorn["emulator"] == "unicorn"
    assert on_qemu["board"] == qemu.BOARDS[target]
    # The plugin counts the call as the harness does: to the instruction.
    assert on_qemu["instructions"] == on_unicorn["instructions"] > 0
    assert on_qemu["firmware_bytes"]["bss"] >= on_qemu["arena_bytes"] > 0
    got, want = (np.load(example_dirs / f"{target}-{e}.npy") for e in ("qemu", "unicorn"))
    assert got.dtype == want.dtype == np.float32
    assert got.tobytes() == want.tobytes()
    np.testing.assert_allclose(got, np.load(example_dirs / "ref.npy"), atol=TOLERANCE)


@pytest.mark.parametrize("target", [*QEMU_TARGETS, "cortex-m3", "cortex-m55"])
def test_int8_kws_on_qemu_is_bit_exact_to_tflite_micro(target):
    """On the M4's, M7's and M33's boards, the M3's (mps2-an385, no FPU) and
    the M55's (mps3-an547: Helium code, which unicorn does not run)."""
    from tflite_micro.python.tflite_micro import runtime
    compiled = tinyml.compile(f"{INT8_KWS}.onnx", target=target)
    interpreter = runtime.Interpreter.from_bytes(Path(f"{INT8_KWS}.tflite").read_bytes())
    x = np.random.default_rng(11).integers(-128, 128, (1, 49, 10, 1)).astype(np.int8)
    interpreter.set_input(x, 0)
    interpreter.invoke()
    want = interpreter.get_output(0)
    got = compiled.run(x, arena_fill=b"\x5a", emulator="qemu")
    assert got.board == qemu.BOARDS[target] and got.instructions > 0
    assert got.outputs[0].dtype == np.int8
    assert np.array_equal(got.outputs[0].reshape(want.shape), want)
    if target != "cortex-m55":
        unicorn = compiled.run(x, arena_fill=b"\x5a")
        assert got.outputs[0].tobytes() == unicorn.outputs[0].tobytes()
        assert got.instructions == unicorn.instructions


def test_the_makefile_builds_a_clean_freestanding_link_and_runs_from_any_folder(
        example_dirs, tmp_path):
    """What the README tells a user to type, from a folder of theirs with
    relative paths: no warning at all (they would be errors), an image with
    the vector table at 0 and nothing left undefined; `make run` writes the
    outputs beside the inputs."""
    shutil.copytree(example_dirs / "cortex-m4", tmp_path / "kws")
    np.load(example_dirs / "in.npy").tofile(tmp_path / "input0.bin")
    makefile = FIRMWARE / "Makefile"
    built = subprocess.run(["make", "-f", makefile, "MODEL_DIR=kws"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    assert built.stderr == ""  # GCC and ld print warnings there
    with open(tmp_path / "build" / "firmware.elf", "rb") as stream:
        elf = ELFFile(stream)
        symbols = {s.name: s for s in elf.get_section_by_name(".symtab").iter_symbols()}
        undefined = [name for name, s in symbols.items() if name and s["st_shndx"] == "SHN_UNDEF"]
        vectors = elf.get_section_by_name(".text")
        assert vectors["sh_addr"] == 0
        initial_sp, reset = np.frombuffer(vectors.data()[:8], dtype="<u4")
    assert undefined == []
    # Nothing came from an archive: the model object needs not even libgcc.
    assert "Archive member included" not in (tmp_path / "build" / "firmware.map").read_text()
    assert initial_sp == symbols["__stack_top"]["st_value"] == 0x2040_0000
    assert reset == symbols["Reset_Handler"]["st_value"] and reset & 1  # a Thumb address
    ran = subprocess.run(["make", "-s", "-f", makefile, "MODEL_DIR=kws", "run"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert "firmware: kws_dscnn ran" in ran.stdout + ran.stderr
    got = np.fromfile(tmp_path / "output0.bin", dtype=np.float32)
    want = load(tmp_path / "kws").run(np.load(example_dirs / "in.npy")).outputs[0]
    assert got.tobytes() == want.tobytes()


def test_the_makefile_names_what_is_missing(tmp_path):
    makefile = FIRMWARE / "Makefile"
    for args, message in ((["all"], "set MODEL_DIR to the folder tinyml-compile wrote"),
                          (["MODEL_DIR=."], "must hold one model object <name>.o"),
                          (["MODEL_DIR=.", "CPU=cortex-m0"], "must hold one model object")):
        done = subprocess.run(["make", "-f", makefile, *args], cwd=tmp_path,
                              capture_output=True, text=True)
        assert done.returncode != 0 and message in done.stderr, done.stderr
    (tmp_path / "m.o").write_bytes(b"")
    done = subprocess.run(["make", "-f", makefile, "MODEL_DIR=.", "CPU=cortex-m0"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert "CPU must be cortex-m4, cortex-m7, cortex-m3, cortex-m33 or cortex-m55, not " \
        "'cortex-m0'" in done.stderr
    done = subprocess.run(["make", "-f", makefile, "MODEL_DIR=.", "CPU=cortex-m3",
                           "FLOAT_ABI=hard"], cwd=tmp_path, capture_output=True, text=True)
    assert "cortex-m3 has no FPU: FLOAT_ABI must be soft, not 'hard'" in done.stderr


@pytest.mark.parametrize("tool, package", [("make", "make"),
                                           ("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
                                           ("qemu-system-arm", "qemu-system-arm"),
                                           ("cc", "gcc")])
def test_a_missing_tool_is_named_with_its_debian_package(example_dirs, tmp_path, tool, package):
    """PATH holds every tool but one (the LLVM tools come from the wheels)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for present in ("make", "arm-none-eabi-gcc", "qemu-system-arm", "ld.lld", "cc"):
        if present != tool:
            (bin_dir / present).symlink_to(shutil.which(present))
    env = {**os.environ, "PATH": f"{bin_dir}:{Path(sys.executable).parent}"}
    done = cli("run", example_dirs / "cortex-m4", "--input", example_dirs / "in.npy",
               "--emulator", "qemu", env=env)
    assert_one_line_error(done, "run", f"{tool} not found on PATH; install it with: "
                                       f"apt-get install {package}")


def test_a_host_model_is_refused_on_qemu(tmp_path):
    compiled = tinyml.compile(zoo.build("op_relu"), target="host")
    compiled.save(tmp_path / "relu")
    x = np.zeros(compiled.inputs[0].shape, np.float32)
    np.save(tmp_path / "x.npy", x)
    done = cli("run", tmp_path / "relu", "--input", tmp_path / "x.npy", "--emulator", "qemu")
    assert_one_line_error(done, "run", "is compiled for the host, which runs no emulator")


def test_a_cortex_m0_model_is_refused_naming_the_boards():
    compiled = tinyml.compile(f"{INT8_KWS}.onnx", target="cortex-m0")
    x = np.zeros((1, 49, 10, 1), np.int8)
    with pytest.raises(RunError, match="QEMU runs cortex-m4, cortex-m7, cortex-m3, cortex-m33 "
                                       r"and cortex-m55 models \(boards mps2-an386, "
                                       r"mps2-an500, mps2-an385, mps2-an505, mps3-an547\); this "
                                       "one is compiled for cortex-m0"):
        compiled.run(x, emulator="qemu")
    with pytest.raises(RunError, match="unknown emulator 'gem5' .known: unicorn, qemu."):
        compiled.run(x, emulator="gem5")


def test_a_temporary_folder_with_a_comma_still_runs(monkeypatch, tmp_path):
    """QEMU's options and the linker's -Wl arguments split at commas: the
    firmware's folder may hold one (TMPDIR), and the run still counts."""
    folder = tmp_path / "a,b"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    model = zoo.build("op_relu")
    x = next(iter(zoo.random_inputs(model).values()))
    compiled = tinyml.compile(model, target="cortex-m4")
    on_qemu, emulated = compiled.run(x, emulator="qemu"), compiled.run(x)
    assert on_qemu.outputs[0].tobytes() == emulated.outputs[0].tobytes()
    assert on_qemu.instructions == emulated.instructions > 0


def _relu_on_qemu() -> None:
    """Compile the one-op ReLU model for the M4 and run it on QEMU."""
    model = zoo.build("op_relu")
    compiled = tinyml.compile(model, target="cortex-m4")
    compiled.run(next(iter(zoo.random_inputs(model).values())), emulator="qemu")


def test_a_counter_that_does_not_build_is_a_one_line_error(monkeypatch, tmp_path):
    broken = tmp_path / "count_instructions.c"
    broken.write_text("this is not C\n")
    monkeypatch.setattr(qemu, "COUNTER_SOURCE", broken)
    with pytest.raises(RunError, match=r"^building QEMU's instruction counter "
                                       r"\(count_instructions.c\) with \S+ failed: [^\n]+$"):
        _relu_on_qemu()


def test_a_call_the_counter_never_sees_return_is_a_one_line_error(monkeypatch):
    """The counter starts at the model's entry; given one no code is at (the
    vector table, at address 0), it counts nothing and writes nothing."""
    real = qemu._function_ranges

    def entry_in_the_vector_table(elf, names):
        return [(0, 0), *real(elf, names)[1:]]
    monkeypatch.setattr(qemu, "_function_ranges", entry_in_the_vector_table)
    with pytest.raises(RunError, match=r"^the instruction counter saw no return from \S+ on "
                                       r"mps2-an386$"):
        _relu_on_qemu()


def test_a_function_missing_from_the_image_is_named(tmp_path):
    from tinyml.targets.loader import link_object
    compiled = tinyml.compile(zoo.build("op_relu"), target="cortex-m4")
    obj = tmp_path / "model.o"
    obj.write_bytes(compiled.artefacts[f"{compiled.name}.o"])
    elf = link_object(obj, compiled.function, tmp_path / "model.elf")
    assert qemu._function_ranges(elf, [compiled.function])[0][1] > 0
    with pytest.raises(qemu.QemuError, match="^the firmware image has no function main$"):
        qemu._function_ranges(elf, [compiled.function, "main"])


def test_estimating_cycles_on_qemu_is_refused(example_dirs):
    done = cli("run", example_dirs / "cortex-m4", "--input", example_dirs / "in.npy",
               "--emulator", "qemu", "--cycles")
    assert_one_line_error(done, "run", "QEMU counts a run's instructions only: cycle "
                                       "estimates and profiles need the unicorn emulator")


def _relu_chain(elements: int) -> onnx.ModelProto:
    """x -> Relu -> Neg: big float tensors, little code."""
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["r"], ["y"])], "big",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, elements])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, elements])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_tensors_that_do_not_fit_the_board_are_a_one_line_error(tmp_path):
    """4 MB of input and 4 MB of output on a board with 4 MB of RAM: the
    firmware says which tensor found no room, and the run fails in one
    line."""
    compiled = tinyml.compile(_relu_chain(1 << 20), target="cortex-m4", name="big")
    compiled.save(tmp_path / "big")
    np.save(tmp_path / "x.npy", np.ones((1, 1 << 20), np.float32))
    done = cli("run", tmp_path / "big", "--input", tmp_path / "x.npy", "--emulator", "qemu")
    assert_one_line_error(done, "run", "the firmware failed on mps2-an386: firmware: no RAM "
                                       "left for ")


def test_an_arena_over_the_board_ram_fails_the_link_in_one_line():
    """Relu then ReduceMean, unfused: the 5 MB between them is arena."""
    elements = 5 << 18
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]),
         helper.make_node("ReduceMean", ["r"], ["y"], axes=[1], keepdims=1)], "wide",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, elements])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    compiled = tinyml.compile(model, target="cortex-m4", name="wide", fuse=False)
    assert compiled.arena_bytes > 4 << 20
    with pytest.raises(RunError, match="^building the firmware failed: .*RAM") as error:
        compiled.run(np.ones((1, elements), np.float32), emulator="qemu")
    assert "\n" not in str(error.value)


def test_a_hung_run_is_stopped_with_its_qemu(monkeypatch, example_dirs, tmp_path):
    """A QEMU that never ends (here one that sleeps) is stopped at the
    timeout, and with it every process of the run's session."""
    fake = tmp_path / "qemu-system-arm"
    fake.write_text("#!/bin/sh\nexec sleep 600\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setattr(qemu, "TIMEOUT_SECONDS", 5)
    sessions = []

    class RecordingPopen(subprocess.Popen):
        """Records the session of each process started in one of its own."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            if kwargs.get("start_new_session"):
                sessions.append(self.pid)

    monkeypatch.setattr(qemu.subprocess, "Popen", RecordingPopen)
    model = load(example_dirs / "cortex-m4")
    with pytest.raises(RunError, match="^running the firmware on mps2-an386 took more than "
                                       "5 s; stopped$"):
        model.run(np.load(example_dirs / "in.npy"), emulator="qemu")
    assert sessions and all(_live_processes_of_session(s) == [] for s in sessions)


def _live_processes_of_session(session: int) -> list[int]:
    """Processes (not zombies) whose session id is `session`."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # the process ended meanwhile
            continue
        state, sid = fields[0], int(fields[3])
        if sid == session and state != "Z":
            live.append(int(stat.parent.name))
    return live


def test_the_float_example_on_the_m55_uses_helium_and_matches(example_dirs, tmp_path):
    """The M55's build vectorizes with MVE (q registers) and computes, on
    mps3-an547, what onnxruntime does; unicorn has no M55, which a run
    there says in one line."""
    compiled = tinyml.compile(EXAMPLE, target="cortex-m55", emit_assembly=True)
    assembly = compiled.artefacts[f"{compiled.name}.s"]
    assert re.search(r"\bv(fma|mul|add)\.f32\s+q\d", assembly), "no Helium float arithmetic"
    x = np.load(example_dirs / "in.npy")
    got = compiled.run(x, emulator="qemu")
    assert got.board == "mps3-an547"
    np.testing.assert_allclose(got.outputs[0], np.load(example_dirs / "ref.npy"), atol=TOLERANCE)
    compiled.save(tmp_path / "m55")
    done = cli("run", tmp_path / "m55", "--input", example_dirs / "in.npy")
    assert_one_line_error(done, "run", "unicorn has no cortex-m55 model: run it on QEMU's "
                                       "mps3-an547 (emulator 'qemu')")


def test_weights_past_the_m55_itcm_run_from_its_ddr():
    """The float autoencoder's 1 MB of weights: on mps3-an547 the firmware
    keeps them in DDR (its code in the 512 KB ITCM)."""
    model = zoo.build("fc_autoencoder")
    m4, m55 = (tinyml.compile(model, target=t) for t in ("cortex-m4", "cortex-m55"))
    assert m55.report.flash.rodata > 512 * 1024
    x = np.random.default_rng(4).normal(size=m4.inputs[0].shape).astype(np.float32)
    got = m55.run(x, emulator="qemu").outputs[0]
    assert got.tobytes() == m4.run(x).outputs[0].tobytes()

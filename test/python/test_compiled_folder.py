"""tinyml-run and `tinyml.load` never trust a compiled folder.

report.json records the SHA-256 of every artefact and of its own content, so
a damaged or edited folder is refused with one line before anything is
allocated, mapped or JIT-compiled. "Resealed" damage (the digests recomputed
after the edit, as a buggy writer would leave it) shows that the schema and
the cross-checks against the artefacts stand on their own. Most checks call
`tinyml.cli.run.main` in-process; a few run the real CLI to prove that what
used to kill the process with a signal now exits 1.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tinyml
import zoo
from tinyml.targets import emulator
from tinyml.cli import run as run_cli
from tinyml import RunError, load
from tinyml.report import FORMAT_VERSION

NAME = "op_conv"  # a model with a non-empty arena
OTHER = "op_relu"
DAMAGED = "holds a damaged compiled model: "
EDITED = "report.json: its content does not match its report_digest"
CHANGED = "its content does not match its SHA-256 in report.json"


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Sound folders of one model for the host and the cortex-m4, another
    model's cortex-m4 folder, an input and the host's output for it."""
    base = tmp_path_factory.mktemp("compiled")
    model = zoo.build(NAME)
    (x,) = zoo.random_inputs(model).values()
    np.save(base / "x.npy", x)
    host = tinyml.compile(model, target="host")
    host.save(base / "host")
    tinyml.compile(model, target="cortex-m4").save(base / "cortex-m4")
    tinyml.compile(zoo.build(OTHER), target="cortex-m4").save(base / "other")
    return {"base": base, "x": base / "x.npy", "want": host(x)[0]}


def copy_of(folders, which: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(folders["base"] / which, tmp_path / which))


def read_report(outdir: Path) -> dict:
    return json.loads((outdir / "report.json").read_text())


def report_digest(report: dict) -> str:
    """The documented scheme, computed independently of tinyml: SHA-256 of
    the compact, key-sorted JSON of every field but `report_digest`."""
    fields = {k: v for k, v in report.items() if k != "report_digest"}
    return hashlib.sha256(json.dumps(fields, sort_keys=True,
                                     separators=(",", ":")).encode()).hexdigest()


def write_report(outdir: Path, report: dict, reseal: bool) -> None:
    if reseal:
        report = {**report, "report_digest": report_digest(report)}
    (outdir / "report.json").write_text(json.dumps(report, indent=2))


def edit_report(outdir: Path, change, reseal: bool) -> None:
    report = read_report(outdir)
    change(report)
    write_report(outdir, report, reseal)


def replace_artefact(outdir: Path, filename: str, data: bytes, reseal: bool) -> None:
    (outdir / filename).write_bytes(data)
    if reseal:
        report = read_report(outdir)
        report["artefacts"][filename] = hashlib.sha256(data).hexdigest()
        write_report(outdir, report, reseal=True)


def run_main(capsys, outdir: Path, *args) -> tuple[int, list[str]]:
    status = run_cli.main([str(outdir), *map(str, args)])
    return status, capsys.readouterr().err.strip().splitlines()


def assert_refused(capsys, outdir: Path, x: Path, text: str) -> None:
    status, lines = run_main(capsys, outdir, "--input", x)
    assert status == 1 and len(lines) == 1, lines
    assert lines[0].startswith("tinyml-run: error: ") and text in lines[0], lines[0]


# -- sound folders --------------------------------------------------------------

def test_the_report_records_every_digest(folders):
    for target in ("host", "cortex-m4"):
        outdir = folders["base"] / target
        report = read_report(outdir)
        assert report["format"] == FORMAT_VERSION == 3
        assert report["report_digest"] == report_digest(report)
        assert f"{NAME}.mlir" in report["artefacts"]
        for filename, digest in report["artefacts"].items():
            assert hashlib.sha256((outdir / filename).read_bytes()).hexdigest() == digest


@pytest.mark.parametrize("target", ["host", "cortex-m4"])
def test_a_sound_folder_runs_and_matches_the_host(folders, target, tmp_path, capsys):
    out = tmp_path / "y.npy"
    status, lines = run_main(capsys, folders["base"] / target, "--input", folders["x"],
                             "--output", out)
    assert status == 0 and lines == []
    np.testing.assert_allclose(np.load(out), folders["want"], atol=1e-4)
    loaded = load(folders["base"] / target)
    np.testing.assert_allclose(loaded(np.load(folders["x"]))[0], folders["want"], atol=1e-4)


# -- damaged report fields --------------------------------------------------------

def _set(key, value):
    return lambda report: report.__setitem__(key, value)


def _set_tensor(key, field, value):
    return lambda report: report[key][0].__setitem__(field, value)


def _halve_shape(report):
    shape = report["outputs"][0]["shape"]
    shape[-1] //= 2


# (folder, change, text): each change is written with the report resealed,
# so the field's own check must catch it.
FIELD_DAMAGE = {
    "outputs-empty": ("host", _set("outputs", []),
                      "outputs: is empty: a compiled model has at least one output"),
    "outputs-duplicated": ("host", lambda r: r["outputs"].append(r["outputs"][0]),
                           'outputs[1].name: "Conv_0" is also the name of outputs[0]'),
    "output-dtype-f16": ("host", _set_tensor("outputs", "dtype", "float16"),
                         'outputs[0].dtype: "float16" is not a dtype tinyml compiles'),
    "input-dtype-bogus": ("cortex-m4", _set_tensor("inputs", "dtype", "bogus"),
                          'inputs[0].dtype: "bogus" is not a dtype'),
    "input-name-empty": ("host", _set_tensor("inputs", "name", ""),
                         "inputs[0].name: must be a non-empty string"),
    "shape-zero": ("host", _set_tensor("outputs", "shape", [1, 0, 8, 8]),
                   "outputs[0].shape: must be a list of positive integers, got [1, 0, 8, 8]"),
    "shape-over-32-bit": ("cortex-m4", _set_tensor("inputs", "shape", [1 << 20, 1 << 20]),
                          "inputs[0].shape: [1048576, 1048576] is 4398046511104 bytes, "
                          "more than a 32-bit size can hold"),
    "shape-string": ("host", _set_tensor("inputs", "shape", "1x4x8x8"),
                     "inputs[0].shape: must be a list of positive integers"),
    "layout-bogus": ("host", _set_tensor("inputs", "layout", "CHWN"),
                     'inputs[0].layout: must be null, NCHW or NHWC, got "CHWN"'),
    "state-number": ("host", _set_tensor("inputs", "state", 5),
                     "inputs[0].state: must be null or a non-empty string, got 5"),
    "zero-point-of-float": ("host", _set_tensor("inputs", "zero_point", 3),
                            "inputs[0].zero_point: must be null for a float32 tensor, got 3"),
    "inputs-object": ("host", _set("inputs", {}), "inputs: must be a list, got {}"),
    "host-arena-zero": ("host", _set("arena_bytes", 0),
                        f"{NAME}.mlir: '_mlir_ciface_{NAME}' needs an arena of {{arena}} bytes, "
                        "the report says 0"),
    "m4-arena-zero": ("cortex-m4", _set("arena_bytes", 0),
                      f"{NAME}.mlir: '{NAME}' needs an arena of {{arena}} bytes, the report says 0"),
    "host-arena-huge": ("host", _set("arena_bytes", 1 << 40),
                        "arena_bytes: 1099511627776 is more than the 2147483648 bytes"),
    "m4-arena-huge": ("cortex-m4", _set("arena_bytes", 1 << 40),
                      f"arena_bytes: 1099511627776 is more than the {emulator.SRAM_LIMIT} "
                      "bytes a cortex-m4 run can hold"),
    "arena-string": ("host", _set("arena_bytes", "x"),
                     'arena_bytes: must be a non-negative integer, got "x"'),
    "arena-negative": ("cortex-m4", _set("arena_bytes", -16),
                       "arena_bytes: must be a non-negative integer, got -16"),
    "function-int": ("host", _set("function", 7), "function: must be a C identifier, got 7"),
    "function-unknown-host": ("host", _set("function", "nosuch"),
                              f"{NAME}.mlir: defines no function '_mlir_ciface_nosuch'"),
    "function-unknown-m4": ("cortex-m4", _set("function", "nosuch"),
                            f"{NAME}.mlir: defines no function 'nosuch'"),
    "target-bogus": ("host", _set("target", "bogus"), "target: unknown target 'bogus'"),
    "float-abi-bogus": ("cortex-m4", lambda r: r["options"].__setitem__("float_abi", "bogus"),
                        "options.float_abi: unknown float ABI 'bogus' (known: hard, softfp, "
                        "soft)"),
    "float-abi-of-host": ("host", lambda r: r["options"].__setitem__("float_abi", "soft"),
                          "options.float_abi: the host has no float ABI to choose"),
    # An M4 folder relabelled: its hard-float ABI is what the M0 cannot have.
    "target-m0": ("cortex-m4", _set("target", "cortex-m0"),
                  "options.float_abi: cortex-m0 has no FPU: its objects use the soft-float "
                  "ABI, not hard"),
    "target-host-as-m4": ("host", _set("target", "cortex-m4"),
                          f"artefacts: lists no {NAME}.o, which a cortex-m4 model needs"),
    "target-m4-as-host": ("cortex-m4", _set("target", "host"),
                          "options.float_abi: the host has no float ABI to choose"),
    "model-path": ("host", _set("model", "../op_conv"), 'model: must be a file name stem'),
    "artefacts-empty": ("host", _set("artefacts", {}),
                        f"artefacts: lists no {NAME}.mlir, which a host model needs"),
    "artefacts-list": ("cortex-m4", lambda r: r.__setitem__("artefacts", sorted(r["artefacts"])),
                       "artefacts: must be an object of file name: SHA-256"),
    "artefact-outside": ("host", lambda r: r["artefacts"].__setitem__("../x", "0" * 64),
                         'artefacts: "../x" is not an artefact\'s file name'),
    "artefact-digest-bogus": ("host", lambda r: r["artefacts"].__setitem__("memory.svg", "x"),
                              'artefacts.memory.svg: must be a SHA-256 hex digest, got "x"'),
    "format-string": ("host", _set("format", "2"), 'format: must be a positive integer, got "2"'),
    "compile-seconds-string": ("host", _set("compile_seconds", "fast"),
                               'compile_seconds: must be a non-negative number, got "fast"'),
}


@pytest.mark.parametrize("case", sorted(FIELD_DAMAGE))
def test_a_damaged_field_is_refused(folders, case, tmp_path, capsys):
    which, change, text = FIELD_DAMAGE[case]
    outdir = copy_of(folders, which, tmp_path)
    text = text.replace("{arena}", str(read_report(outdir)["arena_bytes"]))
    edit_report(outdir, change, reseal=True)
    assert_refused(capsys, outdir, folders["x"], f"'{outdir}' {DAMAGED}{text}")


@pytest.mark.parametrize("which, change", [
    ("host", _set("arena_bytes", 0)), ("cortex-m4", _set("arena_bytes", 0)),
    ("host", _halve_shape), ("cortex-m4", _halve_shape),
    ("host", _set_tensor("outputs", "name", "y")),
    ("cortex-m4", _set("target", "cortex-m7")),
], ids=["host-arena-zero", "m4-arena-zero", "host-shape-halved", "m4-shape-halved",
        "output-renamed", "m4-as-m7"])
def test_an_edited_report_is_refused(folders, which, change, tmp_path, capsys):
    # Values that pass the schema are caught by the report's own digest,
    # before the cross-checks: plausible edits the artefacts cannot
    # contradict cheaply (a halved shape, another Cortex-M) included.
    outdir = copy_of(folders, which, tmp_path)
    edit_report(outdir, change, reseal=False)
    assert_refused(capsys, outdir, folders["x"], f"'{outdir}' {DAMAGED}{EDITED}")


def test_report_digest_missing(folders, tmp_path, capsys):
    outdir = copy_of(folders, "host", tmp_path)
    edit_report(outdir, lambda r: r.pop("report_digest"), reseal=False)
    assert_refused(capsys, outdir, folders["x"],
                   f"{DAMAGED}report_digest: must be a SHA-256 hex digest, got null")


def test_an_older_format_asks_for_a_new_compile(folders, tmp_path, capsys):
    outdir = copy_of(folders, "host", tmp_path)
    edit_report(outdir, _set("format", 1), reseal=True)
    assert_refused(capsys, outdir, folders["x"],
                   f"'{outdir}' holds a model saved in report format 1; this tinyml reads "
                   f"format {FORMAT_VERSION}: compile the model again")


@pytest.mark.parametrize("content, text", [
    (b"", "report.json: not valid JSON (Expecting value: line 1 column 1 (char 0))"),
    (b'{"format": 2, "model"', "report.json: not valid JSON (Expecting ':' delimiter"),
    (b"\xff\xfe\x00garbage", "report.json: not valid JSON ("),
    (b"[" * 100000 + b"]" * 100000, "report.json: not valid JSON ("),
    (b"[2]", "report.json: must hold a JSON object, got [2]"),
], ids=["empty", "truncated", "binary", "deep", "list"])
def test_a_report_that_is_not_a_json_object(folders, content, text, tmp_path, capsys):
    outdir = copy_of(folders, "host", tmp_path)
    (outdir / "report.json").write_bytes(content)
    assert_refused(capsys, outdir, folders["x"], f"{DAMAGED}{text}")


def test_a_folder_without_a_report(folders, tmp_path, capsys):
    outdir = copy_of(folders, "cortex-m4", tmp_path)
    (outdir / "report.json").unlink()
    assert_refused(capsys, outdir, folders["x"], f"'{outdir}' is not a compiled model "
                                                 "(no report.json)")


# -- damaged artefacts ------------------------------------------------------------

def _truncated(data: bytes, other: bytes) -> bytes:
    return data[:len(data) // 2]


def _bit_flipped(data: bytes, other: bytes) -> bytes:
    return data[:0x20] + bytes([data[0x20] ^ 0x10]) + data[0x21:]


def _empty(data: bytes, other: bytes) -> bytes:
    return b""


def _swapped(data: bytes, other: bytes) -> bytes:
    return other


ARTEFACT_DAMAGE = {"truncated": _truncated, "bit-flipped": _bit_flipped, "empty": _empty,
                   "swapped": _swapped}


def _damage_artefact(folders, which, filename, damage, tmp_path, reseal) -> Path:
    """`filename` in a copy of folder `which`, damaged; a swap takes the
    other target's module, or another model's object or memory plan."""
    outdir = copy_of(folders, which, tmp_path)
    if which == "host":
        other_path = folders["base"] / "cortex-m4" / filename
    else:
        other_path = folders["base"] / "other" / filename.replace(NAME, OTHER)
    other = other_path.read_bytes()
    data = damage((outdir / filename).read_bytes(), other)
    replace_artefact(outdir, filename, data, reseal)
    return outdir


@pytest.mark.parametrize("damage", sorted(ARTEFACT_DAMAGE))
@pytest.mark.parametrize("which, filename", [("host", f"{NAME}.mlir"),
                                             ("cortex-m4", f"{NAME}.o"),
                                             ("cortex-m4", "memory.json")])
def test_a_damaged_artefact_fails_its_digest(folders, which, filename, damage, tmp_path,
                                             capsys):
    outdir = _damage_artefact(folders, which, filename, ARTEFACT_DAMAGE[damage], tmp_path,
                              reseal=False)
    assert_refused(capsys, outdir, folders["x"], f"{DAMAGED}{filename}: {CHANGED}")


# Resealed: the digests describe the damaged artefact, so the cross-checks
# against the report must catch it.
RESEALED_ARTEFACT = {
    ("host", "truncated"): f"{NAME}.mlir: not valid MLIR (",
    ("host", "empty"): f"{NAME}.mlir: defines no function '_mlir_ciface_{NAME}'",
    ("host", "swapped"): f"{NAME}.mlir: defines no function '_mlir_ciface_{NAME}'",
    ("cortex-m4", "truncated"): f"{NAME}.o: not a valid ELF object (",
    ("cortex-m4", "empty"): f"{NAME}.o: not a valid ELF object (Magic number does not match)",
    ("cortex-m4", "bit-flipped"): f"{NAME}.o: not a valid ELF object (",
    ("cortex-m4", "swapped"): f"{NAME}.o: defines no function '{NAME}' (it defines: ",
}


@pytest.mark.parametrize("which, damage", sorted(RESEALED_ARTEFACT))
def test_a_resealed_artefact_fails_the_cross_check(folders, which, damage, tmp_path, capsys):
    filename = f"{NAME}.mlir" if which == "host" else f"{NAME}.o"
    outdir = _damage_artefact(folders, which, filename, ARTEFACT_DAMAGE[damage], tmp_path,
                              reseal=True)
    assert_refused(capsys, outdir, folders["x"], f"{DAMAGED}{RESEALED_ARTEFACT[which, damage]}")


def test_an_object_for_another_machine(folders, tmp_path, capsys):
    outdir = copy_of(folders, "cortex-m4", tmp_path)
    data = bytearray((outdir / f"{NAME}.o").read_bytes())
    data[18:20] = (62).to_bytes(2, "little")  # e_machine = EM_X86_64
    replace_artefact(outdir, f"{NAME}.o", bytes(data), reseal=True)
    assert_refused(capsys, outdir, folders["x"],
                   f"{NAME}.o: not a 32-bit little-endian ARM relocatable object "
                   "(ELF32 little-endian, EM_X86_64, ET_REL)")


@pytest.mark.parametrize("replacement, text", [(None, "missing"),
                                               ("folder", "not a regular file")])
def test_a_missing_artefact(folders, replacement, text, tmp_path, capsys):
    outdir = copy_of(folders, "cortex-m4", tmp_path)
    (outdir / f"{NAME}.o").unlink()
    if replacement:
        (outdir / f"{NAME}.o").mkdir()
    assert_refused(capsys, outdir, folders["x"], f"{DAMAGED}{NAME}.o: {text}")


def test_load_raises_run_error(folders, tmp_path):
    outdir = copy_of(folders, "host", tmp_path)
    edit_report(outdir, _set("outputs", []), reseal=True)
    with pytest.raises(RunError, match=r"holds a damaged compiled model: outputs: is empty"):
        load(outdir)


# -- what used to kill the process -------------------------------------------------

@pytest.mark.parametrize("which, change", [
    ("host", _set("outputs", [])),  # SIGSEGV
    ("host", lambda r: r["outputs"].append(r["outputs"][0])),  # heap corruption
    ("cortex-m4", _set("arena_bytes", 1 << 40)),  # UcError
], ids=["outputs-empty", "outputs-duplicated", "m4-arena-huge"])
def test_the_cli_exits_1_without_a_signal(folders, which, change, tmp_path):
    outdir = copy_of(folders, which, tmp_path)
    edit_report(outdir, change, reseal=True)
    done = subprocess.run([sys.executable, "-m", "tinyml.cli.run", str(outdir),
                           "--input", str(folders["x"])],
                          capture_output=True, text=True, timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert DAMAGED in lines[0]


# -- inputs and outputs of tinyml-run ----------------------------------------------

def _npy_header(descr: str, shape: tuple) -> bytes:
    header = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode()
    header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header


@pytest.mark.parametrize("content, text", [
    (b"", "the file is empty"),
    (b"not an array", "not a plain .npy array (This file contains pickled"),
    (_npy_header("|O", (1, 4, 8, 8)), "not a plain .npy array ("),
    (_npy_header("<f4", (1 << 40,)), "not a plain .npy array ("),
    (_npy_header("<f4", (1, 4, 8, 8)) + b"\0" * 12, "not a plain .npy array ("),
    ("npz", "an .npz archive, not a .npy array"),
], ids=["empty", "text", "object-dtype", "huge-shape", "short-data", "npz"])
def test_a_bad_input_file(folders, content, text, tmp_path, capsys):
    path = tmp_path / "bad.npy"
    if content == "npz":
        np.savez(path.with_suffix(""), x=np.zeros(3))
        path.with_suffix(".npz").rename(path)
    else:
        path.write_bytes(content)
    status, lines = run_main(capsys, folders["base"] / "host", "--input", path)
    assert status == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"tinyml-run: error: cannot read input '{path}': {text}"), \
        lines[0]


def test_an_unwritable_output_is_one_line(folders, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("mine\n")
    status, lines = run_main(capsys, folders["base"] / "host", "--input", folders["x"],
                             "--output", blocker / "y.npy")
    assert status == 1 and len(lines) == 1, lines
    assert lines[0].startswith("tinyml-run: error: ") and str(blocker) in lines[0], lines[0]
    assert blocker.read_text() == "mine\n"


def test_an_internal_error_exits_2(folders, monkeypatch, capsys):
    def broken(outdir):
        raise KeyError("defect")
    monkeypatch.setattr("tinyml.compiled_model.CompiledModel.load", broken)
    status, lines = run_main(capsys, folders["base"] / "host", "--input", folders["x"])
    assert status == 2
    assert lines == ["tinyml-run: internal error: KeyError: 'defect' "
                     "(set TINYML_DEBUG=1 for the traceback)"]


# -- the emulator on its own --------------------------------------------------------

def test_the_emulator_refuses_a_bad_object(folders, tmp_path):
    x = np.load(folders["x"])
    garbage = tmp_path / "garbage.o"
    garbage.write_bytes(b"\x7fELF\x01\x01\x01")
    with pytest.raises(emulator.EmulatorError, match=r"garbage.o: not a valid ELF object"):
        emulator.run_object(garbage, NAME, [x], [(1, 8, 8, 8)], 3072)
    obj = folders["base"] / "other" / f"{OTHER}.o"
    with pytest.raises(emulator.EmulatorError, match=rf"defines no function '{NAME}'"):
        emulator.run_object(obj, NAME, [x], [(1, 8, 8, 8)], 3072)


def test_the_emulator_refuses_more_memory_than_it_maps(folders):
    x = np.load(folders["x"])
    obj = folders["base"] / "cortex-m4" / f"{NAME}.o"
    with pytest.raises(emulator.EmulatorError,
                       match=rf"more than the {emulator.SRAM_LIMIT} the emulator maps"):
        emulator.run_object(obj, NAME, [x], [(1, 8, 8, 8)], emulator.SRAM_LIMIT)

"""The artefact that runs records its signature, and `load` trusts it over
report.json (issue #30).

A report resealed with other tensor sizes, types or arena (its digest
recomputed, as a buggy writer or a hand edit would leave it) passes every
check of the report alone; the host's JIT then wrote past an output buffer
and the Cortex-M run silently truncated its output. The host's LLVM-dialect
module (`tinyml.signature`) and the Cortex-M object (its `.tinyml.signature`
section, which no firmware loads into flash) record each tensor's type and
byte size and the arena's size; any disagreement is one line naming the
report's field, exit 1.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from elftools.elf.elffile import ELFFile

from conftest import assert_one_line_error, cli
from test_compiled_folder import (NAME, edit_report, folders,  # noqa: F401 (the fixture)
                                  read_report, replace_artefact)
from tinyml import load
from tinyml.targets.cortexm import SIGNATURE_SECTION

DAMAGED = "holds a damaged compiled model: "


def _copy(folders, which: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(folders["base"] / which, tmp_path / which))


def _refused(folders, outdir: Path, text: str) -> str:
    done = cli("run", outdir, "--input", folders["x"], "--output", outdir.parent / "y.npy")
    return assert_one_line_error(done, "run", f"'{outdir}' {DAMAGED}{text}")


def _halve_output(report):
    report["outputs"][0]["shape"][-1] //= 2


def _output_int8(report):
    report["outputs"][0]["dtype"] = "int8"


def _input_as_output(report):
    # The same three arguments, named alike: only the signature tells the
    # input from the outputs.
    report["outputs"].insert(0, report["inputs"].pop())


@pytest.mark.parametrize("which", ["host", "cortex-m4"])
@pytest.mark.parametrize("change, text", [
    (_halve_output, "outputs[0].shape: [1, 8, 8, 4] is 1024 bytes, {artefact} was compiled "
                    "for 2048"),
    (_output_int8, "outputs[0].dtype: the report says int8, {artefact} was compiled for "
                   "float32"),
    (_input_as_output, "inputs: the report lists 0, {artefact} was compiled for 1"),
], ids=["output-shape-halved", "output-dtype", "input-as-output"])
def test_a_resealed_signature_is_refused(folders, which, change, text, tmp_path):
    outdir = _copy(folders, which, tmp_path)
    edit_report(outdir, change, reseal=True)
    artefact = f"{NAME}.mlir" if which == "host" else f"{NAME}.o"
    _refused(folders, outdir, text.format(artefact=artefact))
    assert not (tmp_path / "y.npy").exists()


def _without(pattern: str, outdir: Path, filename: str) -> None:
    text = (outdir / filename).read_text()
    edited = re.sub(pattern, "", text)
    assert edited != text
    replace_artefact(outdir, filename, edited.encode(), reseal=True)


def test_the_object_not_its_module_decides(folders, tmp_path):
    # The module's own arena attribute gone too, only the object's record
    # contradicts the report.
    outdir = _copy(folders, "cortex-m4", tmp_path)
    arena = read_report(outdir)["arena_bytes"]
    _without(r"tinyml\.arena_bytes = \d+ : i64, ", outdir, f"{NAME}.mlir")
    edit_report(outdir, lambda report: report.__setitem__("arena_bytes", 0), reseal=True)
    _refused(folders, outdir, f"arena_bytes: the report says 0, {NAME}.o was compiled for "
                              f"{arena}")


def test_a_module_without_a_signature_is_refused(folders, tmp_path):
    outdir = _copy(folders, "host", tmp_path)
    _without(r', tinyml\.signature = "[^"]*"', outdir, f"{NAME}.mlir")
    _refused(folders, outdir, f"{NAME}.mlir: records no signature")


def test_an_unreadable_signature_is_refused(folders, tmp_path):
    outdir = _copy(folders, "host", tmp_path)
    filename = f"{NAME}.mlir"
    text = re.sub(r'(tinyml\.signature = ")[^"]*"', r'\1outputs=float32:x"',
                  (outdir / filename).read_text())
    replace_artefact(outdir, filename, text.encode(), reseal=True)
    _refused(folders, outdir, f'{filename}: records an unreadable signature '
                              '"outputs=float32:x"')


def test_the_object_records_it_outside_flash(folders):
    outdir = folders["base"] / "cortex-m4"
    report = read_report(outdir)
    with open(outdir / f"{NAME}.o", "rb") as stream:
        section = ELFFile(stream).get_section_by_name(SIGNATURE_SECTION)
        assert section["sh_flags"] == 0  # not SHF_ALLOC: no firmware loads it
        record = section.data().decode()
    assert record == (f"inputs=float32:1024;outputs=float32:2048;"
                      f"arena_bytes={report['arena_bytes']}")


@pytest.mark.parametrize("which", ["host", "cortex-m4"])
def test_a_sound_folder_still_loads_and_runs(folders, which, tmp_path):
    done = cli("run", folders["base"] / which, "--input", folders["x"],
               "--output", tmp_path / "y.npy")
    assert done.returncode == 0, done.stderr
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), folders["want"], atol=1e-4)
    loaded = load(folders["base"] / which)
    np.testing.assert_allclose(loaded(np.load(folders["x"]))[0], folders["want"], atol=1e-4)

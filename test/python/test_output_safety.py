"""Nothing of the user's is lost: the output rules of tinyml-compile,
tinyml-opt and tinyml-run (`tinyml.safe_io`), checked through the real
command lines. Every case checks the message and that the user's files,
links and FIFOs are still what they were."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tinyml import safe_io

from conftest import assert_one_line_error

BIN = Path(sys.executable).parent
IR = """func.func @neg(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tinyml.neg %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def tool(name, *args, cwd=None):
    return subprocess.run([str(BIN / name), *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def relu_model(path: Path) -> Path:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


@pytest.fixture
def workdir(tmp_path):
    """A folder as a user keeps it: the model, a file of theirs, a FIFO, a
    symlink."""
    relu_model(tmp_path / "m.onnx")
    (tmp_path / "keep.txt").write_text("mine\n")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link").symlink_to("keep.txt")
    return tmp_path


def assert_untouched(folder: Path):
    assert (folder / "keep.txt").read_text() == "mine\n"
    assert (folder / "m.onnx").is_file()
    assert stat.S_ISFIFO(os.lstat(folder / "fifo").st_mode)
    assert (folder / "link").is_symlink() and os.readlink(folder / "link") == "keep.txt"


# -- tinyml-compile -o ---------------------------------------------------------

@pytest.mark.parametrize("outdir, message", [
    (".", "holds the input"),
    ("", "output directory name is empty"),
    ("..", "holds the input"),
    ("keep.txt", "exists and is not a directory"),
    ("link", "exists and is not a directory"),
])
def test_compile_refuses_an_output_that_would_destroy_files(workdir, outdir, message):
    line = assert_one_line_error(tool("tinyml-compile", "m.onnx", "-o", outdir, "--target", "host",
                               cwd=workdir), "compile")
    assert message in line
    assert_untouched(workdir)


def test_compile_refuses_the_models_folder_given_by_absolute_path(workdir):
    line = assert_one_line_error(tool("tinyml-compile", workdir / "m.onnx", "-o", workdir,
                               "--target", "host"), "compile")
    assert "holds the input" in line
    assert_untouched(workdir)


def test_compile_refuses_a_folder_that_is_not_a_tinyml_output(workdir):
    theirs = workdir / "theirs"
    theirs.mkdir()
    (theirs / "thesis.tex").write_text("years of work")
    line = assert_one_line_error(tool("tinyml-compile", "m.onnx", "-o", "theirs", "--target", "host",
                               cwd=workdir), "compile")
    assert "is not a tinyml output" in line
    assert (theirs / "thesis.tex").read_text() == "years of work"


def test_compile_replaces_its_own_output_but_not_a_file_added_to_it(workdir):
    assert tool("tinyml-compile", "m.onnx", "-o", "out", "--target", "host",
                cwd=workdir).returncode == 0
    marker = json.loads((workdir / "out" / safe_io.MARKER).read_text())
    assert "report.json" in marker["files"]
    assert tool("tinyml-compile", "m.onnx", "-o", "out", "--target", "host",
                cwd=workdir).returncode == 0  # an earlier tinyml output is replaced
    (workdir / "out" / "notes.txt").write_text("mine too")
    line = assert_one_line_error(tool("tinyml-compile", "m.onnx", "-o", "out", "--target", "host",
                               cwd=workdir), "compile")
    assert "notes.txt" in line
    assert (workdir / "out" / "notes.txt").read_text() == "mine too"


def test_compile_into_an_empty_folder_and_through_a_symlink(workdir):
    (workdir / "empty").mkdir()
    (workdir / "to-empty").symlink_to("empty")
    assert tool("tinyml-compile", "m.onnx", "-o", "to-empty", "--target", "host",
                cwd=workdir).returncode == 0
    assert (workdir / "to-empty").is_symlink()  # the link stays, its folder is filled
    assert (workdir / "empty" / "report.json").is_file()


def test_compile_to_a_very_deep_path_is_not_an_internal_error(workdir):
    deep = "a/" * 2000 + "o"
    result = tool("tinyml-compile", "m.onnx", "-o", deep, "--target", "host", cwd=workdir)
    assert result.returncode in (0, 1), result.stderr
    assert "internal error" not in result.stderr
    if result.returncode == 1:
        assert_one_line_error(result, "compile")
        assert not (workdir / "a").exists()  # the folders made on the way are gone again
    # shutil.rmtree (and so pytest's tmp_path clean-up) recurses once per
    # level, 2,000 levels beyond Python's stack; rm does not recurse.
    subprocess.run(["rm", "-rf", str(workdir / "a")], check=True)


def test_a_failed_compile_leaves_no_output_and_no_parent_folders(workdir):
    (workdir / "bad.onnx").write_bytes(b"not a model")
    assert_one_line_error(tool("tinyml-compile", "bad.onnx", "-o", "new/deeper/out",
                        "--target", "host", cwd=workdir), "compile")
    assert not (workdir / "new").exists()
    assert sorted(p.name for p in workdir.iterdir()) == ["bad.onnx", "fifo", "keep.txt",
                                                        "link", "m.onnx"]


@pytest.mark.parametrize("model, reason", [
    (".", "is a directory"),
    ("fifo", "is a FIFO, not a regular file"),
    ("/dev/zero", "is a device, not a regular file"),
    ("nothing.onnx", "no such file"),
])
def test_compile_names_why_a_model_cannot_be_read(workdir, model, reason):
    line = assert_one_line_error(tool("tinyml-compile", model, "-o", "out", "--target", "host",
                               cwd=workdir), "compile")
    assert line.endswith(f"cannot open model '{model}': {reason}")


def test_save_from_python_follows_the_same_rules(workdir):
    import tinyml
    compiled = tinyml.compile(workdir / "m.onnx", target="host", warm_up=False)
    with pytest.raises(safe_io.OutputError, match="is not a tinyml output"):
        compiled.save(workdir)
    assert_untouched(workdir)
    assert (compiled.save(workdir / "out") / "report.json").is_file()


# -- tinyml-opt -o ---------------------------------------------------------------

def read_fifo(path: Path, into: list):
    with open(path) as f:
        into.append(f.read())


def test_opt_writes_a_fifo_in_place_and_keeps_it_a_fifo(workdir):
    (workdir / "in.mlir").write_text(IR)
    received: list[str] = []
    reader = threading.Thread(target=read_fifo, args=(workdir / "fifo", received))
    reader.start()
    result = tool("tinyml-opt", "in.mlir", "-o", "fifo", cwd=workdir)
    reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert "tinyml.neg" in received[0]
    assert_untouched(workdir)


def test_opt_to_a_fifo_nobody_reads_is_an_error_not_a_hang(workdir):
    (workdir / "in.mlir").write_text(IR)
    line = assert_one_line_error(tool("tinyml-opt", "in.mlir", "-o", "fifo", cwd=workdir),
                          "opt")
    assert line.endswith("cannot write 'fifo': no process is reading the FIFO")
    assert_untouched(workdir)


def test_opt_writes_through_a_symlink_and_keeps_the_link(workdir):
    (workdir / "in.mlir").write_text(IR)
    assert tool("tinyml-opt", "in.mlir", "-o", "link", cwd=workdir).returncode == 0
    assert (workdir / "link").is_symlink()
    assert "tinyml.neg" in (workdir / "keep.txt").read_text()


def test_opt_output_to_a_character_device_stays_a_device(tmp_path):
    # /dev/null itself is the machine's; a test never writes it. A private
    # device node with the same numbers shows the same behaviour.
    device = tmp_path / "null"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("creating a device node needs root")
    (tmp_path / "in.mlir").write_text(IR)
    assert tool("tinyml-opt", "in.mlir", "-o", device, cwd=tmp_path).returncode == 0
    assert stat.S_ISCHR(os.lstat(device).st_mode)


@pytest.mark.parametrize("target, reason", [
    ("/proc/no-such-dir/out.mlir", "cannot create '/proc/no-such-dir': "),
    (".", "cannot write '.': it is a directory"),
    ("keep.txt/x.mlir", "cannot write 'keep.txt/x.mlir': Not a directory"),
])
def test_opt_output_that_cannot_be_written_is_one_line(workdir, target, reason):
    (workdir / "in.mlir").write_text(IR)
    line = assert_one_line_error(tool("tinyml-opt", "in.mlir", "-o", target, cwd=workdir),
                          "opt")
    assert reason in line
    assert_untouched(workdir)


def test_opt_keeps_the_mode_of_a_file_it_overwrites(workdir):
    (workdir / "in.mlir").write_text(IR)
    out = workdir / "out.mlir"
    out.write_text("old")
    out.chmod(0o640)
    assert tool("tinyml-opt", "in.mlir", "-o", out, cwd=workdir).returncode == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert "tinyml.neg" in out.read_text()
    assert not [p for p in workdir.iterdir() if p.name.endswith(".tmp")]


# -- tinyml-run --output ---------------------------------------------------------

def test_run_output_through_a_symlink_and_to_a_bad_place(workdir):
    assert tool("tinyml-compile", "m.onnx", "-o", "out", "--target", "host",
                cwd=workdir).returncode == 0
    np.save(workdir / "x.npy", np.arange(8, dtype=np.float32).reshape(1, 8) - 4)
    (workdir / "y-link").symlink_to("y.npy")
    assert tool("tinyml-run", "out", "--input", "x.npy", "--output", "y-link",
                cwd=workdir).returncode == 0
    assert (workdir / "y-link").is_symlink()
    np.testing.assert_array_equal(np.load(workdir / "y.npy"),
                                  np.maximum(np.load(workdir / "x.npy"), 0))
    line = assert_one_line_error(tool("tinyml-run", "out", "--input", "x.npy", "--output",
                               "keep.txt/y.npy", cwd=workdir), "run")
    assert "keep.txt" in line
    assert_untouched(workdir)


def test_run_piped_into_a_reader_that_stops_early_is_quiet(workdir):
    """`tinyml-run ... --profile | head -1`: the reader closes the pipe while
    the table and the JSON line are still to come. The tool stops quietly,
    as tinyml-opt does."""
    assert tool("tinyml-compile", "m.onnx", "-o", "out", "--target", "host",
                cwd=workdir).returncode == 0
    np.save(workdir / "x.npy", np.zeros((1, 8), dtype=np.float32))
    reader_gone = subprocess.Popen(
        [str(BIN / "tinyml-run"), "out", "--input", "x.npy", "--profile"], cwd=workdir,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader_gone.stdout.close()
    stderr = reader_gone.stderr.read().decode()
    assert reader_gone.wait(timeout=300) == 0
    assert stderr == ""
    assert_untouched(workdir)

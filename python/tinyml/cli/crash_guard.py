"""A crash guard for the command-line tools.

The MLIR wheels are built with assertions on, so some bad input makes
upstream MLIR abort the whole process (an assertion in a parser or a pass)
instead of reporting an error. Python cannot catch that, so `run_guarded`
runs the tool's real work in a forked child and watches it from the parent:

- the child inherits stdin and stdout (output streams as it is written);
- the child's stderr goes to a pipe; when the child exits on its own the
  parent forwards it unchanged and exits with the child's status;
- when the child dies by a crash signal the parent prints one line,
  `<tool>: internal error: <what was running> (SIGABRT); ...`, and exits 2
  (with TINYML_DEBUG=1 followed by the child's raw stderr, the assertion
  text included);
- "what was running" is what the child last passed to `phase()`, kept in a
  page of shared memory that survives the child's death.

An interrupt (Ctrl-C, SIGTERM, SIGHUP) is not a crash: the parent passes
SIGTERM and SIGHUP on to the child (the terminal sends Ctrl-C to both) and
then ends by the same signal, as the child did.
"""
from __future__ import annotations

import gc
import json
import mmap
import os
import signal
import sys
import traceback
import warnings
from typing import Callable, Sequence

_RECORD_BYTES = 4096
_LENGTH_BYTES = 4
# Set in the child: where phase() writes. None when not guarded.
_record: mmap.mmap | None = None

_ASSERTION = "this is an assertion in upstream MLIR, not a problem tinyml can report precisely"
_NATIVE_CRASH = "this is a crash in native code (upstream MLIR), not a problem tinyml can " \
                "report precisely"
_KILLED = "it was killed from outside, most often by the out-of-memory killer"
_EXPLANATIONS: dict[int, str] = {signal.SIGABRT: _ASSERTION, signal.SIGKILL: _KILLED}
# Deaths the user asked for: the parent ends the same way instead of
# reporting an internal error.
_REQUESTED = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE}
_FORWARDED = (signal.SIGTERM, signal.SIGHUP)


def phase(description: str) -> None:
    """Records what the guarded child is about to do, worded as the crash
    message should say it, e.g. "pass 'sccp' crashed on 'in.mlir'". Cheap
    (a write to shared memory); a no-op when not running under
    `run_guarded`."""
    if _record is None:
        return
    data = description.encode("utf-8", "replace")[:_RECORD_BYTES - _LENGTH_BYTES]
    _record[_LENGTH_BYTES:_LENGTH_BYTES + len(data)] = data
    _record[:_LENGTH_BYTES] = len(data).to_bytes(_LENGTH_BYTES, "little")


def run_guarded(tool_name: str, main: Callable[[Sequence[str]], int | None],
                argv: Sequence[str]) -> int:
    """Runs `main(argv)` in a forked child and returns the exit status the
    tool should end with: the child's own, or 2 after one line on stderr if
    the child crashed.

    Call it first thing in the console entry point, before any MLIRContext
    exists (contexts start thread pools, and a fork copies only the calling
    thread). `main` must do all its work and cleanup before returning: the
    child ends with os._exit, so atexit handlers do not run there. Calls
    nested inside a guarded child, and calls with sys.stdout/sys.stderr
    replaced by non-file streams (pytest's capsys), run `main` in-process,
    unguarded.
    """
    if _record is not None or not _has_real_std_streams() or not hasattr(os, "fork"):
        return _status(main, argv)
    record = mmap.mmap(-1, _RECORD_BYTES)
    stderr_read, stderr_write = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    with warnings.catch_warnings():
        # Python 3.12+ warns about forking a multi-threaded process; the only
        # thread at this point is numpy's idle BLAS pool, which handles fork.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        # A caller with MLIR contexts (a test harness running the tool in a
        # process of its own) left its garbage to its own collector: here,
        # destroying a context would join threads the fork did not copy.
        gc.freeze()
        os.close(stderr_read)
        os.dup2(stderr_write, sys.stderr.fileno())
        os.close(stderr_write)
        _run_child(record, main, argv)
    os.close(stderr_write)
    return _supervise(tool_name, pid, stderr_read, record)


def reader_gone() -> int:
    """The status of a tool whose stdout reader has gone (`| head`): 0, after
    pointing stdout at /dev/null so that what is still buffered does not
    fail again at exit (the recipe of Python's `signal` docs)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 0


def internal_error(tool_name: str, error: Exception) -> int:
    """Status 2, after one line saying that `error` is a defect in tinyml
    itself, not a verdict on the input; with TINYML_DEBUG set it is raised
    again, for its traceback."""
    if os.environ.get("TINYML_DEBUG"):
        raise error
    text = str(error).strip()
    print(f"{tool_name}: internal error: {type(error).__name__}: "
          f"{text.splitlines()[0] if text else ''} (set TINYML_DEBUG=1 for the traceback)",
          file=sys.stderr)
    return 2


def print_summary(summary: dict) -> int:
    """Prints a tool's one-line JSON summary; 0, also when the reader has gone."""
    try:
        print(json.dumps(summary))
    except BrokenPipeError:
        return reader_gone()
    return 0


def _has_real_std_streams() -> bool:
    try:
        return sys.stdout.fileno() == 1 and sys.stderr.fileno() == 2
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return False


def _status(main: Callable[[Sequence[str]], int | None], argv: Sequence[str]) -> int:
    """main's return value, or the status its SystemExit asks for."""
    status: str | int | None
    try:
        status = main(argv)
    except SystemExit as exit_request:
        status = exit_request.code
        if status is not None and not isinstance(status, int):
            print(status, file=sys.stderr)
            status = 1
    return status or 0


def _run_child(record: mmap.mmap, main, argv) -> None:
    global _record
    _record = record
    status = 1
    try:
        status = _status(main, argv)
    except KeyboardInterrupt:
        # End by SIGINT, as Python itself would, so the parent can too.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:  # what Python does with an uncaught exception
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe, a closed stream
                pass
        os._exit(status)


def _supervise(tool_name: str, pid: int, stderr_read: int, record: mmap.mmap) -> int:
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, *_FORWARDED)}
    # Ctrl-C reaches the child from the terminal; the child decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def forward(received: int, _frame) -> None:
        try:
            os.kill(pid, received)
        except ProcessLookupError:  # the child has just ended
            pass

    signum: int  # a forwarded signal, then the one the child died of
    for signum in _FORWARDED:
        signal.signal(signum, forward)
    try:
        stderr = bytearray()
        while data := os.read(stderr_read, 1 << 16):
            stderr += data
        os.close(stderr_read)
        _, wait_status = os.waitpid(pid, 0)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if not os.WIFSIGNALED(wait_status):
        _write_stderr(bytes(stderr))
        return os.waitstatus_to_exitcode(wait_status)
    signum = os.WTERMSIG(wait_status)
    if signum in _REQUESTED:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return 128 + signum
    length = int.from_bytes(record[:_LENGTH_BYTES], "little")
    what = record[_LENGTH_BYTES:_LENGTH_BYTES + length].decode("utf-8", "replace") \
        or f"{tool_name} crashed"
    explanation = _EXPLANATIONS.get(signum, _NATIVE_CRASH)
    line = f"{tool_name}: internal error: {what} ({_signal_name(signum)}); {explanation}\n"
    _write_stderr(line.encode() + (bytes(stderr) if os.environ.get("TINYML_DEBUG") else b""))
    return 2


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:  # a real-time signal has no name
        return f"signal {signum}"


def _write_stderr(data: bytes) -> None:
    try:
        sys.stderr.buffer.write(data)
        sys.stderr.flush()
    except OSError:  # nobody is reading stderr any more
        pass

"""Writing files and output folders without ever destroying what the user has.

Every file a tinyml tool writes goes through `write_file`, every output
folder through `replace_output_dir`. The rules:

- A regular file (or a new path) is written to a temporary file beside it
  and renamed into place, so a reader never sees half a file. A symlink is
  followed: the file it points to is written, the link stays a link. A FIFO,
  a device or anything else that is not a regular file is written in place:
  renaming over it would replace `/dev/null` by a regular file when tinyml
  runs as root.
- An output folder is built beside its final place and renamed into it. An
  existing folder is replaced only when it is empty or holds nothing but
  what an earlier tinyml run wrote there, as listed in its marker file
  `.tinyml-output`; anything else is refused. A folder that holds, or is
  above, an input of the run is refused too.
- Folders created on the way to an output are removed again when the write
  fails, so a failed run leaves nothing behind.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Callable, Iterable

MARKER = ".tinyml-output"


class OutputError(ValueError):
    """An output path tinyml must not or cannot write; the message is one
    line naming the path."""


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def make_dirs(path: Path) -> list[Path]:
    """Creates `path` and its missing parents, without recursion (a path
    thousands of levels deep must not exhaust Python's stack). Returns the
    folders it created, outermost first, for `remove_created`."""
    missing = []
    current = Path(os.path.abspath(path))
    while not os.path.exists(current):
        if os.path.islink(current):  # a dangling link: do not create through it
            raise OutputError(f"cannot create '{path}': '{current}' is a dangling symlink")
        missing.append(current)
        current = current.parent
    if not os.path.isdir(current):
        raise OutputError(f"cannot create '{path}': '{current}' is not a directory")
    created: list[Path] = []
    try:
        for folder in reversed(missing):
            os.mkdir(folder)
            created.append(folder)
    except OSError as error:
        remove_created(created)
        raise OutputError(f"cannot create '{path}': {_reason(error)}") from None
    return created


def remove_created(created: list[Path]) -> None:
    """Removes folders `make_dirs` created, innermost first, if still empty."""
    for folder in reversed(created):
        try:
            os.rmdir(folder)
        except OSError:
            return


def write_file(path: str | os.PathLike, data: bytes | str) -> None:
    """Writes `data` to `path` under the rules of this module; raises
    OutputError with one line when it cannot."""
    payload = data.encode() if isinstance(data, str) else data
    target = Path(os.path.realpath(path))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise OutputError(f"cannot write '{path}': {_reason(error)}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise OutputError(f"cannot write '{path}': it is a directory")
    if mode is not None and not stat.S_ISREG(mode):
        _write_in_place(path, target, payload)
        return
    created = make_dirs(target.parent)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except OSError as error:
        if tmp is not None and os.path.lexists(tmp):
            os.unlink(tmp)
        remove_created(created)
        raise OutputError(f"cannot write '{path}': {_reason(error)}") from None


def _write_in_place(path, target: Path, payload: bytes) -> None:
    # O_NONBLOCK: opening a FIFO nobody reads fails at once (ENXIO) instead
    # of hanging the tool; the write itself then blocks as usual.
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as error:
        reason = "no process is reading the FIFO" if error.errno == errno.ENXIO \
            else _reason(error)
        raise OutputError(f"cannot write '{path}': {reason}") from None
    try:
        os.set_blocking(fd, True)
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
    except OSError as error:
        raise OutputError(f"cannot write '{path}': {_reason(error)}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _listed_files(folder: Path) -> set[str] | None:
    """The files the marker of `folder` says tinyml wrote, or None when
    the folder has no readable marker."""
    try:
        listed = json.loads((folder / MARKER).read_text())["files"]
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    return set(listed) if isinstance(listed, list) and all(
        isinstance(name, str) for name in listed) else None


def _contents(folder: Path) -> set[str]:
    """Every file and folder under `folder`, as paths relative to it. A
    stack, not os.walk: os.walk recurses once per level of nesting."""
    found, pending = set(), [""]
    while pending:
        relative = pending.pop()
        with os.scandir(folder / relative) as entries:
            for entry in entries:
                path = os.path.join(relative, entry.name)
                found.add(path)
                if entry.is_dir(follow_symlinks=False):
                    pending.append(path)
    return found


def check_output_dir(outdir: str | os.PathLike, inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """The resolved output folder, after checking that tinyml may write it:
    it is not empty text, not a file, not an input's folder or above it, and
    if it exists it is empty or holds only an earlier tinyml output."""
    if str(outdir).strip() == "":
        raise OutputError("the output directory name is empty")
    folder = Path(os.path.realpath(outdir))
    for source in inputs:
        source_dir = Path(os.path.realpath(source)).parent
        if folder == source_dir or folder in source_dir.parents:
            raise OutputError(f"output directory '{outdir}' holds the input '{source}'; "
                              "choose a new folder for the output")
    if not os.path.lexists(folder):
        return folder
    if not folder.is_dir():
        raise OutputError(f"output directory '{outdir}' exists and is not a directory")
    contents = _contents(folder)
    if not contents:
        return folder
    listed = _listed_files(folder)
    if listed is None:
        raise OutputError(f"output directory '{outdir}' exists and is not a tinyml output "
                          f"(no {MARKER} marker); choose a new folder or empty it")
    foreign = sorted(contents - listed - {MARKER} - _parents(listed))
    if foreign:
        raise OutputError(f"output directory '{outdir}' holds files tinyml did not write "
                          f"({', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}); "
                          "move them or choose a new folder")
    return folder


def _parents(files: set[str]) -> set[str]:
    return {str(parent) for name in files for parent in Path(name).parents if str(parent) != "."}


def replace_output_dir(outdir: str | os.PathLike, fill: Callable[[Path], None],
                       inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """Calls `fill(folder)` on a fresh folder beside `outdir`, writes the
    marker listing what it wrote, and renames it into place, replacing an
    earlier tinyml output there. Returns the final folder."""
    folder = check_output_dir(outdir, inputs)
    created = make_dirs(folder.parent)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".tmp", dir=folder.parent))
    except OSError as error:
        remove_created(created)
        raise OutputError(f"cannot write '{outdir}': {_reason(error)}") from None
    try:
        fill(tmp)
        (tmp / MARKER).write_text(json.dumps({"tool": "tinyml",
                                              "files": sorted(_contents(tmp))}) + "\n")
        os.chmod(tmp, 0o777 & ~_umask())
        if os.path.lexists(folder):
            check_output_dir(outdir, inputs)  # nothing of the user's appeared meanwhile
            previous = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".old",
                                             dir=folder.parent))
            os.rename(folder, previous / "previous")
            os.rename(tmp, folder)
            shutil.rmtree(previous, ignore_errors=True)
        else:
            os.rename(tmp, folder)
    except OSError as error:
        shutil.rmtree(tmp, ignore_errors=True)
        remove_created(created)
        raise OutputError(f"cannot write '{_written(outdir, tmp, error)}': "
                          f"{_reason(error)}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        remove_created(created)
        raise
    return folder


def _written(outdir: str | os.PathLike, tmp: Path, error: OSError) -> str:
    """The path in `outdir` that `error`, raised on its stand-in in `tmp`, is
    about: a file whose name is too long names itself."""
    try:
        return str(Path(outdir) / Path(error.filename).relative_to(tmp))
    except (TypeError, ValueError):
        return str(outdir)


def add_to_output_dir(outdir: str | os.PathLike, files: dict[str, bytes | str]) -> list[Path]:
    """Writes `files` (name: content) into an existing tinyml output folder
    and lists them in its marker, so that a later compile may still replace
    the folder. A file there that the marker does not list is the user's and
    is never overwritten; a folder without a marker is not tinyml's. Raises
    OutputError (one line) before writing anything when it may not write."""
    folder = Path(outdir)
    listed = _listed_files(folder)
    if listed is None:
        raise OutputError(f"cannot write into '{outdir}': it is not a tinyml output "
                          f"(no readable {MARKER} marker)")
    for name in files:
        if os.path.lexists(folder / name) and name not in listed:
            raise OutputError(f"cannot write '{folder / name}': a file tinyml did not write "
                              f"is there (not listed in {MARKER})")
    # The marker first: a failure below leaves a listed file missing, which
    # is harmless, never an unlisted one, which would block the next compile.
    write_file(folder / MARKER, json.dumps({"tool": "tinyml",
                                           "files": sorted(listed | set(files))}) + "\n")
    for name, data in files.items():
        write_file(folder / name, data)
    return [folder / name for name in files]


def unreadable_reason(path: str | os.PathLike) -> str | None:
    """Why `path` cannot be read as an input file (`no such file`, `is a
    directory`, `is a FIFO, not a regular file`, ...), or None when it can
    be tried. Reading a FIFO or a device would block or never end."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as error:
        return _reason(error)
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory"
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or
            stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file")
    return f"is {kind}, not a regular file"

"""Files written all or nothing: a temporary file beside the target, renamed onto it at the end
(a target that is a device or a FIFO, such as /dev/null, gets the finished bytes written through,
since renaming would replace it with a regular file).

A reader never sees half a file, and a failed write leaves the old file (or none) in place.
"""
from __future__ import annotations

import errno
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def replaced(path: str | Path, make_folder: bool = False) -> Iterator[str]:
    """Yield a temporary path beside `path` to write; on success it becomes `path` (with the
    permissions a new file gets), on any error it is removed. OSError passes through."""
    target = Path(path).resolve()
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder", str(target))
    special = target.exists() and not target.is_file()
    if special:   # /dev/null, a FIFO: written through once complete, never renamed over
        fd, tmp = tempfile.mkstemp(prefix=".puzzleplan-", suffix=target.suffix)
    else:
        if make_folder:
            target.parent.mkdir(parents=True, exist_ok=True)
        elif not target.parent.is_dir():   # named here: mkstemp's error would name the temporary file
            raise FileNotFoundError(errno.ENOENT, "no such folder", str(target.parent))
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".puzzleplan-", suffix=target.suffix)
    os.close(fd)
    try:
        yield tmp
        if special:
            with open(tmp, "rb") as source, open(target, "wb") as sink:
                shutil.copyfileobj(source, sink)
            return
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)   # mkstemp makes 0600
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def probe_folder(folder: str | Path) -> None:
    """OSError unless a new file can be made in `folder` (as `replaced` will make one there):
    tried with a temporary file, removed at once."""
    fd, probe = tempfile.mkstemp(dir=folder, prefix=".puzzleplan-")
    os.close(fd)
    os.unlink(probe)


def write_bytes(path: str | Path, data: bytes, make_folder: bool = False) -> None:
    """Write `data` to `path` all or nothing (OSError on failure)."""
    with replaced(path, make_folder) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)


__all__ = ["probe_folder", "replaced", "write_bytes"]

"""Opening a fixed-name file of ours for writing or locking (a log, a lock file, a lease), never trusted by its name.

Why: a file with a fixed name in a folder is found, not made fresh. A FIFO planted there blocks an ``open`` for
writing forever (and so whatever waits on us), a symlink redirects what we write to wherever it points, and another
user's file (or our own, left open to others) is not ours to append to or lock. So the file is opened without
following a symlink and without blocking (``O_NOFOLLOW | O_NONBLOCK``), and ``fstat`` must then say: a regular file
owned by this user. Only then is it truncated (``O_TRUNC`` would empty someone else's file before the check) and
put back to blocking mode. Files created here are 0600.

Standard library only, no package imports: openclaw's keeper runs as ``python -I -S`` and loads this file by path.
Reading such a file is :mod:`acp_mux.core.files.state_files`; a file written whole (a registration, a token, a config) is
replaced in one step by :func:`write_atomic`, so what was planted at its name is neither followed nor waited on.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

_SAFE = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class NotOurFile(OSError):
    """A path we will not open: a symlink, not a regular file, or another user's file."""


def open_own(path: str | os.PathLike[str], flags: int, mode: int = 0o600) -> int:
    """A descriptor of the regular file of ours at ``path`` (``flags`` as for :func:`os.open`, e.g.
    ``O_RDWR | O_CREAT``), opened without following a symlink and without blocking; :class:`NotOurFile` for
    anything else there (FileNotFoundError stays itself). ``O_TRUNC`` is applied only after the check."""
    truncate = bool(flags & os.O_TRUNC)
    try:
        fd = os.open(path, (flags & ~os.O_TRUNC) | _SAFE, mode)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise NotOurFile(exc.errno, f"{os.fspath(path)} cannot be opened as a plain file: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotOurFile(f"{os.fspath(path)} is not a regular file; not used")
        if info.st_uid != os.getuid():
            raise NotOurFile(f"{os.fspath(path)} belongs to another user (uid {info.st_uid}); not used")
        if truncate:
            os.ftruncate(fd, 0)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step (a temp file renamed over it: a symlink there is replaced, not
    followed; a FIFO is replaced, not waited on). The temp file is 0600 from birth."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

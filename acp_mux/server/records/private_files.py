"""Files the bridge keeps for the person (session records and logs): private, and never reached through a link.

Every open here refuses symlinks at the last path component (``O_NOFOLLOW``) and creates files 0600 and directories
0700, tightening ones an older version created wider. Only regular files and directories owned by this user are
used: a FIFO, a device or another user's file found where ours should be is refused (read or written), never
waited on. A directory that is itself a symlink is refused: a planted
link must not redirect what we write about someone's sessions. Appends take an exclusive ``flock`` so a writer and a
``prune`` that rewrites the file never interleave, and a writer that finds the file replaced under it reopens.
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Callable
from pathlib import Path

from acp_mux.core.files.own_files import write_atomic as write_atomic  # re-exported: the store writes through here
from acp_mux.core.files.state_files import SMALL_FILE_BYTES, open_state_file, read_state_file

FILE_MODE = 0o600
DIR_MODE = 0o700
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO planted where a log should be must not block the open


class UnsafePath(OSError):
    """A path we will not use: a symlink, or not a regular file/directory where one is expected."""


def private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) 0700; refuse a symlink or another user's directory (what we write about
    someone's sessions must not land where someone else can read or swap it); tighten one we own to 0700."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise UnsafePath(f"{path} is not a plain directory (a symlink?); refusing to use it")
    if info.st_uid != os.getuid():
        raise UnsafePath(f"{path} belongs to another user (uid {info.st_uid}); refusing to use it")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, DIR_MODE)
    return path


def is_plain_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def open_read(path: Path) -> int:
    """A read-only descriptor of a regular file of ours, never through a symlink, never blocking on a FIFO
    (:func:`acp_mux.core.files.state_files.open_state_file`; raises OSError otherwise)."""
    return open_state_file(path)


def read_bytes(path: Path, limit: int = SMALL_FILE_BYTES) -> bytes:
    """A small state file's bytes (a record): at most ``limit``, else OSError."""
    return read_state_file(path, limit)


def append_locked(path: Path, data: bytes) -> None:
    """Append ``data`` (whole lines) under an exclusive lock. A torn last line left by a crash is first ended with
    a newline, so it stays one unreadable line (skipped on read) instead of swallowing the lines we add."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC | _NONBLOCK, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            info = os.fstat(fd)
            try:
                current = os.stat(path, follow_symlinks=False)
            except FileNotFoundError:
                current = None
            if current is None or (current.st_ino, current.st_dev) != (info.st_ino, info.st_dev):
                continue  # replaced (pruned) or removed while we waited for the lock: write to what is there now
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
                raise UnsafePath(f"{path} is not a regular file of ours")
            if stat.S_IMODE(info.st_mode) != FILE_MODE:
                os.fchmod(fd, FILE_MODE)
            if info.st_size and os.pread(fd, 1, info.st_size - 1) != b"\n":
                data = b"\n" + data
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            return
        finally:
            os.close(fd)


def rewrite_locked(path: Path, transform: Callable[[bytes], bytes | None]) -> bool:
    """Rewrite ``path`` as ``transform(old_bytes)`` while holding its lock (writers wait, then reopen the new file).
    ``transform`` returning None leaves the file as it is. True when the file was rewritten."""
    try:
        fd = open_read(path)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with os.fdopen(os.dup(fd), "rb") as fh:
            new = transform(fh.read())
        if new is None:
            return False
        write_atomic(path, new)
        return True
    finally:
        os.close(fd)


def remove(path: Path) -> bool:
    """Unlink a file (a symlink itself, never its target); True when something was removed."""
    try:
        os.unlink(path)
        return True
    except FileNotFoundError:
        return False

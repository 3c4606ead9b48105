"""Reading a file the bridge itself keeps (a session record or log, the last agent, an agent's remembered settings).

Why this check: such a file sits in a folder the person owns, but whatever is found there is input, not a promise.
A FIFO where a record should be blocks a plain ``open`` forever; a device (``/dev/zero``) never ends; a directory or
socket makes ``read`` fail in odd ways; a file planted by another user (or a symlink to one) is not ours to trust.
So a state file is opened without following a symlink and without blocking (``O_NOFOLLOW | O_NONBLOCK``), then
``fstat`` must say: a regular file, owned by this user. Reads are capped, so a huge file costs bounded memory.
Standard library only: the launcher reads remembered settings before anything else is imported.
"""

from __future__ import annotations

import os
import stat

_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
SMALL_FILE_BYTES = 1 << 20  # a record, a preference, remembered settings: a few KB in practice


class NotAStateFile(OSError):
    """A path we will not read: a symlink, not a regular file, or not owned by this user."""


def open_state_file(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of a regular file of ours, opened without following a symlink and without blocking
    (a FIFO must not hang us). FileNotFoundError when there is none; :class:`NotAStateFile` for anything else there."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise NotAStateFile(exc.errno, f"{os.fspath(path)} cannot be opened as a plain file: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotAStateFile(f"{os.fspath(path)} is not a regular file; skipped")
        if info.st_uid != os.getuid():
            raise NotAStateFile(f"{os.fspath(path)} belongs to another user (uid {info.st_uid}); skipped")
        os.set_blocking(fd, True)  # a regular file never blocks; plain reads from here on
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_state_file(path: str | os.PathLike[str], limit: int = SMALL_FILE_BYTES) -> bytes:
    """The bytes of a state file (see :func:`open_state_file`); :class:`NotAStateFile` when it holds more than
    ``limit`` bytes, so a planted giant is refused instead of read."""
    fd = open_state_file(path)
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise NotAStateFile(f"{os.fspath(path)} is larger than {limit} bytes; skipped")
    return data

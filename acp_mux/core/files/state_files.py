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

from acp_mux.core.files.own_files import NotOurFile, open_own

SMALL_FILE_BYTES = 1 << 20  # a record, a preference, remembered settings: a few KB in practice

NotAStateFile = NotOurFile  # a path we will not read: a symlink, not a regular file, or not owned by this user


def open_state_file(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of a regular file of ours, opened without following a symlink and without blocking
    (a FIFO must not hang us). FileNotFoundError when there is none; :class:`NotAStateFile` for anything else there.
    The one check (:func:`~acp_mux.core.files.own_files.open_own`) also serves the files the bridge writes."""
    return open_own(path, os.O_RDONLY)


def read_state_file(path: str | os.PathLike[str], limit: int = SMALL_FILE_BYTES) -> bytes:
    """The bytes of a state file (see :func:`open_state_file`); :class:`NotAStateFile` when it holds more than
    ``limit`` bytes, so a planted giant is refused instead of read."""
    fd = open_state_file(path)
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise NotAStateFile(f"{os.fspath(path)} is larger than {limit} bytes; skipped")
    return data

"""Follow a log file another process appends to: its new lines as they appear, at constant cost per line.

Why: some agents say what they are doing only in a log file of their own, not on stdout or stderr — omp's retries
of a failing model are lines of ``~/.omp/logs/omp.<date>.<pid>.log``, gemini's are lines of the file named by
``GEMINI_DEBUG_LOG_FILE``. The run reads such a file beside the agent's output (:class:`SideLog`, from the
adapter's ``side_logs``) so those lines can become events while the person waits.

What it promises, as a careful reader of a file it does not own must:
- every byte is read once (the offset only moves forward; a poll reads what was appended since the last one);
- memory is bounded: a line longer than ``max_line`` bytes is dropped whole (never cut into pieces that could be
  misread as lines of their own), and one poll reads at most ``max_poll_bytes``;
- only a regular file owned by this user is read, opened without following a symlink and without blocking (a FIFO
  or device planted at the path is refused, never waited on);
- the file may be replaced (rotation to a new name, or truncation): the rest of the old one is read first, then the
  new one from its start;
- a file already present at the first poll is followed from its end: what it held was written before this run
  (an earlier process with the same pid, for a file named by pid) — unless it changed at or after ``since`` (the
  agent's spawn): then the agent wrote it, perhaps before the first poll came round on a busy machine, and it is
  read from its start.
"""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING, AsyncIterator, Callable, Iterable

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent
    from acp_mux.core.run.parse_context import ParseContext

MAX_LINE = 64 * 1024
MAX_POLL_BYTES = 1024 * 1024
POLL_S = 0.2


@dataclass(frozen=True)
class SideLog:
    """A log file an agent writes beside its output: ``find`` says where it is now (None: not yet), ``events``
    turns one of its lines into events (called on the run's loop, like ``parse_line``)."""

    find: Callable[[], str | None]
    events: Callable[[str, "ParseContext"], "Iterable[BaseEvent]"]


class LogFollower:
    """Reads the lines appended to the file ``find()`` names, one :meth:`poll` at a time."""

    def __init__(
        self,
        find: Callable[[], str | None],
        *,
        max_line: int = MAX_LINE,
        max_poll_bytes: int = MAX_POLL_BYTES,
        since: float | None = None,
    ) -> None:
        self._find = find
        self._since = since
        self._max_line = max_line
        self._max_poll = max_poll_bytes
        self._fd: int | None = None
        self._path: str | None = None
        self._ident: tuple[int, int] | None = None  # (device, inode) of the open file
        self._offset = 0
        self._pending = bytearray()
        self._skipping = False  # inside a line that grew past max_line: drop until its end
        self._first = True

    def poll(self) -> list[str]:
        """The complete lines appended since the last poll (decoded as UTF-8, bad bytes replaced)."""
        first, self._first = self._first, False
        path = self._find()
        lines: list[str] = []
        if path is not None and path != self._path:
            lines += self._read()  # what the old file still holds
            self._open(path, at_end=first)
        elif self._fd is not None and self._replaced():
            lines += self._read()
            self._open(self._path or "", at_end=False)
        return lines + self._read()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    # ── the file ───────────────────────────────────────────────────────────────────────────────────────────────
    def _open(self, path: str, *, at_end: bool) -> None:
        self.close()
        self._path, self._pending, self._skipping = path, bytearray(), False
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            self._path = None  # not there (yet), or refused: found again at the next poll
            return
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            os.close(fd)
            return  # keeps _path: a planted file is not retried at every poll
        self._fd, self._ident = fd, (info.st_dev, info.st_ino)
        written_since = self._since is not None and info.st_mtime >= self._since
        self._offset = info.st_size if at_end and not written_since else 0

    def _replaced(self) -> bool:
        """The path now names another file, or the file shrank (truncated): start over on what is there now."""
        assert self._fd is not None and self._path is not None
        try:
            now = os.stat(self._path, follow_symlinks=False)
        except OSError:
            return False  # removed: what is left of the open file is still read
        return (now.st_dev, now.st_ino) != self._ident or os.fstat(self._fd).st_size < self._offset

    def _read(self) -> list[str]:
        if self._fd is None:
            return []
        try:
            data = os.pread(self._fd, self._max_poll, self._offset)
        except OSError:
            return []
        self._offset += len(data)
        return self._split(data)

    def _split(self, data: bytes) -> list[str]:
        """Complete lines of ``data`` after what was pending; each step finds the next newline (linear time)."""
        out: list[str] = []
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            if not self._skipping and len(self._pending) + end - start <= self._max_line:
                self._pending += data[start:end]
                out.append(self._pending.decode("utf-8", "replace").rstrip("\r"))
            self._pending, self._skipping = bytearray(), False
            start = end + 1
        rest = len(data) - start
        if not self._skipping and len(self._pending) + rest > self._max_line:
            self._pending, self._skipping = bytearray(), True
        elif not self._skipping:
            self._pending += data[start:]
        return out


async def follow(
    find: Callable[[], str | None], *, interval: float = POLL_S, since: float | None = None
) -> AsyncIterator[str]:
    """Every line appended to the file ``find()`` names, polling every ``interval`` seconds, until cancelled (a file
    already there is read from its start only when it changed at or after ``since``)."""
    follower = LogFollower(find, since=since)
    try:
        while True:
            for line in follower.poll():
                yield line
            await asyncio.sleep(interval)
    finally:
        follower.close()

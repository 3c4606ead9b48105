"""The bridge's default log file: ``<state folder>/logs/acp-mux.log``, private, rotated by size.

Why a default: editors hide a bridge's stderr (most show only "server exited"), so without a file the reason for a
failure is lost by the time anyone looks. Every bridge writes warnings and errors (and with ``--log-level DEBUG``
every protocol message) here unless ``--log-file`` / ``ACP_MUX_LOG`` names another file, or ``off``.

Private: the folder is made 0700 (:func:`acp_mux.core.files.private.ensure_private_dir`, which refuses a folder that is
not ours alone) and the file is opened as our own regular file, 0600, never through a symlink and never waiting on
a FIFO planted at its name (:func:`acp_mux.core.files.own_files.open_own`). A log that cannot be opened so is skipped
with one line on stderr; the bridge runs on.

Rotated: when the file would pass :data:`MAX_BYTES` it becomes ``acp-mux.log.1`` (the older ones move up to
:data:`BACKUPS`, the oldest goes), so the logs of every editor window together stay under
``(BACKUPS + 1) × MAX_BYTES``. Several bridges append to the same file (``O_APPEND``: whole lines); one that finds
the file rotated by another reopens it by name before its next line.

Standard library only (``logging`` is loaded by the caller anyway): nothing here slows the bridge's start.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Mapping

from acp_mux.core.files.paths import state_dir

MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3
OFF = "off"  # --log-file off / ACP_MUX_LOG=off: no file at all


def default_log_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the bridge logs when nothing else is named (``doctor`` prints it; the README names it)."""
    return state_dir(env) / "logs" / "acp-mux.log"


class RotatingLog(logging.StreamHandler):  # type: ignore[type-arg]
    """A private log file that rotates by size and follows a rotation done by another bridge."""

    def __init__(self, path: Path, max_bytes: int = MAX_BYTES, backups: int = BACKUPS) -> None:
        self.path, self.max_bytes, self.backups = path, max_bytes, backups
        super().__init__(self._open())

    def _open(self) -> object:
        from acp_mux.core.files.own_files import open_own

        fd = open_own(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        return os.fdopen(fd, "a", encoding="utf-8", errors="replace", buffering=1)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._keep_size(len(self.format(record)) + 1)
        except OSError:  # a log that cannot rotate still takes the line where it is
            pass
        super().emit(record)

    def _keep_size(self, adding: int) -> None:
        """Rotate before a line that would pass the limit; reopen when the name no longer holds our file."""
        held = os.fstat(self.stream.fileno())
        try:
            named = os.stat(self.path)
        except FileNotFoundError:
            named = None
        if named is None or (named.st_ino, named.st_dev) != (held.st_ino, held.st_dev):
            self._reopen()  # another bridge rotated it (or it was removed): follow the name
            held = os.fstat(self.stream.fileno())
        if held.st_size and held.st_size + adding > self.max_bytes:
            for index in range(self.backups - 1, 0, -1):
                older = self.path.with_name(f"{self.path.name}.{index}")
                if older.exists() or older.is_symlink():
                    os.replace(older, self.path.with_name(f"{self.path.name}.{index + 1}"))
            os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
            self._reopen()

    def _reopen(self) -> None:
        stream = self._open()
        old = self.setStream(stream)
        if old is not None:
            old.close()


def open_default_log(env: Mapping[str, str] | None = None) -> RotatingLog | None:
    """The default log's handler, its folder made private first; None (and why, on stderr) when it cannot be had."""
    import sys

    from acp_mux.core.files.private import ensure_private_dir

    path = default_log_path(env)
    try:
        os.makedirs(path.parent.parent, mode=0o700, exist_ok=True)
        if not ensure_private_dir(str(path.parent)):
            raise PermissionError(f"{path.parent} is not a folder only this user can enter")
        return RotatingLog(path)
    except OSError as exc:
        print(f"acp-mux: not logging to {path}: {exc}", file=sys.stderr)
        return None

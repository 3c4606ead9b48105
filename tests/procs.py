"""The real process table, read from /proc: how tests check that nothing of ours is left alive."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator


def _stat_fields(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name (state first), or None if the pid is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def pid_state(pid: int) -> str | None:
    """Process state letter, or None if the pid is gone."""
    fields = _stat_fields(pid)
    return fields[0] if fields else None


def pid_alive(pid: int) -> bool:
    """Running or sleeping, not a zombie waiting to be reaped."""
    return pid_state(pid) not in (None, "Z", "X")


def parent_of(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[1]) if fields else None


def read_proc(pid: int, name: str) -> bytes:
    """/proc/<pid>/<name> (cmdline, environ, ...), empty if unreadable or gone."""
    try:
        return Path(f"/proc/{pid}/{name}").read_bytes()
    except OSError:
        return b""


def pids(*, live_only: bool = True) -> Iterator[int]:
    """Every other process on the machine (only the live ones unless ``live_only`` is false)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid() and (not live_only or pid_alive(int(entry))):
            yield int(entry)

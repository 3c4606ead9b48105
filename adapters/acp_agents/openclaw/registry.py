"""Where the bridges of one user find their shared private OpenClaw gateway, and how they hold on to it.

Under ``<acp-mux state dir>/openclaw/`` (0700):

- ``gateway.lock``: ``flock``-ed exclusively around "find or start" (and by the keeper around "stop"), so two bridges
  starting at once end with one gateway, and none attaches to a gateway that is being stopped;
- ``gateway.json`` (0600): the running gateway's registration (its keeper's and its own pid, each with its start
  time, so a recycled pid is never mistaken for it; its port; where the person's included config lives);
- ``gateway.lease``: each attached bridge holds a *shared* ``flock`` on it for its life; the kernel drops it however
  the bridge ends, and the keeper (``keeper.py``) stops the gateway a grace period after none is held.

The registration is read as hostile input: only a regular file of ours, small, with exactly the fields and types
expected; anything else is treated as "no gateway".
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Iterator

from acp_mux.core.files.own_files import open_own
from acp_mux.core.files.state_files import read_state_file
from acp_mux.core.files.own_files import write_atomic

LOCK, LEASE, REGISTRY = "gateway.lock", "gateway.lease", "gateway.json"
MAX_REGISTRY_BYTES = 4096


def process_start(pid: int, proc: Path = Path("/proc")) -> int | None:
    """When ``pid`` started (clock ticks since boot, /proc/PID/stat field 22), or None if it is not running."""
    try:
        raw = (proc / str(pid) / "stat").read_bytes()
        rest = raw.rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if not rest or rest[0] in (b"Z", b"X"):
        return None
    try:
        return int(rest[19])
    except (IndexError, ValueError):
        return None


@dataclass(frozen=True)
class Registration:
    """A running shared gateway, as its starter wrote it down."""

    keeper_pid: int
    keeper_start: int
    gateway_pid: int
    gateway_start: int
    port: int
    include_root: str | None = None

    def alive(self) -> bool:
        """Both the keeper and the gateway still run, as the very processes registered (not a recycled pid)."""
        return (
            self.keeper_pid > 0
            and self.gateway_pid > 0
            and process_start(self.keeper_pid) == self.keeper_start
            and process_start(self.gateway_pid) == self.gateway_start
        )

    def to_json(self) -> str:
        return json.dumps(asdict(self)) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Registration | None:
        """The registration in ``text``, or None unless it is exactly the shape written."""
        try:
            data = json.loads(text)
        except ValueError:
            return None
        names = {f.name for f in fields(cls)}
        if not isinstance(data, dict) or set(data) != names:
            return None
        ints = [data[n] for n in names - {"include_root"}]
        if not all(type(v) is int and v > 0 for v in ints) or not data["port"] < 65536:
            return None
        if data["include_root"] is not None and not isinstance(data["include_root"], str):
            return None
        return cls(**data)


def read_registration(root: Path) -> Registration | None:
    """The registration under ``root`` if it is a small regular file of this user's (never a FIFO's wait, nor a
    symlink's target), else None."""
    try:
        text = read_state_file(root / REGISTRY, MAX_REGISTRY_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    return Registration.from_json(text)


def write_registration(root: Path, registration: Registration) -> None:
    """Write the registration atomically (a fresh 0600 file renamed over it: a reader never sees half of it, and
    whatever was planted at the name is replaced, not followed or waited on)."""
    write_atomic(root / REGISTRY, registration.to_json().encode())


def forget_registration(root: Path, registration: Registration) -> None:
    """Remove the registration if it is still this one (a newer gateway's stays)."""
    if read_registration(root) == registration:
        with contextlib.suppress(OSError):
            os.unlink(root / REGISTRY)


def open_lock_file(root: Path, name: str) -> int:
    """An fd on one of the lock files (never inherited by children: a child must not hold a bridge's lease); only
    a regular file of ours (:func:`open_own`: a FIFO or symlink planted at the name raises OSError, never blocks)."""
    return open_own(root / name, os.O_RDWR | os.O_CREAT)


@contextlib.contextmanager
def find_or_start_lock(root: Path) -> Iterator[None]:
    """Exclusive "find or start" (blocking: another bridge holds it only while it starts the keeper)."""
    fd = open_lock_file(root, LOCK)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def take_lease(root: Path) -> int:
    """This bridge's shared lock on the lease file: held open for the bridge's life, it keeps the gateway up."""
    fd = open_lock_file(root, LEASE)
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd

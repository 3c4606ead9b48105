"""The keeper of the one private OpenClaw gateway that every acp-mux bridge of a user shares.

Why a process of its own: the gateway must outlive the bridge that happened to start it (a second editor window
attaches to it instead of paying the gateway's half-minute start again), yet nothing of ours may be left once the
last bridge is gone, however it went (closed, crashed, SIGKILLed). So a bridge starts this keeper, detached (its own
session, double-forked so no bridge is its parent), as ``python -I -S keeper.py ROOT GRACE STATUS_FD LOG
SUPERVISOR_PY -- PROGRAM ARGS...``, and the keeper:

* starts the gateway as its child (with ``PR_SET_PDEATHSIG``: if the keeper itself is SIGKILLed, the kernel kills the
  gateway too), its stdout and stderr appended to LOG (0600), which every attached bridge tails for the failures
  OpenClaw's ACP bridge does not forward; it is a child subreaper on Linux, so the gateway's own children are its;
* reports ``ok KEEPER_PID GATEWAY_PID`` (or ``err ERRNO MESSAGE``) on STATUS_FD;
* every half second tries an exclusive ``flock`` on ``ROOT/gateway.lease``. Each attached bridge holds a shared lock
  on it for its life, and the kernel drops it however the bridge ends; so "exclusive lock granted" means no bridge
  is attached. After GRACE seconds with none, it takes ``ROOT/gateway.lock`` (the lock bridges take around "find or
  start"), checks once more, removes the registry, and stops the gateway and everything under it (SIGTERM, then
  SIGKILL after a second). A bridge that attaches while it waits resets the grace;
* stops the same way when the gateway exits on its own (the registry is removed so the next bridge starts anew), or
  when it gets SIGTERM.

Standard library only and nothing imported beyond the interpreter's own (and two acp-mux files loaded by path: the
supervisor script for its descendant sweep, and ``own_files.py`` in core/files, so the lease, the lock and the log are
opened only as regular files of ours, never through a planted symlink or FIFO), so it starts in milliseconds.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import signal
import sys
import time
from types import ModuleType
from typing import Callable

POLL_S = 0.5
STOP_GRACE_S = 1.0  # between SIGTERM and SIGKILL when the gateway is stopped
LEASE, LOCK, REGISTRY = "gateway.lease", "gateway.lock", "gateway.json"


def _prctl(option: int, value: int) -> None:
    """Linux prctl (best effort; elsewhere there is none)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except Exception:
        pass


def _load(name: str, path: str) -> ModuleType:
    """A module of acp-mux loaded from its file: the keeper runs with ``-I -S`` (no package on its path). Its agent
    supervisor (``acp_mux/core/process/supervisor.py``, the path the bridge gives: the two sweep descendants the same way)
    and, in core/files, ``own_files.py`` (how a fixed-name file of ours is opened): one function serves both."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


descendants: Callable[[int], list[int]]
_SUPERVISOR: ModuleType
_OWN_FILES: ModuleType


def _open_own(path: str, flags: int) -> int:
    """A regular file of ours, never through a symlink, never blocking on a FIFO (``own_files.open_own``)."""
    fd: int = _OWN_FILES.open_own(path, flags)
    return fd


def _open_lock(root: str, name: str) -> int:
    return _open_own(os.path.join(root, name), os.O_RDWR | os.O_CREAT)


def no_bridge_attached(lease_fd: int) -> bool:
    """True when no bridge holds its shared lock on the lease file (the exclusive lock is granted, then dropped)."""
    try:
        fcntl.flock(lease_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    fcntl.flock(lease_fd, fcntl.LOCK_UN)
    return True


def _forget_registry(root: str) -> None:
    """Remove the registry if it still names this keeper (a newer gateway's must stay)."""
    path = os.path.join(root, REGISTRY)
    try:
        with os.fdopen(_open_own(path, os.O_RDONLY), "rb") as fh:
            if json.loads(fh.read(4097)).get("keeper_pid") != os.getpid():
                return
        os.unlink(path)
    except (OSError, ValueError, AttributeError):
        pass


def _signal_all(sig: int) -> None:
    """Our group (we are its leader) and every descendant that left it: the supervisor's own sweep."""
    _SUPERVISOR.signal_all(sig, os.getpid())


def _reap() -> list[int]:
    gone: list[int] = []
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return gone
        if pid == 0:
            return gone
        gone.append(pid)


def stop(root: str) -> None:
    """Forget the registry, then end the gateway and every descendant; exits the keeper."""
    _forget_registry(root)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _signal_all(signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while descendants(os.getpid()) and time.monotonic() < deadline:
        _reap()
        time.sleep(0.05)
    for pid in descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _reap()
    os._exit(0)


def _start_gateway(program: str, args: list[str], log_path: str) -> int:
    out = _open_own(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    pid = os.fork()
    if pid == 0:  # the gateway: dies with the keeper, whatever kills it
        try:
            _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(out, 1)
            os.dup2(out, 2)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.execve(program, [program, *args], os.environ)
        except OSError as exc:
            os.write(2, f"cannot start {program}: {exc}\n".encode())
        os._exit(127)
    os.close(out)
    return pid


def main(argv: list[str]) -> None:
    global descendants, _SUPERVISOR, _OWN_FILES
    root, grace, status_fd, log_path, supervisor = argv[0], float(argv[1]), int(argv[2]), argv[3], argv[4]
    _SUPERVISOR = _load("acp_mux_supervisor", supervisor)
    _OWN_FILES = _load(
        "acp_mux_own_files", os.path.join(os.path.dirname(os.path.dirname(supervisor)), "files", "own_files.py")
    )
    descendants = _SUPERVISOR.descendants
    rest = argv[5:]
    if rest and rest[0] == "--":
        rest = rest[1:]
    if os.fork() > 0:  # detach: the bridge that started us reaps this parent at once; no bridge is our parent
        os._exit(0)
    os.setsid()
    os.set_inheritable(status_fd, False)
    _prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: the gateway's orphans come to us, not to init
    signal.signal(signal.SIGTERM, lambda *_: stop(root))
    if not os.access(rest[0], os.X_OK):
        os.write(status_fd, f"err 13 {rest[0]} is not an executable file\n".encode())
        os._exit(127)
    try:
        lease_fd = _open_lock(root, LEASE)
        gateway = _start_gateway(rest[0], rest[1:], log_path)
    except OSError as exc:  # a FIFO, symlink or another user's file where the lease or the log should be
        os.write(status_fd, f"err {exc.errno or 0} {exc}\n".encode())
        os._exit(126)
    os.write(status_fd, f"ok {os.getpid()} {gateway}\n".encode())
    os.close(status_fd)
    idle_since: float | None = None
    while True:
        if gateway in _reap():
            stop(root)
        if not no_bridge_attached(lease_fd):
            idle_since = None
        elif idle_since is None:
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since >= grace:
            lock_fd = _open_lock(root, LOCK)
            fcntl.flock(lock_fd, fcntl.LOCK_EX)  # no bridge finds or attaches while we decide; dropped at exit
            if no_bridge_attached(lease_fd):
                stop(root)
            os.close(lock_fd)
            idle_since = None
        time.sleep(POLL_S)


if __name__ == "__main__":
    main(sys.argv[1:])

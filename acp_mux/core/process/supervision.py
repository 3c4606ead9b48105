"""The bridge's side of :mod:`acp_mux.core.process.supervisor`: the lifelines, the supervisor's command line, and its
start-up report.

One lifeline (a pipe) per agent: the supervisor gets the read end, the bridge keeps the only write end
(close-on-exec, never inherited by anything else). End-of-file on it means "end this agent and everything it
started", and the supervisor then sweeps its process group and every descendant that left it (``setsid``,
daemonizing children), which only it can find. The bridge ends one agent this way (:func:`stop`, what every stop
of an agent comes to: :meth:`acp_mux.core.process.spawn.AgentProcess.terminate`), every agent at a normal exit
(:func:`release`), and the kernel closes every lifeline when the bridge dies however it dies (even SIGKILL): one
sweep, the supervisor's, for every way an agent ends.
"""

from __future__ import annotations

import asyncio
import errno
import os
import sys
import threading
from pathlib import Path

SUPERVISOR = str(Path(__file__).with_name("supervisor.py"))
STATUS_TIMEOUT_S = 15.0

_lock = threading.Lock()
_held: set[int] = set()  # the write ends of the lifelines of the agents started so far and not yet stopped


def lifeline() -> tuple[int, int]:
    """A new agent's lifeline: (read end, for its supervisor, write end, kept here until :func:`stop`)."""
    read_end, write_end = os.pipe()  # both close-on-exec: only pass_fds hands the read end on
    with _lock:
        _held.add(write_end)
    return read_end, write_end


def stop(write_end: int, grace: float | None = None) -> bool:
    """Tell one agent's supervisor to end it and everything it started: SIGTERM, then SIGKILL after ``grace``
    seconds (the supervisor's own default when None). False when that lifeline was already let go."""
    with _lock:
        if write_end not in _held:
            return False
        _held.discard(write_end)
    try:
        if grace is not None:
            os.write(write_end, f"{max(0.0, grace):.3f}\n".encode())  # a few bytes: the pipe always has room
    except OSError:
        pass
    finally:
        try:
            os.close(write_end)
        except OSError:
            pass
    return True


def release() -> bool:
    """Let go of every lifeline: every supervisor started so far ends its agent (and what it started). True if there
    was one to let go."""
    with _lock:
        held = list(_held)
    stopped = [stop(fd) for fd in held]  # every one, not up to the first that was still held
    return any(stopped)


def command(program: str, args: list[str], watch_fd: int, status_w: int, remove: tuple[str, ...] = ()) -> list[str]:
    """The argv that runs ``program args`` under a supervisor watching ``watch_fd`` (its lifeline's read end) and
    reporting on ``status_w``."""
    extra: list[str] = []
    for path in remove:
        extra += ["--rm", path]
    return [sys.executable, "-I", "-S", SUPERVISOR, str(watch_fd), str(status_w), *extra, "--", program, *args]


class StartFailed(OSError):
    """The supervisor could not start the agent program (``errno`` and ``strerror`` as the exec failed)."""


async def read_status(status_r: int, timeout: float = STATUS_TIMEOUT_S) -> int:
    """The agent's pid from the supervisor's report on ``status_r`` (closed here); :class:`StartFailed` if the
    program could not be started or the supervisor said nothing."""
    loop = asyncio.get_running_loop()
    os.set_blocking(status_r, False)
    data = bytearray()
    done: asyncio.Future[None] = loop.create_future()

    def on_readable() -> None:
        try:
            chunk = os.read(status_r, 4096)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        data.extend(chunk)
        if not chunk and not done.done():
            done.set_result(None)

    loop.add_reader(status_r, on_readable)
    try:
        await asyncio.wait_for(done, timeout)
    except TimeoutError:
        pass
    finally:
        loop.remove_reader(status_r)
        os.close(status_r)
    words = data.decode("utf-8", "replace").split(" ", 2)
    if words[0] == "ok" and len(words) > 1 and words[1].strip().isdigit():
        return int(words[1])
    if words[0] == "err" and len(words) > 2 and words[1].isdigit():
        raise StartFailed(int(words[1]), words[2].strip())
    raise StartFailed(errno.EIO, "the agent supervisor did not start")


def status_pipe() -> tuple[int, int]:
    """A pipe for one supervisor's start-up report: (read end for us, write end for the supervisor)."""
    return os.pipe()

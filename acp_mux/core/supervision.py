"""The bridge's side of :mod:`acp_mux.core.supervisor`: the lifeline pipe, the supervisor's command line, and its
start-up report.

One pipe per bridge process: the bridge keeps the only write end (close-on-exec, never written to), every
supervisor gets the read end. When the bridge is gone — exit, crash or SIGKILL, the kernel closes its fds in every
case — each supervisor reads end-of-file and sweeps its agent. :func:`release` does the same on purpose at a normal
exit, so the normal path and the hard-kill path end agents the same way.
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
_pipe: tuple[int, int] | None = None  # (read end for supervisors, write end kept here)


def watch_fd() -> int:
    """The read end every supervisor watches (created on first use, again after :func:`release`)."""
    global _pipe
    with _lock:
        if _pipe is None:
            read_end, write_end = os.pipe()  # both close-on-exec: only pass_fds hands the read end on
            _pipe = (read_end, write_end)
        return _pipe[0]


def release() -> bool:
    """Close the lifeline: every supervisor started so far ends its agent (and what it started). True if there was
    one to close."""
    global _pipe
    with _lock:
        pipe, _pipe = _pipe, None
    if pipe is None:
        return False
    for fd in pipe:
        try:
            os.close(fd)
        except OSError:
            pass
    return True


def command(program: str, args: list[str], status_w: int, remove: tuple[str, ...] = ()) -> list[str]:
    """The argv that runs ``program args`` under a supervisor reporting on ``status_w``."""
    extra: list[str] = []
    for path in remove:
        extra += ["--rm", path]
    return [sys.executable, "-I", "-S", SUPERVISOR, str(watch_fd()), str(status_w), *extra, "--", program, *args]


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

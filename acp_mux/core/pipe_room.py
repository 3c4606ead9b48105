"""How many bytes a pipe can take right now without a blocking write waiting: its capacity minus what its reader
has not read yet (Linux: ``F_GETPIPE_SZ`` and ``FIONREAD``).

Why: the bridge writes to the editor from a writer thread, so that an editor that stops reading never blocks the
event loop. Handing every burst of output to that thread costs a thread wake-up and a hand-over of the GIL, which
for an agent that streams in many small bursts (gemini: a few chunks per read) costs more than the rest of a chunk's
path. When the pipe has room for the whole burst and the thread has nothing queued, the loop can write it itself:
the write completes at once (a reader only ever makes more room), and the order is kept (nothing is in flight
before it). Anything this cannot tell (not a pipe, another system) answers None: the writer thread, as before.
"""

from __future__ import annotations

import array
import fcntl
import os
import stat
import termios

_GETPIPE_SZ: int | None = getattr(fcntl, "F_GETPIPE_SZ", None)


def is_pipe(fd: int) -> bool:
    """Whether ``fd`` is a pipe whose room :func:`room` can measure."""
    try:
        return _GETPIPE_SZ is not None and stat.S_ISFIFO(os.fstat(fd).st_mode) and room(fd) is not None
    except OSError:
        return False


def room(fd: int) -> int | None:
    """Bytes the pipe ``fd`` takes now without blocking; None when that cannot be told."""
    if _GETPIPE_SZ is None:
        return None
    try:
        size = fcntl.fcntl(fd, _GETPIPE_SZ)
        unread = array.array("i", [0])
        fcntl.ioctl(fd, termios.FIONREAD, unread, True)
    except OSError:
        return None
    return max(0, size - unread[0])

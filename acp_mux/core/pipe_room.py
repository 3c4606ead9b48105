"""How many bytes a pipe can take right now without a blocking write waiting: its capacity minus what its reader
has not read yet (Linux: ``F_GETPIPE_SZ`` and ``FIONREAD``).

Why: the bridge writes to the editor from a writer thread, so that an editor that stops reading never blocks the
event loop. Handing every message to that thread costs a thread wake-up and a hand-over of the GIL, which for an
agent that streams its chunks one by one (gemini) costs more than the rest of a chunk's path. When the pipe has
room for the whole message and the thread has nothing queued, the loop can write it itself: the write completes at
once (a reader only ever makes more room), and the order is kept (nothing is in flight before it). Anything this
cannot tell (not a pipe, another system) answers None: the writer thread, as before.
"""

from __future__ import annotations

import array
import fcntl
import os
import stat
import termios

_GETPIPE_SZ: int | None = getattr(fcntl, "F_GETPIPE_SZ", None)


def capacity(fd: int) -> int | None:
    """The size of the pipe ``fd`` (None: not a pipe, or this system cannot tell), read once per connection."""
    if _GETPIPE_SZ is None:
        return None
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
        size = fcntl.fcntl(fd, _GETPIPE_SZ)
    except OSError:
        return None
    return size if room(fd, size) is not None else None


def room(fd: int, size: int) -> int | None:
    """Bytes the pipe ``fd`` of capacity ``size`` takes now without blocking; None when that cannot be told."""
    unread = array.array("i", [0])
    try:
        fcntl.ioctl(fd, termios.FIONREAD, unread, True)
    except OSError:
        return None
    return max(0, size - unread[0])

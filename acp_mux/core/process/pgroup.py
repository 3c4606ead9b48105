"""Process-group primitives: signal a whole agent group, ask if it still lives.

Every agent runs as the leader of its own session and process group, so its
descendants can be signalled together.  These two functions are the only
places that call ``os.killpg``; they never touch our own group or init.
"""

from __future__ import annotations

import contextlib
import os


def killpg(pgid: int, sig: int) -> None:
    """killpg that can never hit our own group or init, and ignores the dead."""
    if pgid > 1 and pgid != os.getpgrp():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)


def group_alive(pgid: int) -> bool:
    """True if a non-zombie member of the group exists.

    killpg(0) alone counts zombies (an unreaped leader, or orphans that a
    non-reaping PID 1 never collects), so on Linux /proc refines the answer.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if pgid <= 1 or not os.path.isdir("/proc"):
        return pgid > 1
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/stat", "rb") as f:  # "pid (comm) S ppid pgrp ..."
                state, _ppid, pgrp = f.read().rsplit(b")", 1)[1].split()[:3]
        except (OSError, IndexError, ValueError):
            continue
        if int(pgrp) == pgid and state not in (b"Z", b"X"):
            return True
    return False

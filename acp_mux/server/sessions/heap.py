"""Give the heap memory a turn freed back to the system, once the turn is over (glibc only).

Why this exists: a long reply allocates and frees many megabytes (lines read from the agent, JSON decoded and
encoded, the joined pieces of its text, the log's batches). glibc's malloc returns only the top of its heap by
itself; free chunks below a live one stay mapped, so after a big turn the bridge's RSS sat 3–9 MB above the memory
it was using, by chance of where the last live chunk landed (benchmarks/mem_turns.py: mallinfo2's free bytes after
each 100,000-delta turn; RSS fell by as much with ``malloc_trim(0)``). ``malloc_trim(0)`` hands every free whole
page back (``madvise``), in every arena, including the stdout writer thread's. It costs a walk of the free lists
(measured in the bridge: 0.04–0.12 ms after a short turn, 0.3–0.7 ms after 100,000 deltas), so it runs once per
turn, after the turn's last update was handed to the writer thread and before the answer, so that whoever reads the
RSS once the answer is in sees the trimmed heap; never on the streaming path. Without glibc (musl, macOS) there is
no such function and this does nothing.
"""

from __future__ import annotations

import ctypes
import logging
from typing import Any, Callable

log = logging.getLogger(__name__)

_trim: Callable[[int], Any] | None = None
_looked_up = False


def _find_trim() -> Callable[[int], Any] | None:
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the symbols already loaded (no ldconfig lookup, no subprocess)
    except (OSError, AttributeError):  # not glibc: nothing to call
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_freed_memory() -> bool:
    """Return free heap pages to the system; False where the C library has no ``malloc_trim``."""
    global _trim, _looked_up
    if not _looked_up:
        _trim, _looked_up = _find_trim(), True
    if _trim is None:
        return False
    try:
        _trim(0)
    except OSError:  # never let housekeeping break a session
        log.debug("malloc_trim failed", exc_info=True)
        return False
    return True

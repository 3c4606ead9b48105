"""The numbers of a limit are input: when it resets and how long to wait, read from whatever the agent sent.

Agents say when a limit lifts in seconds (codex, claude's ``resetsAt``) or milliseconds, as a number, a numeric
string or an ISO time, and sometimes not at all, in the past, or as nonsense (``1e400``, ``-5``, ``"soon"``). Every
such value goes through here before it becomes part of an event, so a reset time is either a sane epoch second
(this century) or ``None``, and a wait is either a sane number of milliseconds (at most a year) or ``None``:
nothing downstream (the error text, the failover question, the stored log) can trip over it.
"""

from __future__ import annotations

import math
import time
from datetime import datetime

__all__ = ["epoch_seconds", "upcoming_reset", "wait_ms", "wait_text"]

EARLIEST_S = 946_684_800  # 2000-01-01: anything before is no reset time of a limit met now (or a count, not a time)
LATEST_S = 4_102_444_800  # 2100-01-01: anything after, in seconds, is milliseconds or microseconds (or nonsense)
HORIZON_S = 366 * 86_400  # a limit that lifts more than a year from now is not one a person can plan with
PASSED_S = 60  # a reset time this far behind the clock has passed: it tells the person nothing


def _number(value: object) -> float | None:
    """A finite number from a JSON number, a numeric string or an ISO 8601 time (as epoch seconds); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return float(value) if abs(value) < 10**30 else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str) and 0 < len(value) <= 64:
        text = value.strip()
        try:
            number = float(text)
        except ValueError:
            try:
                stamp = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
            except ValueError:
                return None
            if stamp.tzinfo is None:
                return None  # a time without its zone could be hours off: no time is better than a wrong one
            try:
                return stamp.timestamp()
            except (OverflowError, OSError, ValueError):
                return None
        return number if math.isfinite(number) else None
    return None


def epoch_seconds(value: object) -> int | None:
    """``value`` as epoch seconds when it is a time of this century in seconds, milliseconds or microseconds (or an
    ISO time with its zone); None for anything else. Needs no clock: a stored event reads back the same."""
    number = _number(value)
    if number is None or number <= 0:
        return None
    for _unit in range(3):  # s, ms, µs
        if number <= LATEST_S:
            break
        number /= 1000
    seconds = int(number)
    return seconds if EARLIEST_S <= seconds <= LATEST_S else None


def upcoming_reset(value: object, now_s: float | None = None) -> int | None:
    """A reset time the agent reports now: :func:`epoch_seconds`, and only when it is still ahead (at most a minute
    passed) and within a year; None otherwise, so the person is told no time rather than a wrong one."""
    seconds = epoch_seconds(value)
    now = time.time() if now_s is None else now_s
    if seconds is None or seconds < now - PASSED_S or seconds > now + HORIZON_S:
        return None
    return seconds


def wait_ms(value: object) -> int | None:
    """A wait in milliseconds when it is one (zero up to a year); None for anything else."""
    number = _number(value)
    if number is None or number < 0 or number > HORIZON_S * 1000:
        return None
    return int(number)


def wait_text(ms: int) -> str:
    """A wait as a person reads it: ``90s`` up to two minutes, then minutes, hours, days (never "1701041s")."""
    seconds = round(ms / 1000)
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 2 * 3600:
        return f"{round(seconds / 60)} min"
    if seconds < 2 * 86_400:
        return f"{round(seconds / 3600)} h"
    return f"{round(seconds / 86_400)} days"

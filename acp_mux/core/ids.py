"""Sortable unique ids (ULIDs) for sessions and runs, without the ``ulid`` package.

A ULID is 48 bits of milliseconds since the epoch and 80 random bits, written as 26 characters of Crockford base32,
so ids sort by creation time. The ``python-ulid`` package imports ``importlib.metadata`` to learn its own version,
which on a cold start cost more than everything else ``session/new`` needs; this is the same id in a dozen lines.
"""

from __future__ import annotations

import os
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base32: no I, L, O, U


def new_ulid() -> str:
    """A new ULID string (26 characters, upper case)."""
    value = (time.time_ns() // 1_000_000) << 80 | int.from_bytes(os.urandom(10), "big")
    return "".join(_ALPHABET[(value >> shift) & 31] for shift in range(125, -1, -5))

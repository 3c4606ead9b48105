"""The parts of the event vocabulary that need no pydantic: the timestamp clock and the error codes.

Modules on the ``initialize`` path (adapters, the parse context, interactions) use these at import time; the event
classes themselves stay in :mod:`acp_mux.core.events.union`, which re-exports both names.
"""

from __future__ import annotations

import time


def now_ms() -> int:
    """Unix epoch milliseconds, the spec's timestamp unit."""
    return time.time_ns() // 1_000_000


class ErrorCode:
    """Machine-readable codes carried by ``error`` events and RunResult errors (open set: agents may add)."""

    AGENT_CRASH = "AGENT_CRASH"
    AGENT_ERROR = "AGENT_ERROR"
    AUTH_ERROR = "AUTH_ERROR"
    CAPABILITY_ERROR = "CAPABILITY_ERROR"
    CONTEXT_EXCEEDED = "CONTEXT_EXCEEDED"
    INACTIVITY_TIMEOUT = "INACTIVITY_TIMEOUT"
    INTERACTION_NOT_FOUND = "INTERACTION_NOT_FOUND"
    INTERNAL = "INTERNAL"
    INVALID_STATE_TRANSITION = "INVALID_STATE_TRANSITION"
    MAX_TOKENS = "MAX_TOKENS"
    NO_PENDING_INTERACTION = "NO_PENDING_INTERACTION"
    PARSE_ERROR = "PARSE_ERROR"
    PROTOCOL_ERROR = "PROTOCOL_ERROR"
    RATE_LIMITED = "RATE_LIMITED"
    REFUSAL = "REFUSAL"
    RUN_NOT_ACTIVE = "RUN_NOT_ACTIVE"
    SPAWN_ERROR = "SPAWN_ERROR"
    STDIN_NOT_AVAILABLE = "STDIN_NOT_AVAILABLE"
    TIMEOUT = "TIMEOUT"
    TURN_LIMIT = "TURN_LIMIT"

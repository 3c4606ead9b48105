"""acp-mux: one Agent Client Protocol face for ten coding-agent CLIs, and the same runtime as a Python library.

The library's names (``acp_mux.run``, ``acp_mux.query``, ``acp_mux.ask`` ...) live in :mod:`acp_mux.api` and are
imported on first use (PEP 562 ``__getattr__``): every module of acp-mux imports this package, and the editor's
``initialize`` is answered before pydantic or the runtime load (tests/core/test_cold_path.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_mux.version import __version__

__all__ = [
    "AgentMuxError",
    "ApprovalRequest",
    "Approvals",
    "Approve",
    "BaseEvent",
    "Candidate",
    "Comparison",
    "Deny",
    "Run",
    "TurnError",
    "TurnResult",
    "__version__",
    "allow",
    "ask",
    "compare",
    "deny",
    "event_to_json",
    "events",
    "manual",
    "parse_event",
    "parse_event_json",
    "query",
    "run",
]

if TYPE_CHECKING:
    from acp_mux.api import (
        AgentMuxError,
        ApprovalRequest,
        Approvals,
        Approve,
        BaseEvent,
        Candidate,
        Comparison,
        Deny,
        Run,
        TurnError,
        TurnResult,
        allow,
        ask,
        compare,
        deny,
        event_to_json,
        events,
        manual,
        parse_event,
        parse_event_json,
        query,
        run,
    )


def __getattr__(name: str) -> object:
    """A public name, imported from :mod:`acp_mux.api` the first time it is read (then kept here)."""
    if name not in __all__:
        raise AttributeError(f"module 'acp_mux' has no attribute {name!r}")
    from acp_mux import api

    value = getattr(api, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

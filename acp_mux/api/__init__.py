"""The Python API behind ``import acp_mux`` (loaded on first use of one of its names, never by the bridge's start).

``acp_mux/__init__.py`` lists the public names in ``__all__`` and imports this package only when one is read, so
``import acp_mux`` stays as cheap as the editor's ``initialize`` path needs it (tests/core/test_cold_path.py).
"""

from __future__ import annotations

from acp_mux.api.approvals import ApprovalRequest, Approvals, allow, ask, deny, manual
from acp_mux.api.compare import Candidate, Comparison, compare
from acp_mux.api.session import Run, TurnError, TurnResult, query, run
from acp_mux.core.events import union as events
from acp_mux.core.events.errors import AgentMuxError
from acp_mux.core.events.union import BaseEvent, event_to_json, parse_event, parse_event_json
from acp_mux.core.run.interaction import Approve, Deny

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

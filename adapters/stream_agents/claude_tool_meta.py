"""``_meta.claudeCode`` on Claude's tool calls, as claude-agent-acp 0.101 sends it to an editor: the tool's own name
(``toolName``) on the call and on its end, and the tool's response (``toolResponse``: what Claude Code hands its
PostToolUse hooks, which the stream-json ``user`` line carries as ``tool_use_result``) on a successful end.

An editor made for claude-agent-acp reads the real tool name there (the title is for people, the kind is coarse)
and the structured response (a command's stdout/stderr, a write's file path and patch). The keys ride on the events'
:class:`~acp_mux.core.events.union.ToolDisplay` ``meta``, the agent-neutral place for an agent's own ``_meta``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_mux.core.events.lazy_events import ev
from acp_mux.core.text.shapes import as_dict, as_list

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent

__all__ = ["mark_tool_calls"]


def mark_tool_calls(events: list[BaseEvent], line: dict[str, Any]) -> list[BaseEvent]:
    """Give each tool call start and end among ``events`` (of one native ``line``) its ``claudeCode`` keys."""
    response = _tool_response(line)
    for event in events:
        if isinstance(event, (ev.ToolCallStartEvent, ev.ToolErrorEvent, ev.ToolResultEvent)):
            keys: dict[str, Any] = {"toolName": event.tool_name}
            if isinstance(event, ev.ToolResultEvent) and response is not None:
                keys["toolResponse"] = response
            display = event.display if event.display is not None else ev.ToolDisplay()
            display.meta = {
                **(display.meta or {}),
                "claudeCode": {**as_dict((display.meta or {}).get("claudeCode")), **keys},
            }
            event.display = display
    return events


def _tool_response(line: dict[str, Any]) -> Any:
    """The ``tool_use_result`` of a ``user`` line that answers exactly one tool call (else it names no one call)."""
    if line.get("type") != "user" or "tool_use_result" not in line:
        return None
    content = as_list(as_dict(line.get("message")).get("content"))
    results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    return line["tool_use_result"] if len(results) == 1 else None

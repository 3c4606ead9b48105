"""Which subagent each event belongs to: the one rule claude's Task subagents and codex's child threads share.

An event a subagent's output carries is marked with the call that started that subagent (claude's Agent/Task call,
codex's ``spawn_agent`` call), and so is any later event of a tool call the subagent started: its result may come on
a line (claude) or a notification (codex: the parent's turn end closing it) that names no subagent. One function so
the two agents cannot drift apart in what the editor is shown as nested.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_mux.core.events import BaseEvent


def link_to_subagent(events: list[BaseEvent], parent: str | None, child_tools: dict[str, str]) -> list[BaseEvent]:
    """Mark ``events`` with their subagent's call: ``parent`` (the call whose subagent produced them, None: not known
    from the message) or, for a tool call a subagent started earlier, the call ``child_tools`` remembers for it
    (``child_tools``: the run's map, a subagent's tool call id → its starting call id, updated here)."""
    if parent is None and not child_tools:  # the main agent's output, no subagent yet: nothing to mark
        return events
    for event in events:
        tool_id = getattr(event, "tool_call_id", None)
        if parent is not None and isinstance(tool_id, str) and tool_id != parent:
            child_tools.setdefault(tool_id, parent)
        link = child_tools.get(tool_id) if isinstance(tool_id, str) else None
        if event.parent_tool_call_id is None and (link or parent):
            event.parent_tool_call_id = link or parent
    return events

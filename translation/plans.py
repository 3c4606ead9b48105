"""Todo tools (TodoWrite, update_plan, write_todos, ...) → ACP plan entries, always the full list."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_mux.protocol import v1_dicts as acp
    from acp_mux.protocol.v1_dicts import JsonValue

_STATUS: dict[str, acp.PlanEntryStatus] = {
    "pending": "pending",
    "todo": "pending",
    "not_started": "pending",
    "in_progress": "in_progress",
    "in-progress": "in_progress",
    "active": "in_progress",
    "completed": "completed",
    "done": "completed",
    "complete": "completed",
}
_PRIORITY: dict[str, acp.PlanEntryPriority] = {"high": "high", "medium": "medium", "low": "low"}


def plan_entries(tool_input: JsonValue) -> list[acp.PlanEntry] | None:
    """Entries from any of the common todo shapes; None when the input is not a plan at all."""
    if not isinstance(tool_input, dict):
        return None
    items = next((tool_input[k] for k in ("todos", "plan", "items", "entries", "steps") if k in tool_input), None)
    if not isinstance(items, list):
        return None
    entries: list[acp.PlanEntry] = []
    for item in items:
        if isinstance(item, str):
            entries.append({"content": item, "priority": "medium", "status": "pending"})
            continue
        if not isinstance(item, dict):
            continue
        content = next((item[k] for k in ("content", "step", "title", "text", "description") if item.get(k)), "")
        status = _STATUS.get(str(item.get("status", "pending")).lower(), "pending")
        priority = _PRIORITY.get(str(item.get("priority", "medium")).lower(), "medium")
        entries.append({"content": str(content), "priority": priority, "status": status})
    return entries

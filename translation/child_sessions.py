"""Subagents as ACP child sessions, for an editor that declared ``clientCapabilities.subagents``.

The translator shows every subagent nested (:mod:`acp_mux.translation.updates`): its tool calls in the parent
session linked by ``_meta``, its text in the Task call's content. For an editor that opted in, :class:`ChildSessions`
re-addresses that same stream, update by update (live and in a replay alike): the Task call's spawn and end become
``subagent_update`` on the parent session (the child's ``sessionId``, title, description, cwd,
``capabilities.cancel``, ``state``), and the subagent's tool calls and text go out with the child's ``sessionId``
(its text as the child's own ``agent_message_chunk``). ``subagent_update`` follows the ACP subagent sessions
described in issue 24 and ACP's own announcement; the pinned v1.21 schema has no such update, so it is sent only to
an editor that asked for it. The child is always announced before any update that carries its id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from acp_mux.translation.updates import PARENT_META, SUBAGENT_META, SUBAGENT_TEXT_META, text_chunk

if TYPE_CHECKING:
    from acp_mux.protocol.v1_dicts import JsonValue, SessionUpdate

CHILD_MARK = "/subagent/"  # a child's sessionId: the parent's, this mark, the Task call's id


def wants_child_sessions(client_capabilities: Mapping[str, object]) -> bool:
    """Whether the editor declared ``subagents`` (any value but absent, null or false: the field is ``{}`` today,
    and a later shape must not switch it off)."""
    value = client_capabilities.get("subagents")
    return value is not None and value is not False


def child_session_id(parent_id: str, tool_call_id: str) -> str:
    return f"{parent_id}{CHILD_MARK}{tool_call_id}"


def split_child_id(session_id: str) -> tuple[str, str] | None:
    """A child's sessionId → (the parent's sessionId, the Task call's id); None for any other id."""
    parent, mark, tool_id = session_id.rpartition(CHILD_MARK)
    return (parent, tool_id) if mark and parent and tool_id else None


class ChildSessions:
    """Re-addresses one session's nested updates to child sessions (one instance per stream: live, or a replay)."""

    def __init__(self, parent_id: str, cwd: str, can_cancel: bool) -> None:
        self.parent_id = parent_id
        self.cwd = cwd
        self.can_cancel = can_cancel
        self.announced: set[str] = set()  # Task call ids whose child the editor knows
        self.running: set[str] = set()  # of those, the ones still working (their cancel goes somewhere)
        self.owner: dict[str, str] = {}  # a subagent's tool call id → its Task call id

    def route(self, update: SessionUpdate) -> list[tuple[str, SessionUpdate]]:
        """Where one nested update goes: (sessionId, update) pairs, announcements first."""
        meta = update.get("_meta")
        meta = meta if isinstance(meta, dict) else {}
        tool_id = update.get("toolCallId")
        spawned = meta.get(SUBAGENT_META)
        if isinstance(spawned, dict):
            return [(self.parent_id, update)] + self._state(spawned)
        text = meta.get(SUBAGENT_TEXT_META)
        if isinstance(text, dict) and isinstance(tool_id, str):
            return self._text(tool_id, text) + self._parent_part(update)
        link = meta.get(PARENT_META)
        parent = link.get("tool_call_id") if isinstance(link, dict) else None
        if isinstance(parent, str) and isinstance(tool_id, str):
            self.owner[tool_id] = parent
        owner = self.owner.get(tool_id) if isinstance(tool_id, str) else None
        if owner is None:
            return [(self.parent_id, update)]
        return self._announce(owner, None) + [(child_session_id(self.parent_id, owner), update)]

    def session_of(self, tool_call_id: str) -> str:
        """The session a tool call belongs to (its permission question is asked there): a subagent's call in its
        child session, announced by then (its ``tool_call`` went there first), any other in the parent."""
        owner = self.owner.get(tool_call_id)
        return child_session_id(self.parent_id, owner) if owner in self.announced else self.parent_id

    def _state(self, info: Mapping[str, JsonValue]) -> list[tuple[str, SessionUpdate]]:
        tool_id = info.get("tool_call_id")
        if not isinstance(tool_id, str):
            return []
        if info.get("state") == "idle":
            if tool_id not in self.running:
                return []  # never shown (it ended before spawning), or already ended: nothing to close
            self.running.discard(tool_id)
            idle: dict[str, JsonValue] = {
                "sessionUpdate": "subagent_update",
                "sessionId": child_session_id(self.parent_id, tool_id),
                "state": {"state": "idle"},
            }
            return [(self.parent_id, cast("SessionUpdate", idle))]
        return self._announce(tool_id, info)

    def _announce(self, tool_id: str, info: Mapping[str, JsonValue] | None) -> list[tuple[str, SessionUpdate]]:
        """``subagent_update`` for a child the editor does not know yet (from the spawn's facts, or bare when a
        subagent's update came first); nothing for one it knows."""
        if tool_id in self.announced:
            return []
        self.announced.add(tool_id)
        self.running.add(tool_id)
        info = info or {}
        update: dict[str, JsonValue] = {
            "sessionUpdate": "subagent_update",
            "sessionId": child_session_id(self.parent_id, tool_id),
            "title": info.get("title") if isinstance(info.get("title"), str) else "Subagent",
            "cwd": self.cwd,
            "capabilities": {"cancel": self.can_cancel},
            "state": {"state": "running"},
        }
        if isinstance(info.get("description"), str):
            update["description"] = info["description"]
        if isinstance(info.get("agent"), str):
            update["_meta"] = {SUBAGENT_META: {"agent": info["agent"], "tool_call_id": tool_id}}
        return [(self.parent_id, cast("SessionUpdate", update))]

    def _text(self, tool_id: str, marked: Mapping[str, JsonValue]) -> list[tuple[str, SessionUpdate]]:
        text = marked.get("text")
        if not isinstance(text, str) or not text:
            return []
        chunk = text_chunk("agent_thought_chunk" if marked.get("thinking") else "agent_message_chunk", text)
        return self._announce(tool_id, None) + [(child_session_id(self.parent_id, tool_id), chunk)]

    def _parent_part(self, update: SessionUpdate) -> list[tuple[str, SessionUpdate]]:
        """What a Task call's text update still says in the parent: its status (the text is the child's now)."""
        if update.get("status") is None:
            return []
        kept = {k: v for k, v in update.items() if k in ("sessionUpdate", "toolCallId", "status")}
        return [(self.parent_id, cast("SessionUpdate", kept))]

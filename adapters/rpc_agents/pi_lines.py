"""Reading pi's ``--mode rpc`` stdout lines at a constant cost per streaming line.

Every ``message_update`` line repeats the whole partial assistant message twice (``assistantMessageEvent.partial``
and ``message``), so a long answer streamed in N deltas costs O(N²) bytes on the pipe. Parsing each line as JSON
would make the bridge's CPU cost quadratic too. pi writes its events with ``JSON.stringify`` (compact, keys in a
fixed order), and the small fields come first::

    {"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"…","partial":{…}},"message":{…}}
    {"type":"message_update","assistantMessageEvent":{"type":"toolcall_end","contentIndex":2,"toolCall":{…},"partial":…

so :func:`read_update` matches the head and decodes only the delta (or the finished tool call). For
``toolcall_start`` the new call's id and name exist only inside the partial message; it is the last content block,
so its object is found by searching back from the end of the line (the ``message`` copy ends with it, followed by
a short fixed tail): the cost is the size of that one block, not of the message. Anything that does not look like
this (another pi version, pretty-printed JSON) falls back to a full parse: slower, never wrong.

Lines whose bulk the bridge never needs (``turn_end``, ``agent_end``, ``message_start``) are recognised from their
first bytes by :func:`line_type` and never parsed at all.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from acp_mux.core.text.shapes import as_count, as_dict, as_list, as_str

_DECODER = json.JSONDecoder()
_TYPE_HEAD = re.compile(r'\{"type":"(\w+)"')
_UPDATE_HEAD = re.compile(r'\{"type":"message_update","assistantMessageEvent":\{"type":"(\w+)","contentIndex":(\d+),')
_TOOL_CALL = '{"type":"toolCall","id":'
# How far from the end of a line the last tool call may start: its own size is bounded by the arguments streamed
# so far (empty at toolcall_start), plus the message's tail (api, provider, model, usage, stopReason, timestamp).
_TAIL_WINDOW = 64 * 1024


@dataclass(frozen=True)
class Update:
    """The part of one ``message_update`` the bridge uses."""

    kind: str  # assistantMessageEvent.type: text_delta, thinking_delta, toolcall_start, toolcall_end, ...
    index: int  # contentIndex
    delta: str = ""  # text_delta / thinking_delta / toolcall_delta
    tool_call: dict[str, Any] | None = None  # toolcall_start (id and name only) / toolcall_end (whole call)


def line_type(line: str) -> str | None:
    """The ``type`` of a pi event line read from its first bytes (responses start with ``{"id":…``: None)."""
    match = _TYPE_HEAD.match(line)
    return match.group(1) if match else None


def read_update(line: str) -> Update | None:
    """The delta of a ``message_update`` line without parsing its partial message (None: not one)."""
    head = _UPDATE_HEAD.match(line)
    if head is None:
        return _slow_update(line)
    kind, index, pos = head.group(1), int(head.group(2)), head.end()
    try:
        if kind in ("text_delta", "thinking_delta", "toolcall_delta"):
            value = _field(line, pos, "delta")
            return Update(kind, index, delta=value if isinstance(value, str) else "")
        if kind == "toolcall_end":
            value = _field(line, pos, "toolCall")
            return Update(kind, index, tool_call=value if isinstance(value, dict) else None)
        if kind == "toolcall_start":
            return Update(kind, index, tool_call=_last_tool_call(line))
    except ValueError:
        return _slow_update(line)
    return Update(kind, index)


def _field(line: str, pos: int, name: str) -> Any:
    key = f'"{name}":'
    if not line.startswith(key, pos):
        raise ValueError(f"expected {key} at {pos}")
    value, _ = _DECODER.raw_decode(line, pos + len(key))
    return value


def _last_tool_call(line: str) -> dict[str, Any] | None:
    start = line.rfind(_TOOL_CALL, max(0, len(line) - _TAIL_WINDOW))
    if start < 0:
        return None
    value, _ = _DECODER.raw_decode(line, start)
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        return None
    return {"id": value["id"], "name": value.get("name")}


def _slow_update(line: str) -> Update | None:
    """The same answer from a full parse, for lines not laid out as pi lays them out."""
    try:
        msg = json.loads(line)
    except ValueError:
        return None
    if not isinstance(msg, dict) or msg.get("type") != "message_update":
        return None
    event = msg.get("assistantMessageEvent")
    if not isinstance(event, dict):
        return None
    kind = str(event.get("type") or "")
    index = as_count(event.get("contentIndex"))
    call = as_dict(event.get("toolCall")) or None
    if kind == "toolcall_start":
        content = as_list(as_dict(event.get("partial")).get("content"))
        block = as_dict(content[index]) if 0 <= index < len(content) else {}
        call = {"id": block.get("id"), "name": block.get("name")} if block else None
    return Update(kind, index, delta=as_str(event.get("delta")), tool_call=call)

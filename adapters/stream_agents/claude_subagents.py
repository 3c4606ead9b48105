"""Claude's subagent lines with their tool calls named for the editor: one id per call across the session.

Claude names a tool call by the model's ``tool_use`` id, unique within one conversation only; a subagent is a
conversation of its own, so a model endpoint that numbers calls per conversation gives the subagent's first call the
id of the parent's Agent call (found with claude 2.1.197 and 2.1.332: the subagent's Write was never shown and its
permission question was asked about the Agent call). :func:`name_calls` rewrites, before the adapter reads a line,
every call id on it to the id :class:`~acp_mux.adapters.subagent_links.CallIds` gives that call in the conversation
it belongs to; the rest of the adapter only ever sees those.

What links a line to its subagent (claude 2.1.332, ``tests/fixtures/claude/2.1.332/subagent_*.jsonl``): its
``assistant``, ``user``, ``stream_event`` and ``tool_progress`` lines carry ``parent_tool_use_id`` (the Agent/Task
call that started it, by the id its parent gave it) and, since 2.1.332, ``agent_id`` (claude's id for the subagent,
the ``task_id`` of its ``system task_started``); its ``can_use_tool`` control request carries only ``agent_id`` and
the subagent's own ``tool_use_id``; the ``task_*`` system lines name the Agent call by ``tool_use_id``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acp_mux.adapters.base import PerRun
from acp_mux.adapters.stream_agents.claude_tools import SUBAGENT_TOOLS
from acp_mux.adapters.subagent_links import CallIds
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.text.shapes import as_dict, as_list

_TOOL_USES = ("tool_use", "server_tool_use", "mcp_tool_use")


@dataclass
class ClaudeSubagents(PerRun):
    """Which call started each subagent, by the two names claude gives it on later lines."""

    KEY = "claude.subagents"

    spawns: dict[str, str] = field(default_factory=dict)  # claude's id of an Agent/Task call → ours
    agents: dict[str, str] = field(default_factory=dict)  # claude's agent id (task id) of a subagent → ours of its call


def name_calls(msg: dict[str, Any], ctx: ParseContext) -> None:
    """Rewrite, in place, every tool call id ``msg`` carries (and its ``parent_tool_use_id``) to ours."""
    kind = msg.get("type")
    if kind == "stream_event":  # the hot path: only a tool block's start names a call
        event = as_dict(msg.get("event"))
        if event.get("type") == "content_block_start":
            block = as_dict(event.get("content_block"))
            if block.get("type") in _TOOL_USES:
                _name_use(block, _owner(msg, ctx), ctx)
        return
    if kind == "system":
        _name_task_line(msg, ctx)
        return
    if kind == "control_request":
        _name_asked(as_dict(msg.get("request")), ctx)
        return
    owner = _owner(msg, ctx)
    if kind == "tool_progress":
        _refer(msg, "tool_use_id", owner, ctx)
        return
    if kind not in ("assistant", "user"):
        return
    for block in as_list(as_dict(msg.get("message")).get("content")):
        if not isinstance(block, dict):
            continue
        if block.get("type") in _TOOL_USES:
            _name_use(block, owner, ctx)
        elif "tool_use_id" in block:  # a tool_result, a web search's result
            _refer(block, "tool_use_id", owner, ctx)


def _name_asked(request: dict[str, Any], ctx: ParseContext) -> None:
    """A ``can_use_tool`` request names its call (it may come before the call's own line): in the conversation of
    the subagent its ``agent_id`` names (or, when claude never named that subagent yet, of the one subagent
    running), in the session's own without one. A subagent's request whose subagent cannot be told names the call
    without claiming the id for a conversation, so the call's own line still gets it."""
    raw = request.get("tool_use_id")
    if not isinstance(raw, str) or not raw:
        return
    agent_id = request.get("agent_id")
    ids = CallIds.of(ctx)
    if not isinstance(agent_id, str) or not agent_id:
        request["tool_use_id"] = ids.name(None, raw)
        return
    state = ClaudeSubagents.of(ctx)
    owner = state.agents.get(agent_id)
    if owner is None:
        running = {spawn for spawn in state.spawns.values() if ctx.tool_name(spawn) is not None}
        owner = running.pop() if len(running) == 1 else None
        if owner is not None:
            state.agents[agent_id] = owner
    request["tool_use_id"] = ids.name(owner, raw) if owner is not None else ids.refer(None, raw)


def _owner(msg: dict[str, Any], ctx: ParseContext) -> str | None:
    """Our id of the call whose subagent wrote ``msg`` (None: the session's own agent); the line's
    ``parent_tool_use_id`` becomes it, and its ``agent_id`` is remembered for that subagent's permission requests."""
    parent = msg.get("parent_tool_use_id")
    if not isinstance(parent, str) or not parent:
        return None
    state = ClaudeSubagents.of(ctx)
    ours = state.spawns.get(parent, parent)
    msg["parent_tool_use_id"] = ours
    agent_id = msg.get("agent_id")
    if isinstance(agent_id, str) and agent_id:
        state.agents.setdefault(agent_id, ours)
    return ours


def _name_use(block: dict[str, Any], owner: str | None, ctx: ParseContext) -> None:
    """A ``tool_use`` block: its id named in ``owner``'s conversation; an Agent/Task call is remembered as the
    start of a subagent (while an earlier call of that id still runs one, that one keeps the name)."""
    raw = block.get("id")
    if not isinstance(raw, str) or not raw:
        return
    ours = block["id"] = CallIds.of(ctx).name(owner, raw)
    if block.get("name") in SUBAGENT_TOOLS:
        spawns = ClaudeSubagents.of(ctx).spawns
        earlier = spawns.get(raw)
        if earlier is None or earlier == ours or ctx.tool_name(earlier) is None:
            spawns[raw] = ours


def _refer(holder: dict[str, Any], key: str, owner: str | None, ctx: ParseContext) -> None:
    """A reference to a call (``holder[key]``): to ours for it."""
    raw = holder.get(key)
    if isinstance(raw, str) and raw:
        holder[key] = CallIds.of(ctx).refer(owner, raw)


def _name_task_line(msg: dict[str, Any], ctx: ParseContext) -> None:
    """``task_started`` / ``task_progress`` / ``task_notification`` name a call that runs long: a subagent's
    Agent/Task call (ours, as remembered), else a call of the session's own agent (a slow Bash)."""
    raw = msg.get("tool_use_id")
    if not isinstance(raw, str) or not raw or not str(msg.get("subtype") or "").startswith("task_"):
        return
    state = ClaudeSubagents.of(ctx)
    ours = state.spawns.get(raw) or CallIds.of(ctx).known(None, raw) or raw
    msg["tool_use_id"] = ours
    task_id = msg.get("task_id")
    if msg.get("subtype") == "task_started" and isinstance(task_id, str) and task_id and ours in state.spawns.values():
        state.agents[task_id] = ours

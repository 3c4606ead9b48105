"""codex's subagents (multi-agent: child threads) as the same linked events claude's Task subagents give.

Facts (codex 0.169.0 app-server, recorded in ``tests/fixtures/codex/subagent.jsonl``; schema from ``codex app-server
generate-json-schema``): with ``features.multi_agent_v2`` the model gets a ``collaboration`` namespace tool; its
``spawn_agent`` call shows in the parent thread as a ``subAgentActivity`` item (``kind: started``, ``id`` = the
model's call id, ``agentThreadId`` = the child thread, ``agentPath`` e.g. ``/root/inspect``), which completes at
once while the child keeps running; the child thread's own ``turn/*``, ``item/*`` and approval requests carry its
``threadId``; its end is its ``turn/completed`` and then a parent ``subAgentActivity`` (``kind: completed`` or
``interrupted``). The older multi-agent tools show as ``collabAgentToolCall`` items (``tool: spawnAgent`` with
``receiverThreadIds`` once it completes; ``wait``, ``sendInput`` … otherwise).

Mapping, the same as claude's so nothing downstream knows two mechanisms: the spawn is a ``spawn_agent`` tool call
plus ``subagent_spawn`` (``subagent_id`` = that call's id), kept open while the child runs; every event of the child
thread carries ``parent_tool_call_id`` = the spawn call, its words are ``subagent_text`` (never the main reply), its
end closes the spawn call with ``subagent_result`` / ``subagent_error``. A child whose spawn call is no longer open
(the parent's turn ended first) is not shown any more: outside a turn there is nothing to show it in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from acp_mux.adapters.subagent_links import CallIds, link_to_subagent
from acp_mux.adapters.stream_agents.codex_exec import CodexRun, request_usage, shell_begin
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.text.shapes import as_dict, as_int, as_str

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent

ItemHandler = Callable[[dict[str, Any], ParseContext], "list[BaseEvent]"]
SPAWN_TOOL = "spawn_agent"
_TEXT_KINDS = ("agentMessage", "reasoning", "userMessage")  # a child's words, never a parent's text


def link(events: list[BaseEvent], spawn_id: str | None, ctx: ParseContext) -> list[BaseEvent]:
    """Mark a child thread's events with the spawn call they belong to (the tree the log keeps), and any later event
    of a tool call a child started (``spawn_id`` None: e.g. the parent's turn end closing it)."""
    return link_to_subagent(events, spawn_id, CodexRun.of(ctx).child_tools)


def unheard(params: dict[str, Any], ctx: ParseContext) -> bool:
    """A request from another thread when no turn is open and no spawn call of ours is (the parent's turn ended
    first): there is no turn to ask the person in, so codex gets a refusal instead of waiting for ever."""
    thread, ours = as_str(params.get("threadId")), CodexRun.of(ctx).thread
    if not thread or not ours or thread == ours or ctx.in_turn:
        return False
    spawn_id = spawn_of(params, ctx)
    return spawn_id is None or ctx.tool_name(spawn_id) is None


def name_calls(params: dict[str, Any], ctx: ParseContext) -> None:
    """Rewrite, in place, the item ids a message carries (``item.id``, ``itemId``, legacy ``callId``) to the ids
    :class:`CallIds` gives them in the thread they come from: codex's item ids are the model's call ids, unique in
    one thread only, and a child thread whose model numbers its calls afresh would else give its patch the id of
    the parent's ``spawn_agent`` call (the question about the patch then named the spawn call, and the patch's end
    ended it). A message of a thread not known as a child is named as the session's own."""
    owner = spawn_of(params, ctx)
    ids = CallIds.of(ctx)
    item = params.get("item")
    if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]:
        item["id"] = ids.name(owner, item["id"])
    for key in ("itemId", "callId"):
        raw = params.get(key)
        if isinstance(raw, str) and raw:
            params[key] = ids.name(owner, raw)


def spawn_of(params: dict[str, Any], ctx: ParseContext) -> str | None:
    """The spawn call of the child thread a message comes from, None for the session's own thread or one unknown."""
    thread = as_str(params.get("threadId"))
    return CodexRun.of(ctx).children.get(thread) if thread else None


def activity(item: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
    """A parent ``subAgentActivity`` item: ``started`` spawns (once, from whichever of its two lines comes first),
    ``completed`` / ``interrupted`` end the child when its own ``turn/completed`` did not already."""
    kind, thread = as_str(item.get("kind")), as_str(item.get("agentThreadId"))
    if kind == "started" and thread:
        path = as_str(item.get("agentPath"))
        return _spawn(ctx, as_str(item.get("id")), thread, path, "", as_str(item.get("model")))
    if kind in ("completed", "interrupted") and thread:
        return end_child(ctx, thread, "completed" if kind == "completed" else "interrupted", "")
    return []  # "interacted": a message to a running child, nothing to show


def collab_call(item: dict[str, Any], started: bool, ctx: ParseContext) -> list[BaseEvent]:
    """A ``collabAgentToolCall`` item: ``spawnAgent`` spawns once codex names the child thread; any other collab
    tool (wait, send input, close …) is an ordinary tool call of the parent."""
    item_id, tool, status = as_str(item.get("id")), as_str(item.get("tool")), as_str(item.get("status"))
    prompt = as_str(item.get("prompt"))
    receivers = [r for r in item.get("receiverThreadIds") or () if isinstance(r, str) and r]
    if tool == "spawnAgent":
        events = [] if ctx.tool_name(item_id) else ctx.tool_start(item_id, SPAWN_TOOL, {"message": prompt})
        if status == "failed":
            return events + _failed(ctx, item_id, "the subagent could not be spawned")
        if receivers:
            events += _spawn(ctx, item_id, receivers[0], "", prompt, as_str(item.get("model")))
        return events
    name = "".join("_" + c.lower() if c.isupper() else c for c in tool) or "collab"
    events = (
        [] if ctx.tool_name(item_id) else ctx.tool_start(item_id, name, {"receivers": receivers, "message": prompt})
    )
    if started or status == "inProgress":
        return events
    states = item.get("agentsStates")
    if status in ("failed", "interrupted"):
        return events + ctx.tool_error(item_id, f"{name} {status}")
    return events + ctx.tool_result(item_id, states if states else status)


def _spawn(ctx: ParseContext, spawn_id: str, thread: str, path: str, prompt: str, model: str) -> list[BaseEvent]:
    run = CodexRun.of(ctx)
    if not spawn_id or thread in run.children:
        return []
    run.children[thread] = spawn_id
    name = path.rsplit("/", 1)[-1] or "subagent"
    events = [] if ctx.tool_name(spawn_id) else ctx.tool_start(spawn_id, SPAWN_TOOL, {"task_name": name})
    spawned = ev.SubagentSpawnEvent(subagent_id=spawn_id, agent_name=model or name, prompt=prompt, description=name)
    return events + [spawned]


def end_child(ctx: ParseContext, thread: str, status: str, error: str) -> list[BaseEvent]:
    """The child's work is over: its spawn call ends (once) with its last words or why it stopped."""
    run = CodexRun.of(ctx)
    run.child_turns.pop(thread, None)
    spawn_id = run.children.get(thread)
    if spawn_id is None or ctx.tool_name(spawn_id) is None:
        return []
    summary = run.child_said.pop(thread, "")
    if status == "completed":
        return ctx.tool_result(spawn_id, summary) + [
            ev.SubagentResultEvent(subagent_id=spawn_id, agent_name=_name(ctx, spawn_id), summary=summary)
        ]
    return _failed(ctx, spawn_id, error or status)


def _failed(ctx: ParseContext, spawn_id: str, error: str) -> list[BaseEvent]:
    name = _name(ctx, spawn_id)
    return ctx.tool_error(spawn_id, error) + [ev.SubagentErrorEvent(subagent_id=spawn_id, agent_name=name, error=error)]


def _name(ctx: ParseContext, spawn_id: str) -> str:
    return as_str(as_dict(ctx.tool_input(spawn_id)).get("task_name")) or "subagent"


def child_notification(
    method: str, params: dict[str, Any], spawn_id: str, ctx: ParseContext, started: ItemHandler, completed: ItemHandler
) -> list[BaseEvent]:
    """One notification of a child thread, as the subagent's linked events (``started``/``completed``: the
    adapter's own item handlers, for the child's tool calls)."""
    run = CodexRun.of(ctx)
    thread = as_str(params.get("threadId"))
    if method == "turn/completed":
        turn = as_dict(params.get("turn"))
        error = as_str(as_dict(turn.get("error")).get("message"))
        return end_child(ctx, thread, as_str(turn.get("status")) or "completed", error)
    if ctx.tool_name(spawn_id) is None:  # its spawn call is over (the parent's turn ended): nowhere to show it
        return []
    item = as_dict(params.get("item"))
    kind, item_id = as_str(item.get("type")), as_str(params.get("itemId"))
    if method == "turn/started":
        run.child_turns[thread] = as_str(as_dict(params.get("turn")).get("id"))
        return []
    if method == "item/completed" and kind in ("agentMessage", "reasoning"):
        return link(_words(item, thread, spawn_id, run), spawn_id, ctx)
    if method == "item/started" and kind not in _TEXT_KINDS:
        return link(started(item, ctx), spawn_id, ctx)
    if method == "item/completed" and kind not in _TEXT_KINDS:
        return link(completed(item, ctx), spawn_id, ctx)
    if method == "item/commandExecution/outputDelta":
        run.streamed.add(item_id)
        delta = as_str(params.get("delta"))
        shell = shell_begin(ctx, item_id) + ([ev.ShellStdoutDeltaEvent(delta=delta)] if delta else [])
        return link(shell, spawn_id, ctx)
    if method == "item/fileChange/outputDelta":
        run.patch_output[item_id] = as_str(params.get("delta"))
    if method == "thread/tokenUsage/updated":  # what the subagent spent is the person's too (its own totals)
        usage = as_dict(params.get("tokenUsage"))
        total = as_int(as_dict(usage.get("total")).get("totalTokens"))
        if total is None or run.child_usage.get(thread) == total:
            return []
        run.child_usage[thread] = total
        return link([request_usage(as_dict(usage.get("last")))], spawn_id, ctx)
    return []  # its deltas (the whole item follows), status changes


def _words(item: dict[str, Any], thread: str, spawn_id: str, run: CodexRun) -> list[BaseEvent]:
    if as_str(item.get("type")) == "agentMessage":
        text = as_str(item.get("text"))
        if text.strip():
            run.child_said[thread] = text
        return [ev.SubagentTextEvent(subagent_id=spawn_id, text=text)] if text.strip() else []
    parts = item.get("summary") or item.get("content") or []
    thought = "\n\n".join(p for p in parts if isinstance(p, str))
    return [ev.SubagentTextEvent(subagent_id=spawn_id, text=thought, thinking=True)] if thought.strip() else []

"""Tool progress (spec 004) from each agent's own report, as ``tool_progress`` events for calls it announced.

Shapes: claude's stream-json ``tool_progress`` line (``tool_use_id``, ``tool_name``, ``elapsed_time_seconds``) and
``system/task_progress`` (a subagent at work: ``tool_use_id``, ``description``, ``usage.tool_uses``,
``last_tool_name``), as the Agent SDK types them; codex app-server's ``item/mcpToolCall/progress`` (``itemId``,
``message``: an MCP server's progress notification relayed). No recorded transcript has them (the scripted model
server's tools finish at once), so the lines here are built from those shapes.
"""

from __future__ import annotations

from acp_mux.adapters.stream_agents.claude import ClaudeAdapter
from acp_mux.core.run.contract import RunOptions
from tests.adapters.helpers import brief, feed, make_ctx
from tests.adapters.test_codex import _n, _turn

CWD = "/home/user/project"


def _claude_with_bash() -> tuple[ClaudeAdapter, object]:
    adapter, ctx = ClaudeAdapter(), make_ctx("claude", CWD)
    adapter.start(RunOptions(agent="claude", cwd=CWD), ctx)
    ctx.take_outbox()
    feed(adapter, [
        {"type": "system", "subtype": "init", "session_id": "s1", "cwd": CWD},
        {"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "sleep 30"}}]},
         "parent_tool_use_id": None, "session_id": "s1"},
    ], ctx)  # fmt: skip
    return adapter, ctx


def test_claude_tool_progress_and_task_progress_become_progress_of_the_call() -> None:
    adapter, ctx = _claude_with_bash()
    events = feed(adapter, [
        {"type": "tool_progress", "tool_use_id": "toolu_1", "tool_name": "Bash", "parent_tool_use_id": None,
         "elapsed_time_seconds": 12.4, "uuid": "u1", "session_id": "s1"},
        {"type": "system", "subtype": "task_progress", "task_id": "k1", "tool_use_id": "toolu_1",
         "description": "Exploring the repo", "usage": {"total_tokens": 900, "tool_uses": 4, "duration_ms": 5000},
         "last_tool_name": "Grep", "uuid": "u2", "session_id": "s1"},
        {"type": "tool_progress", "tool_use_id": "toolu_unknown", "tool_name": "Bash", "elapsed_time_seconds": 1},
    ], ctx)  # fmt: skip
    progress = [e for e in events if e.type == "tool_progress"]
    assert [(e.tool_call_id, e.status, e.progress, e.total, e.message) for e in progress] == [
        ("toolu_1", "running", None, None, "running for 12 s"),
        ("toolu_1", "running", 4.0, None, "Exploring the repo · Grep"),
    ]  # progress of a call this run never announced has nowhere to go


# Real lines of claude 2.1.197 running `sleep 7; echo slept` through Bash (captured against the scripted model
# server with tests/fixtures/capture.py; ids as recorded, the tool_use id renamed to the one announced here).
CLAUDE_TASK_LINES = [
    {"type": "system", "subtype": "task_started", "task_id": "bus697fmb", "tool_use_id": "toolu_1",
     "description": "Sleep a while", "task_type": "local_bash", "uuid": "0a3a76c4-1be1-4ed2-9f99-40a8cacd8933",
     "session_id": "b9cb451f-70e9-4aab-b90b-eb6aea64fe85"},
    {"type": "system", "subtype": "task_notification", "task_id": "bus697fmb", "tool_use_id": "toolu_1",
     "status": "completed", "output_file": "", "summary": "Sleep a while", "uuid": "c68669d5-6ea5-45c3-bd35-ab757963aa3e",
     "session_id": "b9cb451f-70e9-4aab-b90b-eb6aea64fe85"},
]  # fmt: skip


def test_claude_task_items_of_a_long_command_are_its_progress() -> None:
    adapter, ctx = _claude_with_bash()
    events = feed(adapter, CLAUDE_TASK_LINES, ctx)
    assert [(e.type, e.tool_call_id, e.status, e.message) for e in events] == [
        ("tool_progress", "toolu_1", "running", "Sleep a while"),
        ("tool_progress", "toolu_1", "completed", "Sleep a while"),
    ]  # the call itself ends with its tool_result, not here


def test_codex_mcp_progress_notification_becomes_progress_of_the_item() -> None:
    mcp = {
        "type": "mcpToolCall",
        "id": "m1",
        "server": "docs",
        "tool": "search",
        "arguments": {"q": "x"},
        "status": "inProgress",
    }
    events = _turn(
        _n("item/started", item=mcp),
        _n("item/mcpToolCall/progress", itemId="m1", message="fetched 2 of 5 pages"),
        _n("item/mcpToolCall/progress", itemId="elsewhere", message="not ours"),
        _n("item/completed", item={**mcp, "status": "completed", "result": {"content": []}}),
    )
    assert ("tool_progress",) in brief(events)
    (progress,) = [e for e in events if e.type == "tool_progress"]
    assert (progress.tool_call_id, progress.message, progress.status) == ("m1", "fetched 2 of 5 pages", "running")
    types = [e.type for e in events]
    assert types.index("tool_progress") < types.index("tool_result")

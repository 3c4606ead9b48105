"""``_meta.claudeCode`` on Claude's tool calls (adapters/stream_agents/claude_tool_meta.py), as claude-agent-acp 0.101
sends it: the tool's own name on the call and its end, the tool's response on a successful end. From the pinned
2.1.332's recorded run (a write, an edit) and a recorded command (2.1.197) through the adapter and the translator, checked against ACP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_mux.adapters.stream_agents.claude import ClaudeAdapter
from acp_mux.translation.updates import UpdateTranslator
from tests.adapters.helpers import FIXTURES, capture_lines, feed, make_ctx
from tests.translation.helpers import acp_valid

WRITE_EDIT = FIXTURES / "claude" / "2.1.332" / "write_edit_allow.jsonl"
COMMAND = FIXTURES / "claude" / "shared-captures" / "claude-control-allow.jsonl"  # echo, then a write and an edit


def updates(recording: Path) -> list[dict[str, Any]]:
    ctx = make_ctx("claude", "/tmp/wecap/run/project")
    events = feed(ClaudeAdapter(), capture_lines(recording), ctx)
    translator = UpdateTranslator(ClaudeAdapter.tool_table, "/tmp/wecap/run/project")
    return acp_valid([u for e in events for u in translator.translate(e)])


def test_every_call_names_its_tool_and_a_finished_one_gives_its_response() -> None:
    found = updates(WRITE_EDIT) + updates(COMMAND)
    calls = {u["toolCallId"]: u for u in found if u["sessionUpdate"] == "tool_call"}
    assert calls and all("toolName" in u["_meta"]["claudeCode"] for u in calls.values())
    names = {u["_meta"]["claudeCode"]["toolName"] for u in calls.values()}
    assert {"Bash", "Write", "Edit"} <= names
    ends = [u for u in found if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"]
    assert {u["toolCallId"] for u in ends} == set(calls)
    for end in ends:
        code = end["_meta"]["claudeCode"]
        assert code["toolName"] == calls[end["toolCallId"]]["_meta"]["claudeCode"]["toolName"]
        assert "toolResponse" in code
    bash = next(u for u in ends if u["_meta"]["claudeCode"]["toolName"] == "Bash")
    assert "stdout" in bash["_meta"]["claudeCode"]["toolResponse"]  # the command's structured result

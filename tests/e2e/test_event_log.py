"""The session event log on the real CLIs: a session replays (in a new bridge) as the editor saw it live, and a
permission pending when the editor reopens the session is asked again, with the answer reaching the agent."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest
from acp.schema import AllowedOutcome, RequestPermissionResponse

from acp_mux.server.records.store import SessionStore
from tests.e2e.harness import RealAgent, require_cli
from tests.e2e.test_real_agents import WRITE_EDIT, prompt
from tests.server.client import RecordingClient
from tests.server.test_recorded_sessions import assert_gap_free, conversation

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

AGENTS = ["claude", "codex", "gemini"]


@pytest.fixture(params=AGENTS)
def agent(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent(request.param, require_cli(request.param), tmp_path)
    yield real
    real.close()


def as_dicts(client: RecordingClient) -> list[dict[str, Any]]:
    return [u.model_dump(mode="json", by_alias=True, exclude_none=True) for u in client.updates]


async def test_a_real_session_replays_as_it_was_shown(agent: RealAgent) -> None:
    agent.serve(f"{agent.name}_write_edit", delta_delay=0)
    live = RecordingClient(choose=lambda options, call: "allow_once")
    async with agent.bridge(live) as (conn, _):
        sid = await agent.session(conn)  # a new session asks by default
        live.updates.clear()
        assert (await prompt(conn, sid, WRITE_EDIT)).stop_reason == "end_turn", agent.log()[-3000:]
    assert_gap_free(SessionStore(agent.root / "state").log_path(sid))
    reopened = RecordingClient()
    async with agent.bridge(reopened) as (conn, _):
        await conn.initialize(protocol_version=1)
        await conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
        replayed = as_dicts(reopened)
    assert [u["content"]["text"] for u in replayed if u["sessionUpdate"] == "user_message_chunk"] == [WRITE_EDIT]
    assert conversation(replayed) == conversation(as_dicts(live))


@dataclass
class ReopeningEditor(RecordingClient):
    """Leaves the first question unanswered (the person closed the thread), answers every later one."""

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        self.permissions.append((tool_call, options))
        self.permission_event.set()
        if len(self.permissions) == 1:
            await asyncio.sleep(3600)  # withdrawn by the bridge ($/cancel_request) when the session is reopened
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="allow_once"))


async def test_a_question_pending_at_reload_is_asked_again_and_answered(agent: RealAgent) -> None:
    agent.serve(f"{agent.name}_write_edit", delta_delay=0)
    client = ReopeningEditor()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)  # a new session asks by default
        turn = asyncio.ensure_future(prompt(conn, sid, WRITE_EDIT))
        await asyncio.wait_for(client.permission_event.wait(), 60)
        await conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
        result = await asyncio.wait_for(turn, 90)
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    first, again = client.permissions[0][0], client.permissions[1][0]
    assert again.tool_call_id == first.tool_call_id
    assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"  # the answer reached the agent


async def test_claude_reports_a_long_command_as_progress_of_its_tool_call(tmp_path: Path) -> None:
    """claude announces a Bash command that runs past a few seconds as a task (``system/task_started``, then
    ``task_notification``): the editor sees both as progress of the call, which ends with its result. The pinned
    2.1.332 does so only with background tasks on, which acp-mux turns off unless the person set
    CLAUDE_CODE_DISABLE_BACKGROUND_TASKS themselves (``0`` here: theirs is kept); 2.1.197 did so always (its lines
    are replayed in tests/adapters/test_tool_progress.py)."""
    agent = RealAgent(
        "claude", require_cli("claude"), tmp_path, extra_env={"CLAUDE_CODE_DISABLE_BACKGROUND_TASKS": "0"}
    )
    try:
        agent.serve("claude_slow_command", delta_delay=0)
        client = RecordingClient(choose=lambda options, call: "allow_once")
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)  # a new session asks by default
            result = await prompt(conn, sid, "Run the slow command.")
    finally:
        agent.close()
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    updates = as_dicts(client)
    (call,) = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    progress = [
        u["_meta"]["tool_call_progress"]
        for u in updates
        if u.get("toolCallId") == call["toolCallId"] and "tool_call_progress" in (u.get("_meta") or {})
    ]
    assert [(p["status"], p.get("message")) for p in progress] == [
        ("running", "Sleep a while"),
        ("completed", "Sleep a while"),
    ]
    statuses = [u["status"] for u in updates if u.get("toolCallId") == call["toolCallId"] and u.get("status")]
    assert statuses[-1] == "completed"

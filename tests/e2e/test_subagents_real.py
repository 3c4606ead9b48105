"""A claude Agent/Task subagent through acp-mux, on the real pinned claude CLI and the SDK client.

The scripted model (``tests/fakes/scenarios/claude_subagent.json``) makes claude call its Agent tool; the
subagent's own model requests begin with the Task prompt, whose marker routes them to the sub-script (a text, a
Read of notes.txt, a final text). Without the ``subagents`` capability the editor sees the subagent nested in the
parent session; with it, as a child session announced by ``subagent_update``. A cancel mid-subagent (the
sub-script's first request stalls) stops it: the parent's cancel ends the turn ``cancelled``; the child's cancel
stops that subagent alone and the parent's turn carries on. The wire, start and shared checks are
``tests/e2e/subagent_wire.py`` (codex's subagents come out the same).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_mux.translation.child_sessions import child_session_id
from tests.e2e.harness import RealAgent, require_cli
from tests.e2e import subagent_wire as sw
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

SUB_TEXTS = ("Subagent here, reading the notes.", "The notes hold a greeting: hello.")
TITLE = "Inspect notes"


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent("claude", require_cli("claude"), tmp_path)
    (real.cwd / "notes.txt").write_text("hello\n")
    yield real
    real.close()


def serve_claude(agent: RealAgent, *, stall_subagent: bool = False) -> ModelServer:
    """The claude subagent scenario; ``stall_subagent``: the subagent's first model request never answers."""
    return sw.serve(agent, sw.scenario("claude_subagent"), stall_subagent=stall_subagent)


async def test_without_the_capability_the_subagent_is_nested_under_its_agent_call(agent: RealAgent) -> None:
    srv = serve_claude(agent)
    wire, sid, _ = await sw.one_turn(agent, "Look at the notes with a subagent.", children=False)
    assert sw.steps(srv) == [None, sw.MARKER, sw.MARKER, None]
    updates = wire.updates(sid)
    task = sw.call_titled(updates, TITLE)
    sw.assert_nested(wire, sid, task, SUB_TEXTS)
    read = next(u for u in updates if u["sessionUpdate"] == "tool_call" and u["toolCallId"] != task)
    assert read["kind"] == "read" and read["_meta"]["claudeCode"]["parentToolUseId"] == task
    assert read["_meta"]["parent_tool_call"] == {"tool_call_id": task}
    statuses = {u["toolCallId"]: u["status"] for u in updates if u.get("status")}
    assert statuses == {task: "completed", read["toolCallId"]: "completed"}
    assert sw.text_of(updates) == "I will ask a subagent.The subagent says the notes hold a greeting."


async def test_with_the_capability_the_subagent_is_a_child_session(agent: RealAgent) -> None:
    serve_claude(agent)
    wire, sid, replayed = await sw.one_turn(agent, "Look at the notes with a subagent.", children=True, replay=True)
    parent = wire.updates(sid)
    child = sw.assert_child_session(wire, replayed, sid, sw.call_titled(parent, TITLE), TITLE)
    announced = next(u for u in parent if u["sessionUpdate"] == "subagent_update")
    assert announced["cwd"] == str(agent.cwd)
    calls = sw.child_calls(wire, sid, child, SUB_TEXTS)
    assert [c["kind"] for c in calls] == ["read"]
    assert sw.last_status(wire.updates(child), calls[0]["toolCallId"]) == "completed"
    assert calls[0]["toolCallId"] not in {u.get("toolCallId") for u in parent}


async def test_cancelling_the_parent_mid_subagent_stops_it_and_the_turn_answers_cancelled(agent: RealAgent) -> None:
    srv = serve_claude(agent, stall_subagent=True)
    async with agent.bridge(RecordingClient()) as (conn, _):
        wire, sid = await sw.parent_cancelled_mid_subagent(agent, conn, srv)  # claude dropped the subagent's request
        parent = wire.updates(sid)
        assert sw.last_status(parent, sw.call_titled(parent, TITLE)) == "failed"
        assert len(sw.steps(srv)) == 2  # nothing asked after the cancel
    for _ in range(100):  # the bridge gone, no claude (and no subagent) left behind: within 10 s
        if not agent.processes():
            break
        await asyncio.sleep(0.1)
    assert agent.processes() == []


async def test_cancelling_the_child_stops_that_subagent_and_the_parent_carries_on(agent: RealAgent) -> None:
    srv = serve_claude(agent, stall_subagent=True)
    async with agent.bridge(RecordingClient()) as (conn, _):
        parent, task = await sw.child_cancelled_mid_subagent(agent, conn, srv, TITLE, within=20)
        assert sw.last_status(parent, task) in ("failed", "completed")
        assert parent[-1] != {}
        assert sw.text_of(parent).endswith("The subagent says the notes hold a greeting.")  # the parent went on
        assert sw.steps(srv)[-1] is None


async def test_a_subagents_permission_question_is_asked_in_its_child_session(agent: RealAgent) -> None:
    script: dict[str, Any] = sw.scenario("claude_subagent")
    bash = {"tool_use": {"name": "Bash", "input": {"command": "touch made.txt", "description": "Make a file"}}}
    script["scripts"][sw.MARKER]["steps"][0]["blocks"][1] = bash
    sw.serve(agent, script)
    client = sw.SessionRecordingClient()
    wire, sid, _ = await sw.one_turn(agent, "Make a file with a subagent.", children=True, client=client)
    child = child_session_id(sid, sw.call_titled(wire.updates(sid), TITLE))
    assert client.asked_in == [child] and (agent.cwd / "made.txt").exists()
    (call,) = [u for u in wire.updates(child) if u["sessionUpdate"] == "tool_call"]
    assert call["kind"] == "execute" and client.permissions[0][0].tool_call_id == call["toolCallId"]

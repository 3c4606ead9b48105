"""A claude Agent/Task subagent through acp-mux, on the real pinned claude CLI and the SDK client.

The scripted model (``tests/fakes/scenarios/claude_subagent.json``) makes claude call its Agent tool; the
subagent's own model requests begin with the Task prompt, whose marker routes them to the sub-script (a text, a
Read of notes.txt, a final text). Without the ``subagents`` capability the editor sees the subagent nested in the
parent session; with it, as a child session announced by ``subagent_update``. A cancel mid-subagent (the
sub-script's first request stalls) stops it: the parent's cancel ends the turn ``cancelled``; the child's cancel
stops that subagent alone and the parent's turn carries on. The SDK does not model ``subagent_update`` (ACP v1.21
has none), so the raw messages are read with the SDK connection's own stream observer, and the capability is sent
in a raw ``initialize`` through the same connection.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import acp
import pytest

from acp_mux.translation.child_sessions import child_session_id
from tests.e2e.harness import SCENARIOS, RealAgent, require_cli
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

MARKER = "[[subagent:inspect]]"
SUB_TEXTS = ("Subagent here, reading the notes.", "The notes hold a greeting: hello.")
TURN_S = 90


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent("claude", require_cli("claude"), tmp_path)
    (real.cwd / "notes.txt").write_text("hello\n")
    yield real
    real.close()


def serve(agent: RealAgent, *, stall_subagent: bool = False) -> ModelServer:
    """The subagent scenario; ``stall_subagent``: the subagent's first model request never answers."""
    scenario: dict[str, Any] = json.loads((SCENARIOS / "claude_subagent.json").read_text())
    if stall_subagent:
        scenario["scripts"][MARKER]["steps"][0] = {"error": "stall"}
    agent.server = ModelServer(scenario, variables={"cwd": str(agent.cwd)}, delta_delay=0, stall_max=60)
    return agent.server.start()


class Wire:
    """Every raw message the bridge sent the client (the SDK drops what its schema does not know)."""

    def __init__(self, conn: Any) -> None:
        self.messages: list[dict[str, Any]] = []
        conn._conn.add_observer(self._seen)

    def _seen(self, event: Any) -> None:
        if event.direction.value == "incoming" and event.message.get("method") == "session/update":
            self.messages.append(event.message["params"])

    def updates(self, session_id: str) -> list[dict[str, Any]]:
        return [m["update"] for m in self.messages if m["sessionId"] == session_id]

    async def until(self, predicate: Any, timeout: float = 30) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not any(predicate(m) for m in self.messages):
            assert asyncio.get_running_loop().time() < deadline, "the update never came"
            await asyncio.sleep(0.05)


def text_of(updates: list[dict[str, Any]]) -> str:
    return "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")


def agent_call(updates: list[dict[str, Any]]) -> str:
    return next(u["toolCallId"] for u in updates if u.get("title") == "Inspect notes")


async def start(agent: RealAgent, client: RecordingClient, conn: Any, children: bool) -> tuple[Wire, str]:
    wire = Wire(conn)
    if children:  # the SDK's ClientCapabilities has no `subagents`: the same request, raw, with it
        params = {"protocolVersion": 1, "clientCapabilities": {"subagents": {}}}
        await conn._conn.send_request("initialize", params)
    else:
        await conn.initialize(protocol_version=1)
    new = await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])
    return wire, new.session_id


async def test_without_the_capability_the_subagent_is_nested_under_its_agent_call(agent: RealAgent) -> None:
    srv = serve(agent)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        wire, sid = await start(agent, client, conn, children=False)
        prompt = [acp.text_block("Look at the notes with a subagent.")]
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt), TURN_S)
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    assert [r["script"] for r in srv.requests if r["kind"] == "step"] == [None, MARKER, MARKER, None]
    updates = wire.updates(sid)
    assert {m["sessionId"] for m in wire.messages} == {sid}
    task = agent_call(updates)
    read = next(u for u in updates if u["sessionUpdate"] == "tool_call" and u["toolCallId"] != task)
    assert read["kind"] == "read" and read["_meta"]["claudeCode"]["parentToolUseId"] == task
    assert read["_meta"]["parent_tool_call"] == {"tool_call_id": task}
    statuses = {u["toolCallId"]: u["status"] for u in updates if u.get("status")}
    assert statuses == {task: "completed", read["toolCallId"]: "completed"}
    task_text = [c["content"]["text"] for u in updates if u.get("toolCallId") == task for c in u.get("content") or []]
    assert all(any(t in text for text in task_text) for t in SUB_TEXTS)  # the subagent's words, in its call
    said = text_of(updates)
    assert said == "I will ask a subagent.The subagent says the notes hold a greeting."
    assert not any(u["sessionUpdate"] == "subagent_update" for u in updates)


async def test_with_the_capability_the_subagent_is_a_child_session(agent: RealAgent) -> None:
    serve(agent)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        wire, sid = await start(agent, client, conn, children=True)
        prompt = [acp.text_block("Look at the notes with a subagent.")]
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt), TURN_S)
        live = list(wire.messages)
        await conn.load_session(cwd=str(agent.cwd), session_id=sid, mcp_servers=[])  # replayed from the event log
        replayed = wire.messages[len(live) :]
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    wire.messages = live
    parent = wire.updates(sid)
    task = agent_call(parent)
    child = child_session_id(sid, task)

    def tree(messages: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
        """The subagent's part: its announcements and states, and everything its child session was sent."""
        return [
            (m["sessionId"], m["update"]["sessionUpdate"], m["update"].get("state") or m["update"].get("content"))
            for m in messages
            if m["sessionId"] == child or m["update"]["sessionUpdate"] == "subagent_update"
        ]

    assert tree(replayed) == tree(live) and len(tree(live)) >= 6  # session/load nests it the same way
    assert {m["sessionId"] for m in wire.messages} == {sid, child}
    announced = [u for u in parent if u["sessionUpdate"] == "subagent_update"]
    assert announced[0]["sessionId"] == child and announced[0]["title"] == "Inspect notes"
    assert announced[0]["capabilities"] == {"cancel": True} and announced[0]["cwd"] == str(agent.cwd)
    assert announced[0]["state"] == {"state": "running"} and announced[-1]["state"] == {"state": "idle"}
    first_child = next(i for i, m in enumerate(wire.messages) if m["sessionId"] == child)
    first_announce = next(i for i, m in enumerate(wire.messages) if m["update"]["sessionUpdate"] == "subagent_update")
    assert first_announce < first_child
    own = wire.updates(child)
    assert text_of(own) == "".join(SUB_TEXTS)
    calls = [u for u in own if u["sessionUpdate"] == "tool_call"]
    assert [c["kind"] for c in calls] == ["read"]
    assert [u["status"] for u in own if u.get("toolCallId") == calls[0]["toolCallId"] and u.get("status")][-1] == "completed"  # fmt: skip
    assert not any(t in text_of(parent) for t in SUB_TEXTS)
    assert calls[0]["toolCallId"] not in {u.get("toolCallId") for u in parent}


async def test_cancelling_the_parent_mid_subagent_stops_it_and_the_turn_answers_cancelled(agent: RealAgent) -> None:
    srv = serve(agent, stall_subagent=True)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        wire, sid = await start(agent, client, conn, children=True)
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Use a subagent.")]))
        assert await asyncio.to_thread(srv.wait_for, lambda r: r["script"] == MARKER and r["events"] > 0, 60)
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 15)
        assert result.stop_reason == "cancelled", agent.log()[-3000:]
        sub = await asyncio.to_thread(srv.wait_for, lambda r: r["script"] == MARKER and r["outcome"] is not None, 10)
        assert sub is not None and sub["outcome"] == "disconnected"  # claude dropped the subagent's request
        await wire.until(lambda m: m["update"].get("state") == {"state": "idle"}, 10)
        parent = wire.updates(sid)
        task = agent_call(parent)
        assert [u["status"] for u in parent if u.get("toolCallId") == task and u.get("status")][-1] == "failed"
        assert len([r for r in srv.requests if r["kind"] == "step"]) == 2  # nothing asked after the cancel
    for _ in range(100):  # the bridge gone, no claude (and no subagent) left behind: within 10 s
        if not agent.processes():
            break
        await asyncio.sleep(0.1)
    assert agent.processes() == []


async def test_cancelling_the_child_stops_that_subagent_and_the_parent_carries_on(agent: RealAgent) -> None:
    srv = serve(agent, stall_subagent=True)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        wire, sid = await start(agent, client, conn, children=True)
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Use a subagent.")]))
        assert await asyncio.to_thread(srv.wait_for, lambda r: r["script"] == MARKER and r["events"] > 0, 60)
        await wire.until(lambda m: m["update"]["sessionUpdate"] == "subagent_update")
        child = next(m["update"]["sessionId"] for m in wire.messages if m["update"]["sessionUpdate"] == "subagent_update")  # fmt: skip
        await conn.cancel(session_id=child)
        result = await asyncio.wait_for(turn, 20)  # well before the stalled request would give up (60 s)
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        sub = await asyncio.to_thread(srv.wait_for, lambda r: r["script"] == MARKER and r["outcome"] is not None, 10)
        assert sub is not None and sub["outcome"] == "disconnected"  # the subagent's request was dropped: it stopped
        parent = wire.updates(sid)
        task = agent_call(parent)
        assert child == child_session_id(sid, task)
        assert [u["status"] for u in parent if u.get("toolCallId") == task and u.get("status")][-1] in ("failed", "completed")  # fmt: skip
        assert parent[-1] != {} and any(u.get("state") == {"state": "idle"} for u in parent)
        assert text_of(parent).endswith("The subagent says the notes hold a greeting.")  # the parent went on
        assert [r["script"] for r in srv.requests if r["kind"] == "step"][-1] is None


class SessionRecordingClient(RecordingClient):
    """Also notes which session each permission question came in."""

    asked_in: list[str]

    def __init__(self) -> None:
        super().__init__()
        self.asked_in = []

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        self.asked_in.append(session_id)
        return await super().request_permission(options, session_id, tool_call, **kwargs)


async def test_a_subagents_permission_question_is_asked_in_its_child_session(agent: RealAgent) -> None:
    scenario: dict[str, Any] = json.loads((SCENARIOS / "claude_subagent.json").read_text())
    bash = {"tool_use": {"name": "Bash", "input": {"command": "touch made.txt", "description": "Make a file"}}}
    scenario["scripts"][MARKER]["steps"][0]["blocks"][1] = bash
    agent.server = ModelServer(scenario, variables={"cwd": str(agent.cwd)}, delta_delay=0).start()
    client = SessionRecordingClient()
    async with agent.bridge(client) as (conn, _):
        wire, sid = await start(agent, client, conn, children=True)
        prompt = [acp.text_block("Make a file with a subagent.")]
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt), TURN_S)
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    child = child_session_id(sid, agent_call(wire.updates(sid)))
    assert client.asked_in == [child] and (agent.cwd / "made.txt").exists()
    (call,) = [u for u in wire.updates(child) if u["sessionUpdate"] == "tool_call"]
    assert call["kind"] == "execute" and client.permissions[0][0].tool_call_id == call["toolCallId"]

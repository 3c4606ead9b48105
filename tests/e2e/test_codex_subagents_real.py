"""A codex subagent (multi-agent v2 child thread) through acp-mux, on the real pinned codex 0.169.0 and the SDK client.

codex offers its ``collaboration`` tools only when the person turns them on: here the codex arguments after ``--``
(``-c features.multi_agent_v2=true``, the same key a person puts in codex's ``config.toml``). The scripted model
(``tests/fakes/scenarios/codex_subagent.json``) makes the parent call ``collaboration.spawn_agent`` then
``wait_agent``; the subagent's requests carry its task (an ``agent_message`` item with the marker), so the
sub-script answers them: a text, ``cat notes.txt`` (codex asks first in acp-mux's ``ask`` mode), a final text.
The same events and the same ACP shapes as claude's subagents (``tests/e2e/test_subagents_real.py``).
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
from tests.e2e.test_subagents_real import SessionRecordingClient, start, text_of
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

MARKER = "[[subagent:inspect]]"
SUB_TEXTS = ("Subagent here.", "The notes hold hello.")
TURN_S = 90
MULTI_AGENT = ("--", "-c", "features.multi_agent_v2=true")


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent("codex", require_cli("codex"), tmp_path, extra_args=MULTI_AGENT)
    (real.cwd / "notes.txt").write_text("hello\n")
    yield real
    real.close()


def serve(agent: RealAgent, *, stall_subagent: bool = False) -> ModelServer:
    """The subagent scenario; ``stall_subagent``: the subagent's first model request never answers."""
    scenario: dict[str, Any] = json.loads((SCENARIOS / "codex_subagent.json").read_text())
    if stall_subagent:
        scenario["scripts"][MARKER]["steps"][0] = {"error": "stall"}
        scenario["steps"][1]["blocks"][0]["tool_use"]["input"]["timeout_ms"] = 10_000  # codex's shortest wait
    agent.server = ModelServer(scenario, variables={"cwd": str(agent.cwd)}, delta_delay=0, stall_max=60)
    return agent.server.start()


def spawn_call(updates: list[dict[str, Any]]) -> str:
    return next(u["toolCallId"] for u in updates if u.get("title") == "Subagent inspect")


async def test_without_the_capability_the_subagent_is_nested_under_its_spawn_call(agent: RealAgent) -> None:
    srv = serve(agent)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        wire, sid = await start(agent, client, conn, children=False)
        prompt = [acp.text_block("Look at the notes with a subagent.")]
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt), TURN_S)
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    assert MARKER in [r["script"] for r in srv.requests if r["kind"] == "step"]
    updates = wire.updates(sid)
    assert {m["sessionId"] for m in wire.messages} == {sid}
    spawn = spawn_call(updates)
    cat = next(u for u in updates if u["sessionUpdate"] == "tool_call" and u["kind"] == "execute")
    assert cat["_meta"]["parent_tool_call"] == {"tool_call_id": spawn}
    statuses = {u["toolCallId"]: u["status"] for u in updates if u.get("status") and u.get("toolCallId") in (spawn, cat["toolCallId"])}  # fmt: skip
    assert statuses == {spawn: "completed", cat["toolCallId"]: "completed"}
    spawn_text = [c["content"]["text"] for u in updates if u.get("toolCallId") == spawn for c in u.get("content") or []]
    assert all(any(t in text for text in spawn_text) for t in SUB_TEXTS)  # the subagent's words, in its call
    assert text_of(updates) == "Spawning.Parent done."
    assert not any(u["sessionUpdate"] == "subagent_update" for u in updates)


async def test_with_the_capability_the_subagent_is_a_child_session_asked_there(agent: RealAgent) -> None:
    serve(agent)
    client = SessionRecordingClient()
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
    child = child_session_id(sid, spawn_call(parent))

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
    assert announced[0]["sessionId"] == child and announced[0]["title"] == "inspect"
    assert announced[0]["capabilities"] == {"cancel": True}
    assert announced[0]["state"] == {"state": "running"} and announced[-1]["state"] == {"state": "idle"}
    first_child = next(i for i, m in enumerate(wire.messages) if m["sessionId"] == child)
    first_announce = next(i for i, m in enumerate(wire.messages) if m["update"]["sessionUpdate"] == "subagent_update")
    assert first_announce < first_child
    own = wire.updates(child)
    assert text_of(own) == "".join(SUB_TEXTS)
    (call,) = [u for u in own if u["sessionUpdate"] == "tool_call"]
    assert call["kind"] == "execute" and client.asked_in == [child]  # its question came in its own session
    assert not any(t in text_of(parent) for t in SUB_TEXTS) and text_of(parent) == "Spawning.Parent done."


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
        # the parent's wait returns when the child stops, or (codex 0.169.0: when the stop lands just before the wait
        # begins) at the wait's own 10 s timeout; either way well before the stalled request would give up (60 s)
        result = await asyncio.wait_for(turn, 30)
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        parent = wire.updates(sid)
        spawn = spawn_call(parent)
        assert child == child_session_id(sid, spawn)
        assert [u["status"] for u in parent if u.get("toolCallId") == spawn and u.get("status")][-1] == "failed"
        assert any(u.get("state") == {"state": "idle"} for u in parent)
        assert text_of(parent) == "Spawning.Parent done."  # the parent went on
        sub = await asyncio.to_thread(srv.wait_for, lambda r: r["script"] == MARKER and r["outcome"] is not None, 10)
        assert sub is not None and sub["outcome"] == "disconnected"  # the subagent's request was dropped: it stopped


async def test_cancelling_the_parent_mid_subagent_stops_it_and_the_turn_answers_cancelled(agent: RealAgent) -> None:
    srv = serve(agent, stall_subagent=True)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        wire, sid = await start(agent, client, conn, children=True)
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Use a subagent.")]))
        assert await asyncio.to_thread(srv.wait_for, lambda r: r["script"] == MARKER and r["events"] > 0, 60)
        await wire.until(lambda m: m["update"]["sessionUpdate"] == "subagent_update")
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 15)
        assert result.stop_reason == "cancelled", agent.log()[-3000:]
        sub = await asyncio.to_thread(srv.wait_for, lambda r: r["script"] == MARKER and r["outcome"] is not None, 10)
        assert sub is not None and sub["outcome"] == "disconnected"  # the subagent's own turn was interrupted too
        await wire.until(lambda m: m["update"].get("state") == {"state": "idle"}, 10)
        steps = len([r for r in srv.requests if r["kind"] == "step"])
        await asyncio.sleep(1)
        assert len([r for r in srv.requests if r["kind"] == "step"]) == steps  # nothing asked after the cancel

"""A codex subagent (multi-agent v2 child thread) through acp-mux, on the real pinned codex 0.169.0 and the SDK client.

codex offers its ``collaboration`` tools only when the person turns them on: here the codex arguments after ``--``
(``-c features.multi_agent_v2=true``, the same key a person puts in codex's ``config.toml``). The scripted model
(``tests/fakes/scenarios/codex_subagent.json``) makes the parent call ``collaboration.spawn_agent`` then
``wait_agent``; the subagent's requests carry its task (an ``agent_message`` item with the marker), so the
sub-script answers them: a text, ``cat notes.txt`` (codex asks first in acp-mux's ``ask`` mode), a final text.
The same events and the same ACP shapes as claude's subagents (``tests/e2e/test_subagents_real.py``), checked by
the same pieces (``tests/e2e/subagent_wire.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_mux.translation.child_sessions import child_session_id
from tests.e2e.harness import RealAgent, require_cli
from tests.e2e.subagent_wire import (
    MARKER,
    SessionRecordingClient,
    announced_child,
    assert_child_session,
    assert_nested,
    assert_subagent_dropped,
    call_titled,
    child_calls,
    last_status,
    live_and_replayed,
    scenario,
    serve,
    start,
    steps,
    text_of,
    turn_in_stalled_subagent,
    whole_turn,
)
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

SUB_TEXTS = ("Subagent here.", "The notes hold hello.")
SPAWN_TITLE = "Subagent inspect"
MULTI_AGENT = ("--", "-c", "features.multi_agent_v2=true")


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent("codex", require_cli("codex"), tmp_path, extra_args=MULTI_AGENT)
    (real.cwd / "notes.txt").write_text("hello\n")
    yield real
    real.close()


def serve_codex(agent: RealAgent, *, stall_subagent: bool = False) -> ModelServer:
    """The codex subagent scenario; ``stall_subagent``: the subagent's first model request never answers, and the
    parent waits for it codex's shortest time."""
    script = scenario("codex_subagent")
    if stall_subagent:
        script["steps"][1]["blocks"][0]["tool_use"]["input"]["timeout_ms"] = 10_000  # codex's shortest wait
    return serve(agent, script, stall_subagent=stall_subagent)


async def test_without_the_capability_the_subagent_is_nested_under_its_spawn_call(agent: RealAgent) -> None:
    srv = serve_codex(agent)
    async with agent.bridge(RecordingClient()) as (conn, _):
        wire, sid = await start(agent, conn, children=False)
        result = await whole_turn(conn, sid, "Look at the notes with a subagent.")
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    assert MARKER in steps(srv)
    updates = wire.updates(sid)
    spawn = call_titled(updates, SPAWN_TITLE)
    assert_nested(wire, sid, spawn, SUB_TEXTS)
    cat = next(u for u in updates if u["sessionUpdate"] == "tool_call" and u["kind"] == "execute")
    assert cat["_meta"]["parent_tool_call"] == {"tool_call_id": spawn}
    statuses = {u["toolCallId"]: u["status"] for u in updates if u.get("status") and u.get("toolCallId") in (spawn, cat["toolCallId"])}  # fmt: skip
    assert statuses == {spawn: "completed", cat["toolCallId"]: "completed"}
    assert text_of(updates) == "Spawning.Parent done."


async def test_with_the_capability_the_subagent_is_a_child_session_asked_there(agent: RealAgent) -> None:
    serve_codex(agent)
    client = SessionRecordingClient()
    async with agent.bridge(client) as (conn, _):
        wire, sid = await start(agent, conn, children=True)
        result, replayed = await live_and_replayed(agent, conn, wire, sid, "Look at the notes with a subagent.")
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    parent = wire.updates(sid)
    child = assert_child_session(wire, replayed, sid, call_titled(parent, SPAWN_TITLE), "inspect")
    (call,) = child_calls(wire, sid, child, SUB_TEXTS)
    assert call["kind"] == "execute" and client.asked_in == [child]  # its question came in its own session
    assert text_of(parent) == "Spawning.Parent done."


async def test_cancelling_the_child_stops_that_subagent_and_the_parent_carries_on(agent: RealAgent) -> None:
    srv = serve_codex(agent, stall_subagent=True)
    async with agent.bridge(RecordingClient()) as (conn, _):
        wire, sid = await start(agent, conn, children=True)
        turn = await turn_in_stalled_subagent(conn, srv, sid)
        child = await announced_child(wire)
        await conn.cancel(session_id=child)
        # the parent's wait returns when the child stops, or (codex 0.169.0: when the stop lands just before the wait
        # begins) at the wait's own 10 s timeout; either way well before the stalled request would give up (60 s)
        result = await asyncio.wait_for(turn, 30)
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        parent = wire.updates(sid)
        spawn = call_titled(parent, SPAWN_TITLE)
        assert child == child_session_id(sid, spawn)
        assert last_status(parent, spawn) == "failed"
        assert any(u.get("state") == {"state": "idle"} for u in parent)
        assert text_of(parent) == "Spawning.Parent done."  # the parent went on
        await assert_subagent_dropped(srv)  # the subagent's request was dropped: it stopped


async def test_cancelling_the_parent_mid_subagent_stops_it_and_the_turn_answers_cancelled(agent: RealAgent) -> None:
    srv = serve_codex(agent, stall_subagent=True)
    async with agent.bridge(RecordingClient()) as (conn, _):
        wire, sid = await start(agent, conn, children=True)
        turn = await turn_in_stalled_subagent(conn, srv, sid)
        await announced_child(wire)
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 15)
        assert result.stop_reason == "cancelled", agent.log()[-3000:]
        await assert_subagent_dropped(srv)  # the subagent's own turn was interrupted too
        await wire.until(lambda m: m["update"].get("state") == {"state": "idle"}, 10)
        asked = len(steps(srv))
        await asyncio.sleep(1)
        assert len(steps(srv)) == asked  # nothing asked after the cancel

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

from tests.e2e.harness import RealAgent, require_cli
from tests.e2e import subagent_wire as sw
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
    script = sw.scenario("codex_subagent")
    if stall_subagent:
        script["steps"][1]["blocks"][0]["tool_use"]["input"]["timeout_ms"] = 10_000  # codex's shortest wait
    return sw.serve(agent, script, stall_subagent=stall_subagent)


async def test_without_the_capability_the_subagent_is_nested_under_its_spawn_call(agent: RealAgent) -> None:
    srv = serve_codex(agent)
    wire, sid, _ = await sw.one_turn(agent, "Look at the notes with a subagent.", children=False)
    assert sw.MARKER in sw.steps(srv)
    updates = wire.updates(sid)
    spawn = sw.call_titled(updates, SPAWN_TITLE)
    sw.assert_nested(wire, sid, spawn, SUB_TEXTS)
    cat = next(u for u in updates if u["sessionUpdate"] == "tool_call" and u["kind"] == "execute")
    assert cat["_meta"]["parent_tool_call"] == {"tool_call_id": spawn}
    statuses = {u["toolCallId"]: u["status"] for u in updates if u.get("status") and u.get("toolCallId") in (spawn, cat["toolCallId"])}  # fmt: skip
    assert statuses == {spawn: "completed", cat["toolCallId"]: "completed"}
    assert sw.text_of(updates) == "Spawning.Parent done."


async def test_with_the_capability_the_subagent_is_a_child_session_asked_there(agent: RealAgent) -> None:
    serve_codex(agent)
    client = sw.SessionRecordingClient()
    wire, sid, replayed = await sw.one_turn(
        agent, "Look at the notes with a subagent.", children=True, client=client, replay=True
    )
    parent = wire.updates(sid)
    child = sw.assert_child_session(wire, replayed, sid, sw.call_titled(parent, SPAWN_TITLE), "inspect")
    (call,) = sw.child_calls(wire, sid, child, SUB_TEXTS)
    assert call["kind"] == "execute" and client.asked_in == [child]  # its question came in its own session
    assert sw.text_of(parent) == "Spawning.Parent done."


async def test_cancelling_the_child_stops_that_subagent_and_the_parent_carries_on(agent: RealAgent) -> None:
    srv = serve_codex(agent, stall_subagent=True)
    async with agent.bridge(RecordingClient()) as (conn, _):
        # the parent's wait returns when the child stops, or (codex 0.169.0: when the stop lands just before the wait
        # begins) at the wait's own 10 s timeout; either way well before the stalled request would give up (60 s)
        parent, spawn = await sw.child_cancelled_mid_subagent(agent, conn, srv, SPAWN_TITLE, within=30)
        assert sw.last_status(parent, spawn) == "failed"
        assert sw.text_of(parent) == "Spawning.Parent done."  # the parent went on


async def test_cancelling_the_parent_mid_subagent_stops_it_and_the_turn_answers_cancelled(agent: RealAgent) -> None:
    srv = serve_codex(agent, stall_subagent=True)
    async with agent.bridge(RecordingClient()) as (conn, _):
        await sw.parent_cancelled_mid_subagent(agent, conn, srv)
        asked = len(sw.steps(srv))
        await asyncio.sleep(1)
        assert len(sw.steps(srv)) == asked  # nothing asked after the cancel

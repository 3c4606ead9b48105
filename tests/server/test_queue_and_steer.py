"""A prompt sent while one runs is queued (never refused) and answered when its own turn ends; ``_session/steering``
puts a message into the running turn — through the real bridge with the bundled scripted agent (``slow`` streams
400 words and, steered, wraps up saying what it was steered by), and on the live session with an in-memory agent
that cannot steer."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import acp
import pytest

from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.server.wire.rpc import RpcError
from tests.server.client import RecordingClient, answer_order, bridge, reopen, send_prompt, steer
from tests.server.test_prompt_interleavings import FakeAgentProcess, make_world

pytestmark = pytest.mark.asyncio


async def open_session(conn: Any, cwd: str) -> str:
    await conn.initialize(protocol_version=1)
    return str((await conn.new_session(cwd=cwd, mcp_servers=[])).session_id)


async def words_seen(client: RecordingClient, word: str = "word3 ") -> None:
    while word not in client.text():
        await asyncio.sleep(0.01)


@asynccontextmanager
async def slow_turn(
    client: RecordingClient, work: dict[str, str]
) -> AsyncIterator[tuple[Any, str, asyncio.Future[Any]]]:
    """A bridge on the demo agent, a session, and its ``slow`` turn (400 words) once the first words are shown: a
    turn surely running. The connection, the session, and the turn's answer to come."""
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await open_session(conn, work["cwd"])
        turn = send_prompt(conn, sid, "slow please")
        await asyncio.wait_for(words_seen(client), 20)
        yield conn, sid, turn


async def test_initialize_advertises_queueing_and_steering_as_the_reference_adapters_do(work):
    async with bridge(RecordingClient(), "--agent", "demo", **work) as (conn, _):
        init = await conn.initialize(protocol_version=1)
    assert init.agent_capabilities.field_meta == {
        "claudeCode": {"promptQueueing": True},
        "acp-mux": {"promptQueueing": True},
    }
    assert init.field_meta == {"steering": {"supported": True}}  # the demo agent steers


async def test_prompts_sent_while_one_runs_are_queued_and_answered_in_order(work):
    client = RecordingClient()
    async with slow_turn(client, work) as (conn, sid, first):
        queued = [send_prompt(conn, sid, f"queued {i}") for i in range(2)]
        answered = answer_order(first=first, q0=queued[0], q1=queued[1])
        results = await asyncio.wait_for(asyncio.gather(first, *queued), 30)
        assert [r.stop_reason for r in results] == ["end_turn"] * 3
        assert answered == ["first", "q0", "q1"]
        text = client.text()
        assert text.index("word399") < text.index("You said: queued 0") < text.index("You said: queued 1")
        # the log keeps each queued prompt as its own turn, in the order they ran
        replay = RecordingClient()
    async with bridge(replay, "--agent", "demo", **work) as (conn, _):
        await reopen(conn, sid, work["cwd"])
    assert [u.content.text for u in replay.of("user_message_chunk")] == ["slow please", "queued 0", "queued 1"]
    from acp_mux.server.records.store import SessionStore

    logged = [e["data"] for e in SessionStore(Path(work["state_dir"])).envelopes(sid) if e["type"] == "user.message"]
    assert [m.get("queued", False) for m in logged] == [False, True, True]  # the log says which ones waited


async def test_a_cancel_ends_the_turn_and_withdraws_every_queued_prompt(work):
    client = RecordingClient()
    async with slow_turn(client, work) as (conn, sid, first):
        queued = [send_prompt(conn, sid, f"queued {i}") for i in range(2)]
        await asyncio.sleep(0.1)
        await conn.cancel(session_id=sid)
        results = await asyncio.wait_for(asyncio.gather(first, *queued), 20)
        assert [r.stop_reason for r in results] == ["cancelled"] * 3
        assert "You said: queued" not in client.text()
        again = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hello")]), 20)
        assert again.stop_reason == "end_turn" and "You said: hello" in client.text()


async def test_closing_the_session_answers_the_running_turn_and_every_queued_prompt(work):
    client = RecordingClient()
    async with slow_turn(client, work) as (conn, sid, first):
        queued = send_prompt(conn, sid, "queued")
        await asyncio.sleep(0.1)
        await asyncio.wait_for(conn.close_session(session_id=sid), 20)
        results = await asyncio.wait_for(asyncio.gather(first, queued), 20)
        assert [r.stop_reason for r in results] == ["cancelled", "cancelled"]
        assert "You said: queued" not in client.text()


async def test_a_steer_reaches_the_running_turn_and_replays_where_it_landed(work):
    client = RecordingClient()
    async with slow_turn(client, work) as (conn, sid, turn):
        assert await steer(conn, sid, "wrap it up") == {"outcome": "injected"}
        result = await asyncio.wait_for(turn, 20)
        assert result.stop_reason == "end_turn"
        assert "Steered by: wrap it up" in client.text() and "word399" not in client.text()
    replay = RecordingClient()
    async with bridge(replay, "--agent", "demo", **work) as (conn, _):
        await reopen(conn, sid, work["cwd"])
    kinds = [(u.session_update, u.content.text) for u in replay.updates if u.session_update.endswith("_chunk")]
    steered_at = kinds.index(("user_message_chunk", "wrap it up"))
    assert kinds[0] == ("user_message_chunk", "slow please")
    assert any(t.startswith("word") for _, t in kinds[1:steered_at])  # in the turn, after what came before it
    assert "Steered by" in "".join(t for _, t in kinds[steered_at:])


async def test_a_steer_with_no_turn_running_starts_one_or_is_left_to_the_editor(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await open_session(conn, work["cwd"])
        kept = await steer(conn, sid, "not now", idleBehavior="promptRequired")
        assert kept == {"outcome": "promptRequired", "reason": "noRunningTurn"}
        assert await steer(conn, sid, "as a turn") == {"outcome": "startedNewTurn"}
        for _ in range(400):
            if "You said: as a turn" in client.text():
                break
            await asyncio.sleep(0.02)
        assert "You said: as a turn" in client.text() and "not now" not in client.text()
        with pytest.raises(acp.RequestError) as bad:
            await steer(conn, sid, "x", idleBehavior="later")
        assert bad.value.code == -32602 and "idleBehavior" in str(bad.value)
        with pytest.raises(acp.RequestError) as empty:
            await conn._conn.send_request("_session/steering", {"sessionId": sid, "prompt": []})
        assert empty.value.code == -32602
        with pytest.raises(acp.RequestError) as unknown:
            await steer(conn, "nope", "x")
        assert unknown.value.code == -32002


async def test_an_agent_without_steering_says_so_during_its_turn() -> None:
    """The in-memory agent has no ``steer``: a steer while its turn runs is refused in words (a prompt would be
    queued instead); with no turn running it still starts one, like any prompt."""
    with tempfile.TemporaryDirectory() as tmp:
        world = make_world(Path(tmp))

        async def fake_spawn(spec: SpawnSpec) -> FakeAgentProcess:
            world.processes.append(FakeAgentProcess())
            return world.processes[-1]

        with mock.patch("acp_mux.core.run.handle.spawn", fake_spawn):
            session = world.session
            session.warm()
            for _ in range(5):
                await asyncio.sleep(0)
            world.processes[-1].open_session()
            turn = asyncio.ensure_future(session.prompt([{"type": "text", "text": "first"}]))
            for _ in range(20):
                await asyncio.sleep(0)
            assert session.turn_running
            with pytest.raises(RpcError) as refused:
                await session.steer([{"type": "text", "text": "steer me"}])
            assert "cannot take a message during its turn" in refused.value.message
            assert "send it as a prompt" in refused.value.message
            world.processes[-1].reply()
            assert (await asyncio.wait_for(turn, 5))["stopReason"] == "end_turn"
            assert world.handed == ["first"]
            await session.close()


async def test_a_steered_message_stays_in_its_turn_when_turns_are_handed_over() -> None:
    """A handover (agent switch, fork fallback, failover) counts turns from the replayed record: a message steered
    into a turn is part of that turn, not a turn of its own that would shift every later turn's agent."""
    from acp_mux.server.sessions.handoff import turns_from_record
    from acp_mux.server.records.replay import STEERED_META

    def chunk(kind: str, text: str, **extra: Any) -> dict[str, Any]:
        return {"sessionUpdate": kind, "content": {"type": "text", "text": text}, **extra}

    updates = [
        chunk("user_message_chunk", "first"),
        chunk("agent_message_chunk", "working"),
        chunk("user_message_chunk", "steer it", _meta=STEERED_META),
        chunk("agent_message_chunk", "steered"),
        chunk("user_message_chunk", "second"),
        chunk("agent_message_chunk", "done"),
    ]
    turns = turns_from_record(updates, ["claude", "codex"])
    assert [(t.agent, t.user, t.reply) for t in turns] == [
        ("claude", ["first", "steer it"], ["working", "steered"]),
        ("codex", ["second"], ["done"]),
    ]


async def test_a_switch_is_refused_while_prompts_are_queued_and_the_queue_stays_on_its_agent(tmp_path: Path) -> None:
    """A switch never lands between a turn and the prompts queued behind it: refused (saying why) while any is
    accepted, each queued prompt is answered by the agent it was sent to, and the switch works once they ended."""
    from tests.server.switching_client import current_agent, prompt, switch, switching_bridge

    client = RecordingClient()
    async with switching_bridge(client, tmp_path, ACP_MUX_DEMO_TEXT_DELAY="0.02") as (conn, _, sid):
        running = prompt(conn, sid, "please echo tok1 with some more words to stream slowly")
        await asyncio.wait_for(words_seen(client, "**Scripted alpha:**"), 20)
        queued = prompt(conn, sid, "please echo tok2")
        await asyncio.sleep(0.05)
        with pytest.raises(acp.RequestError) as refused:
            await asyncio.wait_for(switch(conn, sid, "beta"), 20)
        assert "a prompt is running" in str(refused.value)
        results = await asyncio.wait_for(asyncio.gather(running, queued), 30)
        assert [r.stop_reason for r in results] == ["end_turn", "end_turn"]
        markers = [u.content.text for u in client.of("agent_message_chunk") if u.content.text.startswith("**")]
        assert markers == ["**Scripted alpha:** ", "**Scripted alpha:** "]
        assert current_agent(await asyncio.wait_for(switch(conn, sid, "beta"), 20)) == "beta"

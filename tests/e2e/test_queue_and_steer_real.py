"""A prompt sent while one runs is queued and answered after it, never refused; and a message steered into the
running turn (``_session/steering``) reaches the agent's next model request — on the real CLIs, pinned, pointed at
the scripted model server, through acp-mux, driven by the SDK's client.

The slow turn is a shell command that sleeps a few seconds (``claude_slow_command`` / ``codex_slow_command``): the
steer is sent while it runs, so the model request after its output is the turn's next one and must carry the
steered text; the queued prompt's own request comes only after the turn ended, and carries both.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

STEERED = "STEERED-7f3a: stop after this command"
QUEUED = "QUEUED-91c2: and then say goodbye"
TIMEOUT = 90


def _agent(name: str, tmp_path: Path) -> RealAgent:
    return RealAgent(name, require_cli(name), tmp_path)


@pytest.fixture(params=["claude", "codex"])
def steerable(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    real = _agent(request.param, tmp_path)
    yield real
    real.close()


@pytest.fixture(params=["gemini"])
def acp_agent(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    real = _agent(request.param, tmp_path)
    yield real
    real.close()


def carrying(agent: RealAgent, text: str) -> list[int]:
    """The indexes of the model requests whose body holds ``text``."""
    assert agent.server is not None
    return [i for i, r in enumerate(agent.server.requests) if text in json.dumps(r.get("body"))]


async def steer(conn: Any, sid: str, text: str, **meta: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    if meta:
        params["_meta"] = {"steering": meta}
    answer: dict[str, Any] = await conn._conn.send_request("_session/steering", params)
    return answer


async def until(check: Any, what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def test_steering_reaches_the_running_turn_and_a_queued_prompt_runs_after_it(steerable: RealAgent) -> None:
    agent = steerable
    agent.serve(f"{agent.name}_slow_command", delta_delay=0)
    client = RecordingClient(choose=lambda options, call: "allow_once")
    async with agent.bridge(client) as (conn, _):
        init = await conn.initialize(protocol_version=1)
        assert (init.field_meta or {}).get("steering") == {"supported": True}
        assert (init.agent_capabilities.field_meta or {})["claudeCode"] == {"promptQueueing": True}
        sid = (await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])).session_id
        first = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Run the slow command.")]))
        await until(lambda: any(u.status == "in_progress" for u in client.of("tool_call_update")), "the command")
        assert await steer(conn, sid, STEERED) == {"outcome": "injected"}
        queued = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block(QUEUED)]))
        order: list[str] = []
        first.add_done_callback(lambda _f: order.append("first"))
        queued.add_done_callback(lambda _f: order.append("queued"))
        results = await asyncio.wait_for(asyncio.gather(first, queued), TIMEOUT)
        assert [r.stop_reason for r in results] == ["end_turn", "end_turn"], agent.log()[-3000:]
        assert order == ["first", "queued"]  # each answered when its own turn ended
    steered, asked = carrying(agent, STEERED), carrying(agent, QUEUED)
    assert steered and asked, (steered, asked)
    # the steer reached the running turn: the request right after the command's output carries it, and the
    # queued prompt came only after that turn
    assert steered[0] < asked[0], (steered, asked)
    assert agent.server is not None and agent.server.requests[steered[0]]["step"] == 1
    # the session's log replays the steer where it landed, and the queued prompt as its own turn (session/load)
    replay = RecordingClient()
    async with agent.bridge(replay) as (conn, _):
        await conn.initialize(protocol_version=1)
        await conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
    said = [u.content.text for u in replay.of("user_message_chunk")]
    assert said == ["Run the slow command.", STEERED, QUEUED], said


async def test_a_prompt_sent_while_one_runs_is_answered_after_it(acp_agent: RealAgent) -> None:
    agent = acp_agent
    agent.serve(f"{agent.name}_text", delta_delay=0.01)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        first = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Hello.")]))
        await until(lambda: "Line 005" in client.text(), "the first answer")
        queued = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block(QUEUED)]))
        order: list[str] = []
        first.add_done_callback(lambda _f: order.append("first"))
        queued.add_done_callback(lambda _f: order.append("queued"))
        results = await asyncio.wait_for(asyncio.gather(first, queued), TIMEOUT)
        assert [r.stop_reason for r in results] == ["end_turn", "end_turn"], agent.log()[-3000:]
        assert order == ["first", "queued"]
        assert client.text().count("Line 200") == 2  # each turn answered in full
    asked = carrying(agent, QUEUED)
    assert asked and all(carrying(agent, "Hello.")[0] < i for i in asked)


async def test_a_cancel_withdraws_the_queued_prompt_on_a_real_agent(steerable: RealAgent) -> None:
    agent = steerable
    agent.serve(f"{agent.name}_slow_command", delta_delay=0)
    client = RecordingClient(choose=lambda options, call: "allow_once")
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        first = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Run the slow command.")]))
        await until(lambda: any(u.status == "in_progress" for u in client.of("tool_call_update")), "the command")
        queued = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block(QUEUED)]))
        await asyncio.sleep(0.2)
        await conn.cancel(session_id=sid)
        results = await asyncio.wait_for(asyncio.gather(first, queued), TIMEOUT)
        assert [r.stop_reason for r in results] == ["cancelled", "cancelled"], agent.log()[-3000:]
        again = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Hi again.")]), TIMEOUT)
        assert again.stop_reason == "end_turn"
    assert carrying(agent, QUEUED) == []  # withdrawn: it never reached the agent


async def test_a_steer_during_claudes_last_step_is_answered_within_the_same_turn(tmp_path: Path) -> None:
    """Steered while claude streams its final text, the message is read only after that step's ``result``: claude
    then runs one more cycle for it. That cycle belongs to the steered turn (the ``result`` that names the steer's
    uuid ends it), not to the prompt queued behind it, which gets its own turn and answer."""
    agent = _agent("claude", tmp_path)
    try:
        agent.serve("claude_text", delta_delay=0.01)
        client = RecordingClient()
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            first = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Hello.")]))
            await until(lambda: "Line 010" in client.text(), "the answer's first lines")
            assert await steer(conn, sid, STEERED) == {"outcome": "injected"}
            queued = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block(QUEUED)]))
            seen_at_first_answer: list[str] = []
            first.add_done_callback(lambda _f: seen_at_first_answer.append(client.text()))
            results = await asyncio.wait_for(asyncio.gather(first, queued), TIMEOUT)
            assert [r.stop_reason for r in results] == ["end_turn", "end_turn"], agent.log()[-3000:]
            assert seen_at_first_answer[0].count("Line 200") == 2  # the step, then the steer's own cycle
            assert client.text().count("Line 200") == 3  # then the queued prompt's turn
    finally:
        agent.close()
    steered, asked = carrying(agent, STEERED), carrying(agent, QUEUED)
    assert steered and asked and steered[0] < asked[0], (steered, asked)


async def test_pi_takes_a_steer_into_its_running_turn(tmp_path: Path) -> None:
    """pi's RPC ``steer``: the message reaches the running agent loop, whose next model request carries it, and the
    queued prompt after it is its own turn."""
    agent = _agent("pi", tmp_path)
    try:
        agent.serve("pi_text", delta_delay=0.01)
        client = RecordingClient()
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            first = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Hello.")]))
            await until(lambda: "Line 010" in client.text(), "the answer's first lines")
            assert await steer(conn, sid, STEERED) == {"outcome": "injected"}
            queued = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block(QUEUED)]))
            seen_at_first_answer: list[str] = []
            first.add_done_callback(lambda _f: seen_at_first_answer.append(client.text()))
            results = await asyncio.wait_for(asyncio.gather(first, queued), TIMEOUT)
            assert [r.stop_reason for r in results] == ["end_turn", "end_turn"], agent.log()[-3000:]
            assert seen_at_first_answer[0].count("Line 200") == 2  # pi answered the steer within the same turn
    finally:
        agent.close()
    steered, asked = carrying(agent, STEERED), carrying(agent, QUEUED)
    assert steered and asked and steered[0] < asked[0], (steered, asked)

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
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient, answer_order, reopen, send_prompt, steer

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

STEERED = "STEERED-7f3a: stop after this command"
QUEUED = "QUEUED-91c2: and then say goodbye"
TIMEOUT = 90


@pytest.fixture
def agent(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    """The real CLI each test names (``parametrize("agent", [...], indirect=True)``), its model server stopped after."""
    real = RealAgent(request.param, require_cli(request.param), tmp_path)
    yield real
    real.close()


def carrying(agent: RealAgent, text: str) -> list[int]:
    """The indexes of the model requests whose body holds ``text``."""
    assert agent.server is not None
    return [i for i, r in enumerate(agent.server.requests) if text in json.dumps(r.get("body"))]


async def until(check: Any, what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def slow_command_turn(conn: Any, client: RecordingClient, sid: str) -> asyncio.Future[Any]:
    """The turn whose shell command sleeps a few seconds, once the command runs: a turn surely still running."""
    first = send_prompt(conn, sid, "Run the slow command.")
    await until(lambda: any(u.status == "in_progress" for u in client.of("tool_call_update")), "the command")
    return first


@asynccontextmanager
async def long_answer_running(
    agent: RealAgent, shown: str
) -> AsyncIterator[tuple[Any, RecordingClient, str, asyncio.Future[Any]]]:
    """The agent answering "Hello." with 200 numbered lines (its ``_text`` scenario), once ``shown`` is on screen:
    the connection, the client, the session, and the prompt's answer to come."""
    agent.serve(f"{agent.name}_text", delta_delay=0.01)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        first = send_prompt(conn, sid, "Hello.")
        await until(lambda: shown in client.text(), f"{shown} in the answer")
        yield conn, client, sid, first


@pytest.mark.parametrize("agent", ["claude", "codex"], indirect=True)
async def test_steering_reaches_the_running_turn_and_a_queued_prompt_runs_after_it(agent: RealAgent) -> None:
    agent.serve(f"{agent.name}_slow_command", delta_delay=0)
    client = RecordingClient(choose=lambda options, call: "allow_once")
    async with agent.bridge(client) as (conn, _):
        init = await conn.initialize(protocol_version=1)
        assert (init.field_meta or {}).get("steering") == {"supported": True}
        assert (init.agent_capabilities.field_meta or {})["claudeCode"] == {"promptQueueing": True}
        sid = (await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])).session_id
        first = await slow_command_turn(conn, client, sid)
        assert await steer(conn, sid, STEERED) == {"outcome": "injected"}
        queued = send_prompt(conn, sid, QUEUED)
        order = answer_order(first=first, queued=queued)
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
        await reopen(conn, sid, str(agent.cwd))
    said = [u.content.text for u in replay.of("user_message_chunk")]
    assert said == ["Run the slow command.", STEERED, QUEUED], said


@pytest.mark.parametrize("agent", ["gemini"], indirect=True)
async def test_a_prompt_sent_while_one_runs_is_answered_after_it(agent: RealAgent) -> None:
    async with long_answer_running(agent, "Line 005") as (conn, client, sid, first):
        queued = send_prompt(conn, sid, QUEUED)
        order = answer_order(first=first, queued=queued)
        results = await asyncio.wait_for(asyncio.gather(first, queued), TIMEOUT)
        assert [r.stop_reason for r in results] == ["end_turn", "end_turn"], agent.log()[-3000:]
        assert order == ["first", "queued"]
        assert client.text().count("Line 200") == 2  # each turn answered in full
    asked = carrying(agent, QUEUED)
    assert asked and all(carrying(agent, "Hello.")[0] < i for i in asked)


@pytest.mark.parametrize("agent", ["claude", "codex"], indirect=True)
async def test_a_cancel_withdraws_the_queued_prompt_on_a_real_agent(agent: RealAgent) -> None:
    agent.serve(f"{agent.name}_slow_command", delta_delay=0)
    client = RecordingClient(choose=lambda options, call: "allow_once")
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        first = await slow_command_turn(conn, client, sid)
        queued = send_prompt(conn, sid, QUEUED)
        await asyncio.sleep(0.2)
        await conn.cancel(session_id=sid)
        results = await asyncio.wait_for(asyncio.gather(first, queued), TIMEOUT)
        assert [r.stop_reason for r in results] == ["cancelled", "cancelled"], agent.log()[-3000:]
        again = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Hi again.")]), TIMEOUT)
        assert again.stop_reason == "end_turn"
    assert carrying(agent, QUEUED) == []  # withdrawn: it never reached the agent


@pytest.mark.parametrize("agent", ["claude", "pi"], indirect=True)
async def test_a_steer_during_the_last_step_is_answered_within_the_same_turn(agent: RealAgent) -> None:
    """Steered while the agent streams its final text, the message still belongs to the running turn, and the
    prompt queued behind it gets its own turn and answer. claude reads it only after that step's ``result`` and
    then runs one more cycle for it: that cycle belongs to the steered turn (the ``result`` that names the steer's
    uuid ends it), not to the queued prompt. pi's RPC ``steer`` reaches the running agent loop, whose next model
    request carries it."""
    async with long_answer_running(agent, "Line 010") as (conn, client, sid, first):
        assert await steer(conn, sid, STEERED) == {"outcome": "injected"}
        queued = send_prompt(conn, sid, QUEUED)
        seen_at_first_answer: list[str] = []
        first.add_done_callback(lambda _f: seen_at_first_answer.append(client.text()))
        results = await asyncio.wait_for(asyncio.gather(first, queued), TIMEOUT)
        assert [r.stop_reason for r in results] == ["end_turn", "end_turn"], agent.log()[-3000:]
        assert seen_at_first_answer[0].count("Line 200") == 2  # the step, then the steer's own cycle
        assert client.text().count("Line 200") == 3  # then the queued prompt's turn
    steered, asked = carrying(agent, STEERED), carrying(agent, QUEUED)
    assert steered and asked and steered[0] < asked[0], (steered, asked)

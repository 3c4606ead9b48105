"""A prompt the editor sends the moment ``session/new`` answers, before the ACP agent has opened its own session
(the bridge warms the agent at session/new; its ``initialize`` and ``session/new`` are still under way): the run holds
it (acp_mux/core/run/waiting_prompts.py) and it goes out right after the agent's session opens, answered in full. A cancel
sent right behind it answers ``cancelled`` without the agent being signalled, and the session goes on.

Also measured (printed with ``-s``): the seconds from the prompt to its first words, right after session/new and
again on a warm session: waiting for the agent's own session adds its handshake, and nothing more.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

FIRST = "Line 001"


@pytest.fixture(params=["gemini", "opencode"])
def agent(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent(request.param, require_cli(request.param), tmp_path)
    yield real
    real.close()


async def _first_words(client: RecordingClient, since: int) -> float:
    """Wait until the agent's text after update ``since`` holds the scenario's first line; when that was."""
    while FIRST not in "".join(
        u.content.text for u in client.updates[since:] if u.session_update == "agent_message_chunk"
    ):
        await asyncio.sleep(0.005)
    return time.monotonic()


async def test_a_prompt_right_after_session_new_runs_when_the_agent_is_ready(agent: RealAgent) -> None:
    agent.serve(f"{agent.name}_text", delta_delay=0)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])).session_id
        sent = time.monotonic()
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Hello.")]))
        cold = await asyncio.wait_for(_first_words(client, 0), 90) - sent
        first = await asyncio.wait_for(turn, 90)
        assert first.stop_reason == "end_turn", agent.log()[-2000:]
        assert "Line 200" in client.text()  # the whole answer, once
        assert client.text().count(FIRST) == 1
        before = len(client.updates)
        sent = time.monotonic()
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Again.")]))
        warm = await asyncio.wait_for(_first_words(client, before), 90) - sent
        assert (await asyncio.wait_for(turn, 90)).stop_reason == "end_turn"
        print(
            f"\n{agent.name}: first words {cold:.2f} s after a prompt sent right after session/new, {warm:.2f} s warm"
        )


async def test_a_cancel_of_a_prompt_waiting_for_the_agents_session_answers_cancelled(agent: RealAgent) -> None:
    agent.serve(f"{agent.name}_text", delta_delay=0)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Hello.")]))
        await asyncio.sleep(0)  # the prompt is on the wire first
        asked = time.monotonic()
        await conn.cancel(session_id=sid)
        # the withdrawn prompt's turn ends once the agent's session opens (its events follow the session's start,
        # spec 000): seconds alone, more on a loaded machine, and the agent is never stopped for being slow
        result = await asyncio.wait_for(turn, 30)
        took = time.monotonic() - asked
        assert result.stop_reason == "cancelled", agent.log()[-2000:]
        assert FIRST not in client.text()  # the withdrawn prompt never reached the agent
        assert "ignored the interrupt" not in agent.log()  # nothing ran that needed stopping
        after = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Hello again.")]), 90)
        assert after.stop_reason == "end_turn" and "Line 200" in client.text()
        print(f"\n{agent.name}: a cancel of a prompt waiting for the agent's session answered in {took:.2f} s")

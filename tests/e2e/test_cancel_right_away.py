"""A cancel that follows the prompt at once (before the agent has streamed anything) still ends that turn
``cancelled``: editors send session/cancel as soon as the person presses stop, whatever the agent is doing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]


@pytest.fixture(params=["claude", "gemini", "pi"])
def agent(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent(request.param, require_cli(request.param), tmp_path)
    yield real
    real.close()


@pytest.mark.parametrize("after", ["a turn", "a mode switch"])
async def test_a_cancel_right_after_the_prompt_cancels_it(agent: RealAgent, after: str) -> None:
    agent.serve(f"{agent.name}_text", delta_delay=0)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        await conn.initialize(protocol_version=1)
        new = await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])
        sid = new.session_id
        first = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Hello.")]), 90)
        assert first.stop_reason == "end_turn"  # the agent is running now, between turns
        if after == "a mode switch" and new.modes and len(new.modes.available_modes) > 1:
            start = new.modes.current_mode_id
            other = next(m.id for m in new.modes.available_modes if m.id != start)
            await conn.set_session_mode(session_id=sid, mode_id=other)
            await conn.set_session_mode(session_id=sid, mode_id=start)
        agent.rescript(f"{agent.name}_text", delta_delay=0.1)  # 20 s of streaming if nobody cancels
        before = len(client.updates)
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Tell me a long story.")]))
        await asyncio.sleep(0)  # the prompt is on the wire first
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 8)
        assert result.stop_reason == "cancelled", agent.log()[-2000:]
        later = "".join(u.content.text for u in client.updates[before:] if u.session_update == "agent_message_chunk")
        assert "Line 200" not in later

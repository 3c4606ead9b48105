"""What real ACP agents send reaches the editor without loss, through acp-mux and the SDK's client side.

omp names its messages (``messageId`` on every chunk) and reports its session's ``updatedAt`` and its own context
window (128,000); copilot titles its sessions. The pinned CLIs talk only to the scripted model server.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Iterator

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

TURN_TIMEOUT = 90
# Longer than the 80 characters acp-mux titles a session with, so the agent's own title is told from acp-mux's.
LONG_PROMPT = (
    "Remember the word pelican, and while you are at it please also keep in mind that this sentence is long on "
    "purpose so that titles differ."
)


def real(name: str, tmp_path: Path) -> Iterator[RealAgent]:
    agent = RealAgent(name, require_cli(name), tmp_path)
    yield agent
    agent.close()


@pytest.fixture
def omp(tmp_path: Path) -> Iterator[RealAgent]:
    yield from real("omp", tmp_path)


@pytest.fixture
def copilot(tmp_path: Path) -> Iterator[RealAgent]:
    yield from real("copilot", tmp_path)


async def prompt(conn: Any, sid: str, text: str) -> Any:
    return await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), TURN_TIMEOUT)


async def test_omp_message_ids_session_time_and_context_window_reach_the_editor(omp: RealAgent) -> None:
    omp.serve("omp_text", delta_delay=0)
    client = RecordingClient()
    async with omp.bridge(client) as (conn, _):
        sid = await omp.session(conn)
        assert (await prompt(conn, sid, "Remember the word pelican.")).stop_reason == "end_turn"
        await asyncio.sleep(0.3)  # updates omp sends right after its answer
    chunks = client.of("agent_message_chunk")
    assert "Line 200" in client.text()
    assert chunks and all(c.message_id for c in chunks), [c.message_id for c in chunks][:5]  # omp names them all
    assert len({c.message_id for c in chunks}) < len(chunks)  # one message's chunks share its id
    infos = client.of("session_info_update")
    assert any(u.updated_at for u in infos), infos  # omp's own time of last activity
    usage = client.of("usage_update")
    assert usage and {u.size for u in usage} == {128000}, usage  # omp's window, and no estimate of acp-mux's


async def test_copilots_own_title_names_the_session(copilot: RealAgent) -> None:
    copilot.serve("copilot_text", delta_delay=0)
    client = RecordingClient()
    async with copilot.bridge(client) as (conn, _):
        sid = await copilot.session(conn)
        assert (await prompt(conn, sid, LONG_PROMPT)).stop_reason == "end_turn"
        await asyncio.sleep(0.5)
        infos = [u for u in client.of("session_info_update") if u.title is not None]
        derived = " ".join(LONG_PROMPT.split())[:80]
        assert infos and infos[0].title == derived  # acp-mux's, at once
        own = [u for u in infos if u.updated_at is not None]  # copilot's carry its time; acp-mux's do not
        assert own, [u.title for u in infos]
        assert infos[-1].title == own[-1].title != derived  # the agent's came last and is not acp-mux's
        listed = await conn.list_sessions(cwd=str(copilot.cwd))
        assert [s.title for s in listed.sessions] == [own[-1].title]  # and the store keeps it

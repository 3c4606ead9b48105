"""Parity with the agents' own reference adapters on message ids and usage: the same scripted scenario runs through
claude-agent-acp 0.101 (driving the pinned claude) or codex-acp 2.6 (driving the pinned codex) and through acp-mux,
each with the SDK's client. The prompt response's ``usage`` is the same, the context used the last
``usage_update`` reports is the same, and the messages are the same messages: for codex the very same ids (both
name a message by codex's item id), for claude ids of the same kind (the API ``message.id``, which the model server
numbers per request: claude-agent-acp's claude makes a helper request of its own first, so the numbers differ)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.clis import cli_env, runtime_bin_dir
from tests.e2e.harness import RealAgent, require_cli
from tests.e2e.test_message_ids_usage_real import CHUNKS, named_messages
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

REFERENCE = {"claude": "claude-agent-acp", "codex": "codex-acp"}
PROMPT = "Write notes.txt"


async def through_reference(agent: RealAgent) -> tuple[Any, RecordingClient]:
    """One prompt through the agent's reference adapter, on the same model server and a HOME of its own."""
    reference = REFERENCE[agent.name]
    assert agent.server is not None
    home = agent.root / "reference-home"
    env = cli_env(agent.name, agent.server.url, home, cwd=agent.cwd)
    runtime = runtime_bin_dir(reference)
    if runtime is not None:
        env["PATH"] = f"{runtime}:{env.get('PATH', os.environ.get('PATH', ''))}"
    env["CLAUDE_CODE_EXECUTABLE" if agent.name == "claude" else "CODEX_PATH"] = str(agent.binary)
    client = RecordingClient()
    command = str(require_cli(reference))
    async with acp.spawn_agent_process(
        client, command, env=env, cwd=str(agent.cwd), transport_kwargs={"stderr": None}
    ) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=None)
        sid = (await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(PROMPT)]), 180)
    return answer, client


async def through_acp_mux(agent: RealAgent) -> tuple[Any, RecordingClient]:
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(PROMPT)]), 180)
    return answer, client


@pytest.mark.parametrize("name", sorted(REFERENCE))
async def test_ids_and_usage_as_the_reference_adapter_gives_them(name: str, tmp_path: Path) -> None:
    agent = RealAgent(name, require_cli(name), tmp_path)
    try:
        agent.serve(f"{name}_write_edit", delta_delay=0)
        theirs, their_client = await through_reference(agent)
        (agent.cwd / "notes.txt").unlink(missing_ok=True)
        agent.close()  # a fresh model server, numbering its requests (the ids' numbers) from the start again
        agent.serve(f"{name}_write_edit", delta_delay=0)
        ours, our_client = await through_acp_mux(agent)
    finally:
        agent.close()
    assert theirs.stop_reason == ours.stop_reason == "end_turn"
    assert ours.usage is not None and theirs.usage is not None
    assert ours.usage.model_dump(exclude_none=True) == theirs.usage.model_dump(exclude_none=True)
    assert our_client.of("usage_update")[-1].used == their_client.of("usage_update")[-1].used
    mine = named_messages([u for u in our_client.updates if u.session_update in CHUNKS])
    their = named_messages([u for u in their_client.updates if u.session_update in CHUNKS])
    if name == "codex":
        assert mine == their
    else:
        assert [kind for kind, _ in mine] == [kind for kind, _ in their]
        assert all(message_id and message_id.startswith("msg_") for _, message_id in mine + their)
        assert len({i for _, i in mine}) == len({i for _, i in their})

"""One editor entry for every agent, driven through the bridge's real stdio with the SDK client (the bundled demo
agent stands in for the real CLIs here; tests/e2e/test_switching.py switches between claude and codex)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import acp
import pytest

from tests.server.client import RecordingClient, bridge
from tests.server.switching_client import agent_groups, settled_groups, switching_bridge

pytestmark = pytest.mark.asyncio


ENV = {"ACP_MUX_AGENTS": "demo"}


async def test_the_agent_is_a_config_option_and_the_agent_command_answers_without_the_agent(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "auto", env=ENV, **work) as (conn, _):
        init = await conn.initialize(protocol_version=1)
        assert init.agent_info.title == "acp-mux"
        session = await conn.new_session(cwd=work["cwd"], mcp_servers=[])
        options = {o.id: o for o in session.config_options}
        assert options["agent"].current_value == "demo" and [c.value for c in options["agent"].options] == ["demo"]
        listed = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("/agent")])
        assert listed.stop_reason == "end_turn" and "Current agent: demo" in client.text()
        wrong = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("/agent nobody")])
        assert wrong.stop_reason == "end_turn" and "unknown agent 'nobody'" in client.text()
        with pytest.raises(acp.RequestError, match="unknown agent"):
            await conn.set_config_option(config_id="agent", session_id=session.session_id, value="nobody")
        # a real turn is marked with the agent that answered it
        result = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("write the demo")])
        assert result.stop_reason == "end_turn"
        assert "**Scripted demo agent:** " in client.text()
        assert "choose one of demo" in client.text()  # the names as words, not a Python list
    # the person's /agent lines are kept in the session's log and shown by `acp-mux sessions show`
    shown = subprocess.run(
        [sys.executable, "-m", "acp_mux", "sessions", "show", session.session_id],
        env={**os.environ, "ACP_MUX_STATE_DIR": work["state_dir"]},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    body = shown.stdout.split("\n", 2)[2]  # after the title and the session line
    assert "/agent nobody" in body and body.index("/agent nobody") < body.index("write the demo"), body


async def test_a_switch_while_a_prompt_runs_is_refused_clearly(tmp_path: Path) -> None:
    client = RecordingClient(hold_permissions=True)
    async with switching_bridge(client, tmp_path) as (conn, proc, sid):
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("write the demo")]))
        await asyncio.wait_for(client.permission_event.wait(), 20)
        with pytest.raises(acp.RequestError, match="a prompt is running"):
            await conn.set_config_option(config_id="agent", session_id=sid, value="beta")
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 10)).stop_reason == "cancelled"
        assert len(agent_groups(proc.pid)) == 1  # alpha still answers this session


async def test_the_agent_command_switches_in_place_of_a_prompt_and_queues_like_one(tmp_path: Path) -> None:
    client = RecordingClient()
    async with switching_bridge(client, tmp_path) as (conn, proc, sid):
        command = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("/agent gamma")]))
        await asyncio.sleep(0.01)
        with pytest.raises(acp.RequestError, match="a prompt is running"):
            await conn.set_config_option(config_id="agent", session_id=sid, value="beta")
        assert (await asyncio.wait_for(command, 20)).stop_reason == "end_turn"
        assert "Now talking to Scripted gamma." in client.text()
        reply = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hi")]), 20)
        assert reply.stop_reason == "end_turn" and "hi" in client.text().split("**Scripted gamma:** ", 1)[1]
        assert len(await settled_groups(proc.pid)) == 1

"""OpenClaw behind acp-mux on the real CLI (2026.9.6, on Node 24): its ACP bridge to the private gateway acp-mux
starts, and the `agent exec` transport.

A private gateway takes 14-27 s to listen on a loaded two-core machine and `openclaw acp` 5-11 s more, so the
gateway transport is covered by one conversation across two bridges instead of one bridge per case: write then
edit (with OpenClaw's exec approval relayed to the editor), cancel, an auth error, then a bridge restart that resumes
the session. The shared gateway and everything under it is gone its grace period (GRACE_S here) + 2 s after the
last editor leaves, and also after the bridge is killed outright.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path

import acp
import pytest

from tests.e2e.clis import openclaw_config
from tests.e2e.harness import SCENARIOS, RealAgent, require_cli
from tests.fakes.model_server import load_scenario
from tests.e2e.test_real_agents import WRITE_EDIT, assert_no_process_left, final_statuses, prompt, request_with
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

FIRST_TURN_TIMEOUT = 240  # the gateway and `openclaw acp` start behind the first prompt
TURN_TIMEOUT = 120
GRACE_S = 2  # ACP_MUX_OPENCLAW_GRACE_S: how long the shared gateway outlives the last bridge


def ask_for_exec(agent: RealAgent) -> None:
    """The person's OpenClaw config with exec approvals on (``tools.exec.mode: ask``: commands off the allowlist ask
    a human), in a file of its own named by ``OPENCLAW_CONFIG_PATH``: the home preparer rewrites
    ~/.openclaw/openclaw.json at every bridge start."""
    assert agent.server is not None
    config = openclaw_config(agent.server.url)
    config["tools"] = {"exec": {"mode": "ask"}}
    path = agent.root / "openclaw-ask.json"
    path.write_text(json.dumps(config, indent=2))
    agent.extra_env["OPENCLAW_CONFIG_PATH"] = str(path)


async def test_openclaw_through_its_gateway_across_a_bridge_restart(tmp_path: Path) -> None:
    agent = RealAgent("openclaw", require_cli("openclaw"), tmp_path)
    server = agent.serve("openclaw_write_edit", delta_delay=0)
    ask_for_exec(agent)
    agent.extra_env["ACP_MUX_OPENCLAW_GRACE_S"] = str(GRACE_S)
    client = RecordingClient(choose=lambda options, call: "allow_once")
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            result = await prompt(conn, sid, WRITE_EDIT, timeout=FIRST_TURN_TIMEOUT)
            assert result.stop_reason == "end_turn", agent.log()[-3000:]
            assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
            assert "notes.txt now contains alpha and gamma" in client.text()
            calls = {u.tool_call_id: u for u in client.of("tool_call")}
            assert sorted(u.kind for u in calls.values()) == ["edit", "edit", "execute"], calls
            assert set(final_statuses(client).values()) == {"completed"}
            located = {
                loc.path
                for u in client.updates
                if u.session_update in ("tool_call", "tool_call_update")
                for loc in (u.locations or [])
            }
            assert str(agent.cwd / "notes.txt") in located
            asked = [call for call, _ in client.permissions]
            assert asked and all(c.tool_call_id in calls for c in asked)  # OpenClaw's exec approval, relayed

            # cancel mid-stream: the turn ends cancelled at once, the model stream is dropped. The fake model picks
            # its step by the tool results in the history (three by now), so every step is the long text.
            long_text = load_scenario(SCENARIOS / "openclaw_text.json")["steps"][0]
            agent.rescript("openclaw_text", delta_delay=0.1, steps=[long_text] * 8)
            turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Tell me a long story.")]))
            deadline = time.monotonic() + TURN_TIMEOUT
            while "Line 003" not in client.text():
                assert time.monotonic() < deadline and not turn.done(), agent.log()[-3000:]
                await asyncio.sleep(0.05)
            await conn.cancel(session_id=sid)
            assert (await asyncio.wait_for(turn, 10)).stop_reason == "cancelled"

        await assert_no_process_left(agent, within=GRACE_S + 2.0)  # the gateway went after the last bridge

        # a new bridge resumes the conversation: openclaw's own session, through the gateway it starts again
        agent.rescript("openclaw_write_edit")
        second = RecordingClient(choose=lambda options, call: "allow_once")
        async with agent.bridge(second) as (conn, proc):
            await conn.initialize(protocol_version=1)
            await conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
            assert "notes.txt now contains alpha and gamma" in second.text()  # the editor's replay
            again = await prompt(conn, sid, "Anything left?", timeout=FIRST_TURN_TIMEOUT)
            assert again.stop_reason == "end_turn", agent.log()[-3000:]
            asked = request_with(server, "Anything left?")
            assert "notes.txt" in json.dumps(asked["body"])  # the model got the earlier turns back
            # an error, last: after a 401 OpenClaw disables the key for a minute in its state, which a restarted
            # gateway shares. Its bridge ends the failed run as a silent end_turn; acp-mux reads the gateway's log.
            # (A 429 and OpenClaw's own retries of it: tests/e2e/test_openclaw_shared_gateway.py.)
            agent.rescript("auth")  # 401: the editor's auth_required, naming where the key goes
            with pytest.raises(acp.RequestError) as err:
                await prompt(conn, sid, "hello again", timeout=TURN_TIMEOUT)
            assert err.value.code == -32000 and "401" in str(err.value), err.value
            os.kill(proc.pid, signal.SIGKILL)  # the editor's bridge dies without a word
        await assert_no_process_left(agent, within=GRACE_S + 2.0)
    finally:
        agent.close()


async def test_openclaw_exec_transport_answers_without_a_gateway(tmp_path: Path) -> None:
    """``--transport exec``: one `openclaw agent exec` per message; the work is done, the limits are said."""
    agent = RealAgent("openclaw", require_cli("openclaw"), tmp_path, extra_args=("--transport", "exec"))
    agent.serve("openclaw_write_edit", delta_delay=0)
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            result = await prompt(conn, sid, WRITE_EDIT, timeout=FIRST_TURN_TIMEOUT)
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
        assert sorted(os.listdir(agent.cwd)) == ["notes.txt"]  # no OpenClaw workspace files in the project
        text = client.text()
        assert "no streaming, no permission questions" in text and "notes.txt now contains alpha and gamma" in text
        assert client.permissions == []
    finally:
        agent.close()
    await assert_no_process_left(agent)

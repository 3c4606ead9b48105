"""Fault class 3: switches and prompts that overlap, through the real bridge on real stdio with scripted agents.

A prompt sent while a switch is under way waits for it and is answered by the new agent (never an empty end_turn);
when the switch fails, the prompt gets a clear JSON-RPC error; switches sent back to back, mixed with prompts and
cancels, leave at most one agent process (group) per session alive, and the session ends on the agent asked for last.
The agents are the bundled scripted agent under three names (``tests/server/switching_agents.py``); a slow switch is
one whose old agent lingers after its stdin closes.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import acp
import pytest

from tests.server.client import RecordingClient
from tests.server.switching_client import agent_groups, current_agent, prompt, settled_groups, switch, switching_bridge

pytestmark = pytest.mark.asyncio

TIMEOUT = 30


async def test_a_prompt_sent_during_a_slow_switch_waits_and_is_answered_by_the_new_agent(tmp_path: Path) -> None:
    client = RecordingClient()
    async with switching_bridge(client, tmp_path, SWITCH_TEST_SLOW_EXIT_S="5") as (conn, proc, sid):
        first = await asyncio.wait_for(prompt(conn, sid, "hello"), TIMEOUT)
        assert first.stop_reason == "end_turn" and "**Scripted alpha:** " in client.text()
        switched = switch(conn, sid, "beta")
        await asyncio.sleep(0.05)  # the switch is under way: alpha lingers, the bridge waits and then terminates it
        second = prompt(conn, sid, "are you there")
        assert current_agent(await asyncio.wait_for(switched, TIMEOUT)) == "beta"
        assert not second.done()
        answer = await asyncio.wait_for(second, TIMEOUT)
        assert answer.stop_reason == "end_turn"
        text = client.text()
        after = text.split("**Scripted alpha:** ", 1)[1]
        assert "**Scripted beta:** " in after and "are you there" in after.split("**Scripted beta:** ", 1)[1]
        groups = await settled_groups(proc.pid)
        assert len(groups) == 1, groups


async def test_back_to_back_switches_leave_one_agent_process_and_end_on_the_last_one(tmp_path: Path) -> None:
    client = RecordingClient()
    order = ["beta", "gamma", "alpha", "gamma", "beta", "alpha", "beta", "gamma"]
    async with switching_bridge(client, tmp_path) as (conn, proc, sid):
        answers = await asyncio.wait_for(asyncio.gather(*(switch(conn, sid, a) for a in order)), TIMEOUT)
        assert [current_agent(a) for a in answers] == order  # each answer says where its switch left the session
        assert len(agent_groups(proc.pid)) <= 1
        groups = await settled_groups(proc.pid)
        assert len(groups) == 1, groups
        reply = await asyncio.wait_for(prompt(conn, sid, "who is this"), TIMEOUT)
        assert reply.stop_reason == "end_turn"
        assert "who is this" in client.text().split("**Scripted gamma:** ", 1)[1]
        await asyncio.sleep(0.5)
        assert len(agent_groups(proc.pid)) == 1


async def test_a_prompt_queued_behind_a_failing_switch_gets_a_clear_error(tmp_path: Path) -> None:
    client = RecordingClient()
    gamma = tmp_path / "bin" / "gamma-python"
    gamma.parent.mkdir()
    os.symlink(sys.executable, gamma)
    async with switching_bridge(client, tmp_path, ACP_MUX_GAMMA_BIN=str(gamma), SWITCH_TEST_SLOW_EXIT_S="5") as (
        conn,
        proc,
        sid,
    ):
        await asyncio.wait_for(prompt(conn, sid, "hello"), TIMEOUT)
        to_beta = switch(conn, sid, "beta")  # slow: alpha lingers
        await asyncio.sleep(0.05)
        gamma.unlink()  # gamma's executable is gone by the time its switch runs
        to_gamma = switch(conn, sid, "gamma")
        queued = prompt(conn, sid, "still there?")
        assert current_agent(await asyncio.wait_for(to_beta, TIMEOUT)) == "beta"
        with pytest.raises(acp.RequestError, match="ACP_MUX_GAMMA_BIN"):
            await asyncio.wait_for(to_gamma, TIMEOUT)
        with pytest.raises(acp.RequestError, match="switch to Scripted gamma failed"):
            await asyncio.wait_for(queued, TIMEOUT)
        # the session stays on beta and answers the next prompt there
        answer = await asyncio.wait_for(prompt(conn, sid, "and now?"), TIMEOUT)
        assert answer.stop_reason == "end_turn" and client.text().rstrip().endswith("and now?")
        assert "**Scripted beta:** " in client.text()
        assert len(await settled_groups(proc.pid)) == 1


async def test_cancel_answers_a_prompt_waiting_for_a_switch_at_once(tmp_path: Path) -> None:
    client = RecordingClient()
    async with switching_bridge(client, tmp_path, SWITCH_TEST_SLOW_EXIT_S="5") as (conn, proc, sid):
        await asyncio.wait_for(prompt(conn, sid, "hello"), TIMEOUT)
        switched = switch(conn, sid, "beta")
        await asyncio.sleep(0.05)
        waiting = prompt(conn, sid, "never mind")
        await asyncio.sleep(0.05)
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(waiting, 2)).stop_reason == "cancelled"
        assert not switched.done()  # the answer came while the switch was still under way
        assert current_agent(await asyncio.wait_for(switched, TIMEOUT)) == "beta"
        assert "never mind" not in client.text()
        assert len(await settled_groups(proc.pid)) == 1


async def test_a_mode_sent_right_after_a_switch_is_the_new_agents(tmp_path: Path) -> None:
    client = RecordingClient()
    async with switching_bridge(client, tmp_path, SWITCH_TEST_SLOW_EXIT_S="5") as (conn, proc, sid):
        await asyncio.wait_for(prompt(conn, sid, "hello"), TIMEOUT)
        switched = switch(conn, sid, "beta")
        await asyncio.sleep(0.05)
        mode = asyncio.ensure_future(conn.set_config_option(config_id="mode", session_id=sid, value="bypass"))
        await asyncio.wait_for(switched, TIMEOUT)
        options = {o.id: o.current_value for o in (await asyncio.wait_for(mode, TIMEOUT)).config_options}
        assert options["agent"] == "beta" and options["mode"] == "bypass"
        answer = await asyncio.wait_for(prompt(conn, sid, "write the demo"), TIMEOUT)
        assert answer.stop_reason == "end_turn" and not client.permissions  # beta runs in bypass: it did not ask
        assert (tmp_path / "project" / "notes.txt").read_text() == "alpha\ngamma\n"


async def test_closing_a_session_during_switches_leaves_no_agent(tmp_path: Path) -> None:
    client = RecordingClient()
    async with switching_bridge(client, tmp_path, SWITCH_TEST_SLOW_EXIT_S="5") as (conn, proc, sid):
        await asyncio.wait_for(prompt(conn, sid, "hello"), TIMEOUT)
        switches = [switch(conn, sid, agent) for agent in ("beta", "gamma", "alpha")]
        await asyncio.sleep(0.05)
        await asyncio.wait_for(conn.close_session(session_id=sid), TIMEOUT)
        outcomes = await asyncio.gather(*switches, return_exceptions=True)
        assert all(isinstance(o, acp.RequestError) and "closed" in str(o) for o in outcomes[1:]), outcomes
        assert agent_groups(proc.pid) == {}
        await asyncio.sleep(1.0)
        assert agent_groups(proc.pid) == {}


async def test_a_model_the_live_agent_cannot_take_mid_turn_restarts_it_after_the_turn_not_during(
    tmp_path: Path,
) -> None:
    client = RecordingClient()
    async with switching_bridge(client, tmp_path, ACP_MUX_DEMO_TEXT_DELAY="0.005") as (conn, proc, sid):
        turn = prompt(conn, sid, "slow")  # 400 words; the scripted agent takes no model in place
        await asyncio.sleep(0.5)
        before = agent_groups(proc.pid)
        answer = await asyncio.wait_for(
            conn.set_config_option(config_id="model", session_id=sid, value="scripted-1"), TIMEOUT
        )
        assert {o.id: o.current_value for o in answer.config_options}["model"] == "scripted-1"
        assert (await asyncio.wait_for(turn, TIMEOUT)).stop_reason == "end_turn"
        assert "word399" in client.text() and agent_groups(proc.pid) == before  # the turn ran to its end
        await asyncio.wait_for(prompt(conn, sid, "hello"), TIMEOUT)
        after = agent_groups(proc.pid)
        assert len(after) == 1 and after != before  # the next prompt got a new process, the old one is gone

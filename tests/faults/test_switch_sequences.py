"""Fault class 3, as an adversary schedules it: generated sequences of switches, prompts and cancels, sent without
waiting for answers (a few milliseconds apart, or none), through the real bridge on real stdio with three scripted
agents, some of them slow to stop.

What must hold whatever the order:
* at no moment more than one agent process group alive for the session (sampled throughout), and exactly one once
  everything is answered;
* every prompt ends ``end_turn`` with its own answer or ``cancelled`` (a prompt sent while another runs is queued,
  never refused) — never an empty end_turn; a refused switch says a prompt is running;
* a prompt is answered by the agent of the last switch that succeeded before it was sent; the session ends on the
  agent of the last switch that succeeded.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import acp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.server.client import RecordingClient
from tests.server.switching_client import agent_groups, prompt, settled_groups, switch, switching_bridge

TIMEOUT = 60

Op = tuple[str, str, float]  # (kind, agent for a switch, pause before the next op in seconds)

ops = st.lists(
    st.tuples(
        st.sampled_from(["switch", "switch", "prompt", "cancel"]),
        st.sampled_from(["alpha", "beta", "gamma"]),
        st.sampled_from([0.0, 0.0, 0.01, 0.05, 0.3]),
    ),
    min_size=1,
    max_size=7,
)


def answered_by(client: RecordingClient) -> dict[str, str]:
    """Each turn's own message token -> the agent whose marker starts the turn it ends (its echo ends with it). The
    marker is its own chunk; an echo of the handed-over context may quote one, but only word by word."""
    owners: dict[str, str] = {}
    turns: list[tuple[str, list[str]]] = []
    for update in client.of("agent_message_chunk"):
        marker = re.fullmatch(r"\*\*Scripted (\w+):\*\* ", update.content.text)
        if marker:
            turns.append((marker[1], []))
        elif turns:
            turns[-1][1].append(update.content.text)
    for agent, chunks in turns:
        words = "".join(chunks).split()
        if words and words[-1].startswith("tok"):
            owners[words[-1]] = agent
    return owners


async def run_sequence(root: Path, sequence: list[Op], slow: bool) -> None:
    client = RecordingClient()
    env = {"ACP_MUX_DEMO_TEXT_DELAY": "0.001", **({"SWITCH_TEST_SLOW_EXIT_S": "5"} if slow else {})}
    async with switching_bridge(client, root, **env) as (conn, proc, sid):
        most = 0
        done = asyncio.Event()

        async def sample() -> None:
            nonlocal most
            while not done.is_set():
                most = max(most, len(agent_groups(proc.pid)))
                await asyncio.sleep(0.03)

        sampler = asyncio.ensure_future(sample())
        sent: list[tuple[str, str, Any]] = []  # (kind, agent or token, future)
        for i, (kind, agent, pause) in enumerate(sequence):
            if kind == "switch":
                sent.append((kind, agent, switch(conn, sid, agent)))
            elif kind == "prompt":
                sent.append((kind, f"tok{i}", prompt(conn, sid, f"please echo tok{i}")))
            else:
                await conn.cancel(session_id=sid)
            await asyncio.sleep(pause)
        results = await asyncio.wait_for(asyncio.gather(*(f for _, _, f in sent), return_exceptions=True), TIMEOUT)
        final_groups = await settled_groups(proc.pid)
        done.set()
        await sampler

        owners = answered_by(client)
        agent = "alpha"
        for (kind, what, _), result in zip(sent, results):
            if kind == "switch":
                if isinstance(result, acp.RequestError):
                    assert "a prompt is running" in str(result), result
                else:
                    assert not isinstance(result, BaseException), result
                    agent = what
            else:  # queued behind the prompts before it, never refused; no switch here can fail
                assert not isinstance(result, BaseException), result
                assert result.stop_reason in ("end_turn", "cancelled"), result
                if result.stop_reason == "end_turn":  # its own answer, from the agent picked last before it
                    assert owners.get(what) == agent, (what, agent, owners)
        assert most <= 1, f"{most} agent process groups alive at once"
        assert len(final_groups) == 1, final_groups
        reply = await asyncio.wait_for(prompt(conn, sid, "please echo tokfinal"), TIMEOUT)
        assert reply.stop_reason == "end_turn" and answered_by(client).get("tokfinal") == agent


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sequence=ops, slow=st.booleans())
def test_any_sequence_of_switches_prompts_and_cancels_keeps_one_agent_and_answers_every_prompt(
    tmp_path_factory: Any, sequence: list[Op], slow: bool
) -> None:
    asyncio.run(run_sequence(tmp_path_factory.mktemp("seq"), sequence, slow))

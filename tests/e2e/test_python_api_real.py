"""``import acp_mux`` driving the real claude and codex CLIs (pinned installs) against the scripted model server.

The same four things a script needs from any agent: streamed text, a permission answered by a callback (allow and
reject, checked on disk), cancel mid-stream with the conversation going on, and resume of a stored session (the
model gets the first turn back). Each agent runs with a private HOME (harness.RealAgent), which is how "nothing
left running" is checked on the real process table. The ACP agents (gemini, opencode, omp, hermes, copilot) are
driven for what only their protocol says: how a cancel answers the question they have open.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

import acp_mux
from tests.e2e.harness import RealAgent, require_cli
from tests.e2e.test_claude_warm_up import lines, recorded_agent

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

WRITE_EDIT = "Create notes.txt with the lines alpha and beta, then change beta to gamma."
TURN_TIMEOUT = 90


@pytest.fixture(params=["claude", "codex"])
def agent(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent(request.param, require_cli(request.param), tmp_path)
    yield real
    real.close()


def conversation(agent: RealAgent, prompt: str, **options: Any) -> acp_mux.Run:
    return acp_mux.run(agent.name, prompt, cwd=agent.cwd, env=agent.env(), state_dir=agent.root / "state", **options)


async def no_process_left(agent: RealAgent, within: float = 2.0) -> None:
    deadline = time.monotonic() + within
    while agent.processes() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert agent.processes() == []


async def test_text_streams_as_typed_events(agent: RealAgent) -> None:
    agent.serve(f"{agent.name}_text", delta_delay=0)
    async with conversation(agent, "Tell me a long story.") as run:
        events = [e async for e in run]
        result = await asyncio.wait_for(run.wait(), TURN_TIMEOUT)
    assert result.stop_reason == "end_turn", agent.log()[-2000:]
    text = "".join(e.delta for e in events if isinstance(e, acp_mux.events.TextDeltaEvent))
    assert "Line 001" in text and "Line 200" in text and text == result.text
    assert result.native_session_id is not None
    await no_process_left(agent)


@pytest.mark.parametrize("allowed", [True, False])
async def test_a_permission_is_answered_by_the_callback(agent: RealAgent, allowed: bool) -> None:
    agent.serve(f"{agent.name}_write_edit", delta_delay=0)
    asked: list[tuple[acp_mux.ApprovalRequest, bool]] = []

    async def answer(request: acp_mux.ApprovalRequest) -> bool:
        asked.append((request, (agent.cwd / "notes.txt").exists()))
        return allowed

    async with conversation(agent, WRITE_EDIT, approvals=acp_mux.ask(answer)) as run:
        result = await asyncio.wait_for(run.wait(), TURN_TIMEOUT)
    assert result.stop_reason == "end_turn", agent.log()[-2000:]
    edits = [request for request, _ in asked if request.kind == "edit"]
    assert edits, [(r.tool_name, r.kind) for r, _ in asked]
    assert not asked[0][1], "the first change was made before the callback was asked"
    if allowed:
        assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
        assert "notes.txt" in edits[0].always_covers
    else:
        assert not (agent.cwd / "notes.txt").exists()
    await no_process_left(agent)


async def test_cancel_mid_stream_then_the_conversation_goes_on(agent: RealAgent) -> None:
    agent.serve(f"{agent.name}_text", delta_delay=0.1)  # 200 deltas: 20 s if nobody cancels
    async with conversation(agent, "Tell me a long story.") as run:
        seen = ""
        async for event in run:
            seen += getattr(event, "delta", "") if event.type == "text_delta" else ""
            if "Line 003" in seen and run.result is None:
                started = time.monotonic()
                await run.cancel()
        assert run.result is not None and run.result.stop_reason == "cancelled", agent.log()[-2000:]
        assert time.monotonic() - started < 6 and "Line 200" not in run.result.text
        agent.rescript(f"{agent.name}_text", delta_delay=0)
        await run.continue_("Say it again, quickly.")
        again = await asyncio.wait_for(run.wait(), TURN_TIMEOUT)
    assert again.stop_reason == "end_turn" and "Line 200" in again.text, agent.log()[-2000:]
    await no_process_left(agent)


async def test_a_stored_session_is_resumed_by_the_agent(agent: RealAgent) -> None:
    server = agent.serve(f"{agent.name}_text", delta_delay=0)
    async with conversation(agent, "Remember the word pelican.") as run:
        first = await asyncio.wait_for(run.wait(), TURN_TIMEOUT)
    assert first.stop_reason == "end_turn", agent.log()[-2000:]
    await no_process_left(agent)
    async with acp_mux.run(
        None, "Which word?", resume=first.session_id, env=agent.env(), state_dir=agent.root / "state"
    ) as run:
        second = await asyncio.wait_for(run.wait(), TURN_TIMEOUT)
    assert second.stop_reason == "end_turn" and second.native_session_id == first.native_session_id
    asked = [r for r in server.requests if r["kind"] == "step" and "Which word?" in json.dumps(r["body"])]
    assert asked and "pelican" in json.dumps(asked[-1]["body"])  # the agent itself resumed its session
    await no_process_left(agent)


async def test_the_run_command_prints_the_union_and_asks_nobody_without_a_terminal(agent: RealAgent) -> None:
    """``acp-mux run --json`` on the real CLI: every stdout line is an event of the union; with no terminal and no
    rule, the agent's first change is denied and nothing is written."""
    import subprocess
    import sys

    from acp_mux.core.events.union import UnknownEvent, parse_event_json

    agent.serve(f"{agent.name}_write_edit", delta_delay=0)
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "acp_mux", "run", "--agent", agent.name, "--json", WRITE_EDIT],
        cwd=agent.cwd,
        env=agent.env(),
        input="",
        capture_output=True,
        text=True,
        timeout=TURN_TIMEOUT,
    )
    events = [parse_event_json(line) for line in done.stdout.splitlines()]
    assert events and not any(isinstance(e, UnknownEvent) for e in events), done.stderr[-2000:]
    kinds = [e.type for e in events]
    assert "approval_request" in kinds and "approval_granted" not in kinds and "approval_denied" in kinds
    assert not (agent.cwd / "notes.txt").exists()
    assert done.returncode in (0, 1), done.stderr[-2000:]  # the agent ends its turn (or stops short) on "no"
    await no_process_left(agent)


@pytest.mark.parametrize("name", ["gemini", "opencode", "omp", "hermes", "copilot"])
async def test_a_cancel_answers_an_acp_agents_open_question_cancelled(tmp_path: Path, name: str) -> None:
    """ACP says a client that cancels answers each pending permission request ``cancelled``. From Python, with the
    callback still deciding when ``run.cancel()`` comes, the real agent hears exactly that for its question (before,
    it heard its "reject" option first, as if the person had refused), the turn ends ``cancelled``, nothing was
    written, and the next prompt is answered."""
    agent, log = recorded_agent(tmp_path, {}, name)
    try:
        agent.serve(f"{name}_write_edit", delta_delay=0)
        asked = asyncio.Event()
        never: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        async def deciding(request: acp_mux.ApprovalRequest) -> bool:
            asked.set()
            return await never

        async with conversation(agent, WRITE_EDIT, approvals=acp_mux.ask(deciding)) as run:
            reading = asyncio.ensure_future(run.wait())
            await asyncio.wait_for(asked.wait(), TURN_TIMEOUT)
            await run.cancel()
            result = await asyncio.wait_for(reading, TURN_TIMEOUT)
            assert result.stop_reason == "cancelled", agent.log()[-2000:]
            # and the conversation goes on (hermes: in a new process): the model is asked with the new prompt (its
            # reply then depends on the tool results in the history) and answers, never "Queued for the next turn"
            agent.rescript(f"{name}_text", delta_delay=0)
            await run.continue_("Start again, please.")
            again = await asyncio.wait_for(run.wait(), TURN_TIMEOUT)
        assert again.stop_reason == "end_turn" and again.text and "Queued" not in again.text, agent.log()[-2000:]
        assert agent.server is not None
        assert any(
            r["kind"] == "step" and "Start again, please." in json.dumps(r["body"]) for r in agent.server.requests
        )
        messages = [(r["dir"], r["msg"]) for r in lines(log)]
        questions = {m["id"] for d, m in messages if d == "out" and m.get("method") == "session/request_permission"}
        answers = [m["result"] for d, m in messages if d == "in" and m.get("id") in questions and "method" not in m]
        assert questions and answers and all(a == {"outcome": {"outcome": "cancelled"}} for a in answers), answers
        assert not (agent.cwd / "notes.txt").exists()
    finally:
        agent.close()
    await no_process_left(agent)

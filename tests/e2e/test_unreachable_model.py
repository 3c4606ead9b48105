"""Issue 39, class 6: a model endpoint that cannot be reached is a failure like any other. Every installable agent
is pointed at a loopback address where nothing listens (the scripted model server started for its settings, then
stopped): the person is told within 10 s (a retry note naming the failure, or the error itself), and the turn
ends with a typed error, never ``end_turn`` (after the agent's own retries: codex tries five times).

Measured before the fix (2026-11-28): claude 0.9 s, codex 1.1 s, gemini 2.2 s, pi 3.7 s, copilot 3.8 s, hermes
4.8 s (but ``end_turn`` with "API call failed after 3 retries: Connection error." as its text), opencode 5.6 s, omp
34 s of silence. After (2026-11-29 00:39 UTC, load ~5 on 2 cores; shown / typed error): claude 1.0 / 1.0 s, codex
0.9 / 0.9 s, gemini 2.2 / 2.2 s, copilot 3.0 / 25 s, opencode 6.5 / 71 s (its own five retries, each shown), pi
1.5 / 1.5 s, omp 2.2 / 2.2 s, hermes 8.6 / 8.6 s; openclaw 29 / 90 s before acp-mux read its gateway's log for the
refusal (it retries ~60 s in silence); after (2026-11-29 02:30-02:38 UTC, three runs): 0.6-1.7 / 1.7-2.5 s.

openclaw's session first answers one prompt while the server listens: the first turn of its gateway spends 7-16 s
of CPU on lazy set-up before it asks the model at all (``openclaw_gateway.py``), which is no unreachable model. After
the failed turn the server listens again at the same address and the next prompt must be answered: acp-mux stopped
openclaw's own retrying of the failed turn, so nothing of it is left to get in the way.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

AGENTS = ["claude", "codex", "gemini", "copilot", "opencode", "pi", "omp", "hermes", "openclaw"]
WARMED_UP = {"openclaw"}  # a first answered turn before the model goes away (its first turn's set-up, see above)
ANSWERED_AFTER = {"openclaw"}  # the model comes back and the next prompt is answered
ENDS_AT_ONCE = {"openclaw"}  # acp-mux ends the turn at the first refusal, not after the agent's own ~60 s of retries
SHOWN_WITHIN_S = 10.0  # the person reads that the model cannot be reached (a retry note or the error)
ENDED_WITHIN_S = 240.0  # an agent's own retries (codex: five, 5-40 s apart) may keep the turn going this long


@pytest.mark.parametrize("name", AGENTS)
async def test_an_unreachable_model_is_shown_within_10_s_and_ends_the_turn_with_a_typed_error(
    name: str, tmp_path: Path
) -> None:
    agent = RealAgent(name, require_cli(name), tmp_path)
    server = agent.serve(f"{name}_text")
    env = agent.env()  # the agent's settings name the server's address ...
    if name not in WARMED_UP:
        agent.close()  # ... where nothing listens from now on
    agent.env = lambda: env  # type: ignore[method-assign]
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            if name in WARMED_UP:
                warm = await conn.prompt(session_id=sid, prompt=[acp.text_block("Say hello.")])
                assert warm.stop_reason == "end_turn", warm
                agent.close()  # nothing listens at the model's address from now on
            before = len(client.of("agent_message_chunk"))
            started = time.monotonic()
            turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Say hello.")]))
            shown: float | None = None
            while not turn.done() and time.monotonic() - started < ENDED_WITHIN_S:
                if shown is None and len(client.of("agent_message_chunk")) > before:
                    shown = time.monotonic() - started
                await asyncio.wait({turn}, timeout=0.05)
            with pytest.raises(acp.RequestError) as failed:
                await asyncio.wait_for(turn, 1)
            ended = time.monotonic() - started
            shown = ended if shown is None else shown
            print(f"\n{name}: unreachable model shown in {shown:.1f} s, failed in {ended:.1f} s: {failed.value}")
            assert shown < SHOWN_WITHIN_S, (shown, client.text()[-500:])
            assert failed.value.code == -32603, failed.value
            if name in ENDS_AT_ONCE:
                assert ended < SHOWN_WITHIN_S, (ended, failed.value)
            if name in ANSWERED_AFTER:
                assert "The model could not be reached" in f"{failed.value} {failed.value.data}", failed.value
                agent.serve(f"{name}_text", port=server.port)  # the model is back at the same address
                before = len(client.text())
                again = await asyncio.wait_for(
                    conn.prompt(session_id=sid, prompt=[acp.text_block("Say hello again.")]), 120
                )
                assert again.stop_reason == "end_turn", again
                assert "Line 001 of a long streamed answer." in client.text()[before:], client.text()[-500:]
    finally:
        agent.close()

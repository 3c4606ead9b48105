"""Issue 39, class 6: a model endpoint that cannot be reached is a failure like any other. Every installable agent
is pointed at a loopback address where nothing listens (the scripted model server started for its settings, then
stopped): the person is told within 10 s, and the turn ends with a typed error, never ``end_turn``.

Measured before the fix (2026-11-28): claude 0.9 s, codex 1.1 s, gemini 2.2 s, pi 3.7 s, copilot 3.8 s, hermes
4.8 s (but ``end_turn`` with "API call failed after 3 retries: Connection error." as its text), opencode 5.6 s, omp
34 s of silence.
"""

from __future__ import annotations

import time
from pathlib import Path

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

AGENTS = ["claude", "codex", "gemini", "copilot", "opencode", "pi", "omp", "hermes", "openclaw"]
WITHIN_S = 10.0


@pytest.mark.parametrize("name", AGENTS)
async def test_an_unreachable_model_ends_the_turn_with_a_typed_error_within_10_s(name: str, tmp_path: Path) -> None:
    agent = RealAgent(name, require_cli(name), tmp_path)
    agent.serve(f"{name}_text")
    env = agent.env()  # the agent's settings name the server's address ...
    agent.close()  # ... where nothing listens from now on
    agent.env = lambda: env  # type: ignore[method-assign]
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            started = time.monotonic()
            with pytest.raises(acp.RequestError) as failed:
                await conn.prompt(session_id=sid, prompt=[acp.text_block("Say hello.")])
            took = time.monotonic() - started
        print(f"\n{name}: unreachable model → {failed.value} in {took:.1f} s")
        assert took < WITHIN_S, (took, str(failed.value))
        assert failed.value.code == -32603, failed.value
    finally:
        agent.close()

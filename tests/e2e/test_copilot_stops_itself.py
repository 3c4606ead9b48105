"""The real copilot (1.0.102) stops a fast long reply by itself now and then (``cancelled`` midway, no cancel
asked) and then never answers another prompt in that process: its model request is made and answered, the prompt's
answer never comes (seen 4 times in 4 in its own ACP mode). Through acp-mux the cut turn ends ``cancelled`` with a
note, and the next prompt goes to a new copilot that loads the session: it is answered, by the model, and nothing
of the spent process is left.

Whether copilot cuts a given reply short is its own timing; the test tries up to ``TRIES`` sessions and skips,
saying so, if copilot finished every reply (the repair is then not exercised, not wrongly passed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.e2e.test_real_agents import assert_no_process_left, prompt, request_with
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.e2e]

TRIES = 8
CHUNKS = 3000
LONG_REPLY = {"delta_delay": 0, "steps": [{"blocks": [{"text": [f"c{i} " for i in range(CHUNKS)]}]}]}


async def test_after_copilot_stops_a_reply_by_itself_the_next_prompt_is_answered(tmp_path: Path) -> None:
    binary = require_cli("copilot")
    for attempt in range(TRIES):
        agent = RealAgent("copilot", binary, tmp_path / f"try{attempt}")
        agent.server = ModelServer(LONG_REPLY, variables={"cwd": str(agent.cwd)}).start()
        try:
            client = RecordingClient()
            async with agent.bridge(client) as (conn, _):
                sid = await agent.session(conn)
                first = await prompt(conn, sid, "A long reply, please.")
                if first.stop_reason == "end_turn":
                    continue  # copilot finished this one: try another session
                assert first.stop_reason == "cancelled", first
                assert "stopped this turn itself" in client.text()
                agent.rescript("copilot_text", delta_delay=0)
                before = len(client.text())
                again = await prompt(conn, sid, "Start again, please.", timeout=60)  # copilot alone: never answered
                assert again.stop_reason == "end_turn", agent.log()[-3000:]
                request_with(agent.server, "Start again, please.")
                assert "Line 200 of a long streamed answer." in client.text()[before:]
            await assert_no_process_left(agent)
            return
        finally:
            agent.close()
    pytest.skip(f"copilot finished all {TRIES} long replies: the repair after a reply it stops itself was not needed")

"""ACP ``logout`` on the real claude and codex CLIs (issue 23): acp-mux runs the agent's own sign-out, with the
agent's environment, and the credentials file the agent's login left (private HOME) is gone afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]


def credentials(agent: RealAgent) -> Path:
    """Where the agent's own login keeps its sign-in, under the test's private HOME (the registry's login file)."""
    env = agent.env()
    if agent.name == "claude":
        return Path(env.get("CLAUDE_CONFIG_DIR") or agent.home / ".claude") / ".credentials.json"
    return Path(env.get("CODEX_HOME") or agent.home / ".codex") / "auth.json"


@pytest.mark.parametrize("name", ["claude", "codex"])
async def test_logout_runs_the_agents_own_sign_out(name: str, tmp_path: Path) -> None:
    agent = RealAgent(name, require_cli(name), tmp_path)
    try:
        agent.server = ModelServer({"steps": [], "done_text": "Nothing."}, delta_delay=0).start()
        stored = credentials(agent)
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_text('{"claudeAiOauth": {"accessToken": "x"}}' if name == "claude" else '{"OPENAI_API_KEY": "x"}')
        async with agent.bridge(RecordingClient()) as (conn, _):
            init = await conn.initialize(protocol_version=1, client_capabilities=None)
            assert init.agent_capabilities.auth.logout is not None
            assert await conn._conn.send_request("logout", {}) == {}
        assert not stored.exists(), agent.log()[-2000:]
    finally:
        agent.close()

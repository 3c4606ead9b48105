"""The bundled demo agent as a person meets it in an editor: a plain prompt ("hello") shows the whole flow —
thoughts, a plan, a write and an edit (each asked first), a command — and its keywords count only as whole words
("rate" is not in "generate", "auth" not in "authentication")."""

from __future__ import annotations

from pathlib import Path

import acp
import pytest

from tests.server.client import RecordingClient, bridge

pytestmark = pytest.mark.asyncio


async def _turn(tmp_path: Path, text: str, echo: str) -> tuple[RecordingClient, str]:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    client = RecordingClient()
    env = {"SCRIPTED_AGENT_ECHO": echo}
    async with bridge(client, "--agent", "demo", cwd=str(cwd), state_dir=str(tmp_path / "state"), env=env) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=1, client_capabilities=None)
        sid = (await conn.new_session(cwd=str(cwd), mcp_servers=[])).session_id
        result = await conn.prompt(session_id=sid, prompt=[acp.text_block(text)])
    return client, result.stop_reason


async def test_hello_shows_the_whole_flow(tmp_path: Path) -> None:
    client, stop = await _turn(tmp_path, "hello", echo="0")  # as a person runs it: no echo asked for
    assert stop == "end_turn"
    assert (tmp_path / "project" / "notes.txt").read_text() == "alpha\ngamma\n"
    assert client.text("agent_thought_chunk") and "notes.txt" in client.text()
    assert [call.kind for call in client.of("tool_call")] == ["edit", "edit", "execute"]
    assert len(client.permissions) == 3  # the write, the edit and the command, each asked first


@pytest.mark.parametrize("text", ["generate a separate author list", "hello after authentication", "changes"])
async def test_keywords_are_whole_words(tmp_path: Path, text: str) -> None:
    client, stop = await _turn(tmp_path, text, echo="1")
    assert stop == "end_turn" and client.text().strip() == f"You said: {text}"

"""One editor entry for every agent: pick and switch the agent inside a session, on the real CLIs.

``acp-mux --agent auto`` with claude and codex installed: claude writes a file (the person answers "always allow
changes to notes.txt"), the person switches to codex through the ``agent`` config option, codex edits that file
without a second question (one policy per session) and its model request carries the earlier exchange; switching
back, claude resumes its own native session; after a bridge restart ``session/load`` shows all three turns, each
marked with the agent that answered it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.harness import ClaudeAndCodex, current_values
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

TIMEOUT = 90
FIRST, SECOND, THIRD = "Please create notes.txt.", "Now change beta to gamma.", "What did codex do?"


def allow_always_once(options: list[Any], call: Any) -> str:
    return "allow_always"


def request_with(server: Any, text: str) -> dict[str, Any]:
    carrying = [r for r in server.requests if r["kind"] == "step" and text in json.dumps(r["body"])]
    assert carrying, f"no model request carried {text!r}"
    return carrying[-1]


async def prompt(conn: Any, sid: str, text: str) -> Any:
    return await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), TIMEOUT)


async def test_switching_agents_keeps_one_conversation_one_policy_and_each_native_session(tmp_path: Path) -> None:
    agents = ClaudeAndCodex.at(tmp_path)
    server = agents.serve("switch_claude_write", delta_delay=0)
    client = RecordingClient(choose=allow_always_once)
    try:
        async with agents.bridge(client) as (conn, _):
            await conn.initialize(protocol_version=1)
            opened = await conn.new_session(cwd=str(agents.cwd), mcp_servers=[])
            sid = opened.session_id
            agent_option = next(o for o in opened.config_options if o.id == "agent")
            assert agent_option.current_value == "claude"
            assert {c.value for c in agent_option.options} == {"claude", "codex"}

            first = await prompt(conn, sid, FIRST)
            assert first.stop_reason == "end_turn", agents.log()[-3000:]
            assert (agents.cwd / "notes.txt").read_text() == "alpha\nbeta\n"
            assert len(client.permissions) == 1  # claude asked once; the answer was "always" for notes.txt

            agents.rescript("switch_codex_edit", delta_delay=0)
            answer = await conn.set_config_option(config_id="agent", session_id=sid, value="codex")
            assert current_values(answer)["agent"] == "codex"
            await conn.set_config_option(config_id="mode", session_id=sid, value="read-only")  # codex asks here
            second = await prompt(conn, sid, SECOND)
            assert second.stop_reason == "end_turn", agents.log()[-3000:]
            assert (agents.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
            assert len(client.permissions) == 1, "the 'always' answer given to claude did not hold for codex"
            handed = json.dumps(request_with(server, SECOND)["body"])
            assert FIRST in handed and "Wrote notes.txt with alpha and beta." in handed  # the earlier exchange

            agents.rescript("switch_claude_write", delta_delay=0)
            await conn.set_config_option(config_id="agent", session_id=sid, value="claude")
            third = await prompt(conn, sid, THIRD)
            assert third.stop_reason == "end_turn", agents.log()[-3000:]
        asked = json.dumps(request_with(server, THIRD)["body"])
        assert '"tool_use"' in asked and FIRST in asked  # claude's own session: its first turn as real history
        assert SECOND in asked and "Changed beta to gamma." in asked  # and what it missed, handed over
    finally:
        agents.close()

    second_client = RecordingClient()
    async with agents.bridge(second_client) as (conn, _):
        await conn.initialize(protocol_version=1)
        listed = await conn.list_sessions(cwd=str(agents.cwd))
        assert [s.session_id for s in listed.sessions] == [sid]
        loaded = await conn.load_session(session_id=sid, cwd=str(agents.cwd), mcp_servers=[])
        shown = second_client.text()
        marks = [shown.find("**Claude Code:**"), shown.find("**Codex:**"), shown.rfind("**Claude Code:**")]
        assert -1 not in marks and marks[0] < marks[1] < marks[2], shown
        # the agent active last comes back, and the bridge's /agent command is offered
        assert current_values(loaded)["agent"] == "claude"
        offered = lambda: {c.name for u in second_client.of("available_commands_update") for c in u.available_commands}  # noqa: E731
        for _ in range(100):  # announced right after the answer
            if "agent" in offered():
                break
            await asyncio.sleep(0.05)
        assert "agent" in offered()

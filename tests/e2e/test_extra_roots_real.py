"""additionalDirectories (issue 23) on the real claude and gemini CLIs: the folder reaches the agent as a workspace
root of its own (claude ``--add-dir``, gemini ``--include-directories``).

The scripted model has the agent read a file in a folder outside the project that the editor named in
``additionalDirectories``; every permission question is rejected, so the file's text can reach the model only if the
agent counts that folder as its workspace (outside it, claude asks and is refused, gemini refuses by itself).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

MARKER = "extra-root-marker-5b1c"
READ = {"claude": ("Read", "file_path"), "gemini": ("read_file", "file_path")}


@pytest.mark.parametrize("name", ["claude", "gemini"])
async def test_the_agent_reads_a_file_in_an_additional_directory(name: str, tmp_path: Path) -> None:
    agent = RealAgent(name, require_cli(name), tmp_path)
    extra = tmp_path / "elsewhere" / "docs"
    extra.mkdir(parents=True)
    (extra / "notes.txt").write_text(f"{MARKER}\n")
    tool, key = READ[name]
    steps = [
        {"blocks": [{"tool_use": {"name": tool, "input": {key: str(extra / "notes.txt")}}}]},
        {"blocks": [{"text": "Read it."}]},
    ]
    try:
        agent.server = ModelServer({"steps": steps, "done_text": "Nothing left."}, delta_delay=0).start()
        asked: list[str] = []

        def reject(options: list[object], call: object) -> str:
            asked.append(str(getattr(call, "title", "")))
            return "reject_once"

        client = RecordingClient(choose=reject)
        async with agent.bridge(client) as (conn, _):
            init = await conn.initialize(protocol_version=1, client_capabilities=None)
            assert init.agent_capabilities.session_capabilities.additional_directories is not None
            session = await conn.new_session(cwd=str(agent.cwd), mcp_servers=[], additional_directories=[str(extra)])
            listed = await conn.list_sessions()
            assert [s.additional_directories for s in listed.sessions] == [[str(extra)]]
            result = await asyncio.wait_for(
                conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Read the notes.")]), 180
            )
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        replies = json.dumps([r["body"] for r in agent.server.requests if r["kind"] == "step"])
        assert MARKER in replies, (asked, agent.log()[-3000:])
        assert asked == [], asked  # inside the session's workspace: nothing to ask
    finally:
        agent.close()

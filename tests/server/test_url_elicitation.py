"""A url elicitation's two halves through the real stdio, an SDK client as the editor and a scripted ACP agent
(tests/fakes/programs/acp_scripted_agent.py url-elicitation) as gemini: the editor that declared ``elicitation.url`` gets
``elicitation/create`` and later ``elicitation/complete`` for the same elicitationId, ``_meta`` as the agent wrote
it; an editor that declared no url gets neither; a completion outside ACP is dropped and the turn goes on."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.server.client import RecordingClient, bridge

AGENT = Path(__file__).resolve().parents[1] / "fakes" / "programs" / "acp_scripted_agent.py"


@dataclass
class ElicitingClient(RecordingClient):
    """Records the elicitations it is asked and the completions it is told; accepts every url."""

    asked: list[dict[str, Any]] = field(default_factory=list)
    completed: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> dict[str, Any]:
        self.asked.append({"message": message, **mode.model_dump(mode="json", by_alias=True, exclude_none=True)})
        return {"action": "accept"}

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        self.completed.append((elicitation_id, kwargs))


@pytest.mark.parametrize("declared", [{"url": {}}, {"form": {}}, None])
async def test_the_editor_that_was_shown_the_url_is_told_it_completed(
    tmp_path: Path, declared: dict[str, Any] | None
) -> None:
    program = tmp_path / "bin" / "gemini"
    program.parent.mkdir()
    program.write_text(f"#!/bin/sh\nexec {sys.executable} {AGENT} url-elicitation\n")
    program.chmod(0o755)
    project = tmp_path / "project"
    project.mkdir()
    client = ElicitingClient()
    async with bridge(
        client,
        "--agent",
        "gemini",
        cwd=str(project),
        state_dir=str(tmp_path / "state"),
        env={"ACP_MUX_GEMINI_BIN": str(program)},
        use_unstable_protocol=True,  # (elicitations are ACP's unstable part: the SDK serves them only then)
    ) as (conn, _):
        capabilities = {"elicitation": declared} if declared is not None else None
        await conn.initialize(protocol_version=1, client_capabilities=capabilities)
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("sign in")]), 30)
    assert result.stop_reason == "end_turn" and client.text() == "done"  # the malformed completion stopped nothing
    if declared is not None and "url" in declared:
        (asked,) = client.asked
        assert asked["url"] == "https://example.test/login" and asked["message"] == "Sign in"
        assert client.completed == [(asked["elicitationId"], {"flow": "signed-in"})]  # the same id, _meta kept
    else:
        assert client.asked == [] and client.completed == []

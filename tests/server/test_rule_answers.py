"""What a remembered rule answers, through the real bridge with the bundled scripted agent: a command the person
rejected "always" is rejected by the rule the next time, without asking, and the agent is told a rule rejected it
(the same words a comparison candidate and a Python run hear; not "the user rejected", since nobody was asked)."""

from __future__ import annotations

from pathlib import Path

import acp
import pytest

from acp_mux.server.records.store import SessionStore
from tests.server.client import RecordingClient, bridge

pytestmark = pytest.mark.asyncio


async def test_a_rule_that_rejects_says_so_and_asks_nobody(work: dict[str, str]) -> None:
    answers = iter(["reject_always"])
    client = RecordingClient(choose=lambda options, call: next(answers))
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=work["cwd"], mcp_servers=[])).session_id
        result = await conn.prompt(session_id=sid, prompt=[acp.text_block("askrun\necho one\necho one")])
    assert result.stop_reason == "end_turn"
    assert len(client.permissions) == 1  # the second, identical command was decided by the rule
    assert "denied: echo one\ndenied: echo one" in client.text()
    logged = [
        e["data"] for e in SessionStore(Path(work["state_dir"])).envelopes(sid) if e["type"] == "approval.resolved"
    ]
    assert [(r["decision"], r["by"], r["scope"], r["reason"]) for r in logged] == [
        ("denied", "user", "always", "The user rejected this action."),
        ("denied", "rule", "always", "A rule rejects this."),
    ]

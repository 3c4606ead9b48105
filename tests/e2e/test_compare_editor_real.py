"""``/compare claude codex PROMPT`` in the every-agent entry (``acp-mux --agent auto``), on the real CLIs (pinned,
each on its own scripted model server), through the SDK client: each candidate answers in its own copy, the folder
untouched until the pick, exactly codex's content after keeping it, no copy and no process left, the next prompt
going to codex with the comparison handed over, and session/load showing the comparison again — for an editor that
declared ``subagents`` (each candidate a child session) and one that did not (each nested under its call).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import acp
import pytest

from acp_mux.translation.child_sessions import child_session_id
from tests.e2e.subagent_wire import Wire
from tests.e2e.test_compare_real import PROMPT, ours, two_candidates
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]
TIMEOUT = 120


def keep_codex(options: list[Any], call: Any) -> str | None:
    ids = [o.option_id for o in options]
    if "compare-keep-none" in ids:
        return "compare-keep:codex"
    return next(o.option_id for o in options if o.kind == "allow_once")  # a candidate's command: allowed once


async def open_session(conn: Any, project: Path, children: bool) -> str:
    if children:  # the SDK's ClientCapabilities has no `subagents`: the same request, raw, with it
        await conn._conn.send_request("initialize", {"protocolVersion": 1, "clientCapabilities": {"subagents": {}}})
    else:
        await conn.initialize(protocol_version=1)
    return str((await conn.new_session(cwd=str(project), mcp_servers=[])).session_id)


@pytest.mark.parametrize("children", [False, True], ids=["nested", "child-sessions"])
async def test_compare_in_the_every_agent_entry_keeps_codexs_answer_and_goes_on_with_codex(
    tmp_path: Path, children: bool
) -> None:
    with two_candidates(tmp_path) as (project, both, claude, codex):
        env = {**both, "ACP_MUX_AGENTS": "claude,codex", "ACP_MUX_DEFAULT_AGENT": "claude"}
        seen_before_pick: list[bool] = []

        def choose(options: list[Any], call: Any) -> str | None:
            seen_before_pick.append((project / "answer.txt").exists())
            return keep_codex(options, call)

        client = RecordingClient(choose=choose)
        args = ["-m", "acp_mux", "--agent", "auto", "--log-file", str(tmp_path / "acp-mux.log")]
        async with acp.spawn_agent_process(
            client, sys.executable, *args, env=env, cwd=str(project), transport_kwargs={"stderr": None}
        ) as (conn, _):
            wire = Wire(conn)
            sid = await open_session(conn, project, children)
            text = f"/compare claude codex --check 'grep -q codex answer.txt' {PROMPT}"
            result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), TIMEOUT)
            assert result.stop_reason == "end_turn", (tmp_path / "acp-mux.log").read_text()[-3000:]
            assert (project / "answer.txt").read_text() == "from codex\n"
            assert seen_before_pick and not any(seen_before_pick)  # nothing reached the folder before the pick
            report = "".join(
                u["content"]["text"] for u in wire.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"
            )
            assert "| claude | end_turn |" in report and "| codex | end_turn |" in report
            assert "failed" in report and "passed" in report  # the check failed in claude's copy, passed in codex's
            assert "+from claude" in report and "+from codex" in report
            assert "Kept codex's change: answer.txt." in report
            if children:  # each candidate's own calls in its child session
                for agent in ("claude", "codex"):
                    child = child_session_id(sid, f"compare:{agent}")
                    assert any(u["sessionUpdate"] == "tool_call" for u in wire.updates(child)), agent
            else:
                nested = [u for u in wire.updates(sid) if u["sessionUpdate"] == "tool_call" and ":" in u["toolCallId"]]
                parents = {(u.get("_meta") or {}).get("parent_tool_call", {}).get("tool_call_id") for u in nested}
                assert {"compare:claude", "compare:codex"} <= parents

            # the next prompt goes to codex, which is handed the comparison's turn
            before = len(codex.requests)
            follow = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Thanks.")]), TIMEOUT)
            assert follow.stop_reason == "end_turn"
            assert len(codex.requests) > before and len(claude.requests) == 2
            assert "answer.txt" in str(codex.requests[-1])

        compare_root = tmp_path / "state" / "compare"
        assert not compare_root.exists() or list(compare_root.iterdir()) == []
        deadline = time.monotonic() + 2.0
        while ours(tmp_path / "home") and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert ours(tmp_path / "home") == []

        # session/load shows the comparison again
        replay = RecordingClient()
        async with acp.spawn_agent_process(
            replay, sys.executable, *args, env=env, cwd=str(project), transport_kwargs={"stderr": None}
        ) as (conn2, _):
            await conn2.initialize(protocol_version=1)
            await conn2.load_session(session_id=sid, cwd=str(project), mcp_servers=[])
        ids = {u.tool_call_id for u in replay.of("tool_call")}
        assert {"compare:claude", "compare:codex"} <= ids
        assert "Kept codex's change" in replay.text()

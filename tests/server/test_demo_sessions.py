"""The session log end to end with the bundled scripted agent behind real ``acp-mux`` processes: a session is
stored, exported (by the CLI) byte for byte the same twice, replayed by a new bridge to what the editor saw live,
survives a torn last line; tool progress reaches the editor; a question pending when the editor reopens the
session is asked again and its answer reaches the agent."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import acp
import pytest

from acp_mux.server.records.event_log import read_envelopes
from acp_mux.server.records.store import SessionStore
from tests.server.client import RecordingClient, bridge
from tests.server.test_recorded_sessions import assert_gap_free, conversation
from tests.server.test_wire import Wire, agent_text


def as_dicts(client: RecordingClient) -> list[dict[str, Any]]:
    return [u.model_dump(mode="json", by_alias=True, exclude_none=True) for u in client.updates]


def cli(state_dir: str, *args: str) -> bytes:
    env = {"ACP_MUX_STATE_DIR": state_dir, "PATH": "/usr/bin:/bin", "SCRIPTED_AGENT_ECHO": "1"}
    return subprocess.run(
        [sys.executable, "-m", "acp_mux", "sessions", *args], env=env, capture_output=True, check=True, timeout=60
    ).stdout


async def load_updates(work: dict[str, str], session_id: str) -> list[dict[str, Any]]:
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        await conn.initialize(protocol_version=1)
        await conn.load_session(session_id=session_id, cwd=work["cwd"], mcp_servers=[])
        return as_dicts(client)


@pytest.mark.asyncio
async def test_a_demo_session_is_logged_exported_and_replayed_as_it_was_shown(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        init = await conn.initialize(protocol_version=1)
        assert init.protocol_version == 1
        sid = (await conn.new_session(cwd=work["cwd"], mcp_servers=[])).session_id
        client.updates.clear()
        for text in ("write the demo", "shell", "progress"):
            result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), 30)
            assert result.stop_reason == "end_turn"
        live = as_dicts(client)
    log = SessionStore(Path(work["state_dir"])).log_path(sid)
    assert len(assert_gap_free(log)) == 1  # the demo keeps one process for the session: one run
    first = cli(work["state_dir"], "export", sid)
    assert first == cli(work["state_dir"], "export", sid[:20]) == log.read_bytes()
    shown = cli(work["state_dir"], "show", sid).decode()
    for expected in (
        "## You\nwrite the demo",
        "I'll create notes.txt",
        "> tool [edit] Write notes.txt",
        "[approved by user, once]",
        "searched 2 of 3 sources",
        "--- turn ended: end_turn",
    ):
        assert expected in shown
    replayed = await load_updates(work, sid)
    assert [u["content"]["text"] for u in replayed if u["sessionUpdate"] == "user_message_chunk"] == [
        "write the demo",
        "shell",
        "progress",
    ]
    expected = conversation(live)
    assert conversation(replayed) == expected
    # the Write's diff is the one shown live (a new file), not one against today's notes.txt
    write_diffs = [
        c for u in replayed for c in u.get("content") or [] if isinstance(c, dict) and c.get("type") == "diff"
    ]
    assert write_diffs[0]["newText"] == "alpha\nbeta\n" and write_diffs[0].get("oldText") is None
    with open(log, "ab") as fh:  # a bridge killed mid-write
        fh.write(b'{"schema_version":"1","event_id":"01TORN","run_id":"x","se')
    assert conversation(await load_updates(work, sid)) == expected


@pytest.mark.asyncio
async def test_tool_progress_reaches_the_editor_in_meta_and_does_not_end_the_turn(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=work["cwd"], mcp_servers=[])).session_id
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("progress")]), 30)
    assert result.stop_reason == "end_turn"
    updates = as_dicts(client)
    (call,) = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    assert (call["title"], call["kind"]) == ("Search docs: event logs", "search")
    mine = [u for u in updates if u.get("toolCallId") == call["toolCallId"]]
    progress = [u["_meta"]["tool_call_progress"] for u in mine if "tool_call_progress" in (u.get("_meta") or {})]
    assert progress == [
        {
            "schema": "tool-call-progress.v1",
            "call_id": call["toolCallId"],
            "status": "running",
            "progress": float(n),
            "total": 3.0,
            "message": f"searched {n} of 3 sources",
        }
        for n in (1, 2, 3)
    ]
    statuses = [u["status"] for u in mine if u.get("status")]
    assert statuses == ["pending", "in_progress", "completed"]  # running while it reports, completed by its result
    assert "Found what I needed." in client.text()


@pytest.mark.parametrize("reopen", ["session/load", "session/resume"])
def test_a_question_pending_when_the_editor_reopens_the_session_is_asked_again(tmp_path, reopen) -> None:
    wire = Wire(tmp_path)
    try:
        sid = wire.open_session()
        wire.prompt(3, sid, "write the demo")
        asked = wire.next(lambda m: m.get("method") == "session/request_permission")
        wire.send({"id": 4, "method": reopen, "params": {"sessionId": sid, "cwd": str(tmp_path), "mcpServers": []}})
        wire.next(lambda m: m.get("id") == 4 and "method" not in m)
        withdrawn = wire.next(lambda m: m.get("method") == "$/cancel_request")
        assert withdrawn["params"] == {"requestId": asked["id"]}
        again = wire.next(lambda m: m.get("method") == "session/request_permission")
        assert again["id"] != asked["id"]
        assert again["params"]["toolCall"]["toolCallId"] == asked["params"]["toolCall"]["toolCallId"]
        tool_id = asked["params"]["toolCall"]["toolCallId"]
        shown = [m["params"]["update"] for m in wire.seen if m.get("method") == "session/update"]
        announced = [u for u in shown if u["sessionUpdate"] == "tool_call" and u["toolCallId"] == tool_id]
        assert len(announced) == (2 if reopen == "session/load" else 1)  # load replayed the call asked about
        allow = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
        wire.send({"id": again["id"], "result": allow})
        while True:  # the later questions (Edit, the shell command) are answered as they come
            message = wire.next(
                lambda m: m.get("method") == "session/request_permission" or (m.get("id") == 3 and "method" not in m),
                timeout=20,
            )
            if "method" not in message:
                break
            wire.send({"id": message["id"], "result": allow})
        assert message.get("result", {}).get("stopReason") == "end_turn", message
        assert "Done: notes.txt now reads alpha, gamma." in agent_text(wire.seen)
    finally:
        wire.close()
    assert (tmp_path / "notes.txt").read_text() == "alpha\ngamma\n"  # the answer reached the agent
    envs = list(read_envelopes(SessionStore(tmp_path / "state").log_path(sid)))
    resolved = [e["data"] for e in envs if e["type"] == "approval.resolved"]
    assert [r["decision"] for r in resolved] == ["approved"] * 3 and {r["by"] for r in resolved} == {"user"}

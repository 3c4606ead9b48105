"""Fault class 9 through the real stdio with the bundled scripted agent: deterministic, no third-party CLI.

(tests/faults/test_model_failures.py does the same on the real claude, codex and gemini against a failing fake
model endpoint.) A turn that fails must end as a failure the editor can tell apart — a JSON-RPC error with the
agent's message, never ``end_turn`` — with what streamed before still shown, and the session must take the next
prompt. An agent killed by a signal is named as such, not as "exit code -1".
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import acp

from tests.faults.raw import RawBridge
from tests.faults.test_jsonrpc_wire import error_of
from tests.faults.test_permissions_wire import prompt
from tests.server.client import RecordingClient, bridge as sdk_bridge


def test_a_turn_the_model_failed_is_a_json_rpc_error_and_keeps_what_streamed(tmp_path: Path) -> None:
    raw = RawBridge(tmp_path)
    raw.initialize()
    sid = raw.new_session()
    error = error_of(prompt(raw, sid, "modeldown"))
    assert error["code"] == -32603 and "500 Internal Server Error" in error["message"]
    assert error["data"]["recoverable"] is True  # the session takes the next prompt
    shown = raw.text(sid)
    assert "Here is the first half of" in shown
    assert "500 Internal Server Error" not in shown  # shown once: by the error the editor shows, not also as text
    assert prompt(raw, sid, "hi")["result"]["stopReason"] == "end_turn"
    assert raw.serves()
    assert raw.close() == 0


def test_an_agent_killed_by_a_signal_is_named_and_the_session_goes_on(tmp_path: Path) -> None:
    raw = RawBridge(tmp_path)
    raw.initialize()
    sid = raw.new_session()
    error = error_of(prompt(raw, sid, "sigkill"))
    assert error["code"] == -32603 and "killed by SIGKILL" in error["message"], error
    assert error["data"]["signal"] == "SIGKILL" and error["data"]["exitCode"] is None
    assert "exit code -1" not in raw.text(sid) and "Working on it" in raw.text(sid)
    assert prompt(raw, sid, "hi")["result"]["stopReason"] == "end_turn"  # a new agent process
    assert raw.close() == 0


async def test_sdk_client_sees_a_failed_turn_as_a_request_error(tmp_path: Path) -> None:
    client = RecordingClient()
    (tmp_path / "project").mkdir()
    async with sdk_bridge(
        client, "--agent", "demo", cwd=str(tmp_path / "project"), state_dir=str(tmp_path / "state")
    ) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=None)
        sid = (await conn.new_session(cwd=str(tmp_path / "project"), mcp_servers=[])).session_id
        try:
            result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("modeldown")]), 20)
            raise AssertionError(f"a failed turn ended {result.stop_reason!r}")
        except acp.RequestError as err:
            assert "500 Internal Server Error" in str(err)
        assert "Here is the first half of" in client.text()
        again = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hi")]), 20)
        assert again.stop_reason == "end_turn"

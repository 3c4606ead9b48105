"""Fault class 8 through the real stdio: a session store whose files were tampered with, as the editor meets it.

tests/server/test_store.py proves the store's rules one by one; here ``acp-mux`` itself (demo agent, raw client)
starts on a state directory holding corrupt records, a planted symlink and hostile ids, and must still list, load
and prompt the good session, refuse the bad ids readably, and write nothing outside its store.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import acp
import pytest

from tests.faults.raw import RawBridge
from tests.faults.test_jsonrpc_wire import error_of


def _one_session(root: Path) -> str:
    """A session with one finished turn, in ``root``'s store, by a bridge that then exits normally."""
    bridge = RawBridge(root)
    bridge.initialize()
    sid = bridge.new_session()
    assert (
        bridge.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}, 30)[
            "stopReason"
        ]
        == "end_turn"
    )
    assert bridge.close() == 0
    return sid


def test_corrupt_records_are_skipped_and_the_good_session_lists_loads_and_goes_on(tmp_path: Path) -> None:
    sid = _one_session(tmp_path)
    sessions = tmp_path / "state" / "sessions"
    (sessions / "broken.json").write_text("{not json")
    (sessions / "list.json").write_text("[1, 2]")
    (sessions / "types.json").write_text(json.dumps({"session_id": "types", "agent": "demo", "cwd": 7}))
    (sessions / "escape.json").write_text(json.dumps({"session_id": "../../escape", "agent": "demo", "cwd": "/"}))
    with open(sessions / f"{sid}.events.jsonl", "a") as log:
        log.write('{"torn line\n[]\n')

    bridge = RawBridge(tmp_path)
    bridge.initialize()
    listed = bridge.result("session/list", {})
    assert [s["sessionId"] for s in listed["sessions"]] == [sid]
    bridge.result("session/load", {"sessionId": sid, "cwd": str(bridge.cwd), "mcpServers": []})
    assert "hi" in json.dumps(bridge.updates(sid))  # the old conversation is shown again
    again = bridge.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "more"}]}, 30)
    assert again["stopReason"] == "end_turn"
    assert bridge.close() == 0
    assert not (tmp_path / "escape").exists() and not (tmp_path.parent / "escape").exists()
    log = (tmp_path / "acp-mux.log").read_text()
    assert "broken.json" in log and "escape.json" in log  # skipped with a warning, not silently


def test_ids_that_could_be_paths_are_refused_readably(tmp_path: Path) -> None:
    bridge = RawBridge(tmp_path)
    bridge.initialize()
    for bad in ("../escape", "..", "a/b", ".hidden", "x" * 200):
        for method in ("session/load", "session/resume"):
            error = error_of(bridge.call(method, {"sessionId": bad, "cwd": str(bridge.cwd), "mcpServers": []}))
            assert error["code"] in (-32602, -32002), (method, bad, error)
    assert bridge.serves()
    assert bridge.close() == 0
    assert not (tmp_path / "escape").exists() and not (tmp_path / "state" / "escape.json").exists()


def test_a_planted_symlink_is_never_written_through(tmp_path: Path) -> None:
    sid = _one_session(tmp_path)
    outside = tmp_path / "precious.txt"
    outside.write_text("precious\n")
    events = tmp_path / "state" / "sessions" / f"{sid}.events.jsonl"
    events.unlink()
    events.symlink_to(outside)

    bridge = RawBridge(tmp_path)
    bridge.initialize()
    bridge.result("session/load", {"sessionId": sid, "cwd": str(bridge.cwd), "mcpServers": []})
    again = bridge.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi again"}]}, 30)
    assert again["stopReason"] == "end_turn"  # the session goes on; only its log is not kept
    assert bridge.serves()
    assert bridge.close() == 0
    assert outside.read_text() == "precious\n"


# ── issue 21 class 4: special files, an unwritable store ───────────────────────────────────────────────────────
def test_fifos_where_state_files_should_be_never_hang_the_bridge(tmp_path: Path) -> None:
    sid = _one_session(tmp_path)
    state = tmp_path / "state"
    os.mkfifo(state / "sessions" / "planted.json")  # a record nobody will ever write to
    log = state / "sessions" / f"{sid}.events.jsonl"
    log.unlink()
    os.mkfifo(log)
    os.mkfifo(state / "last-agent")

    bridge = RawBridge(tmp_path)
    bridge.initialize()
    started = time.monotonic()
    listed = bridge.result("session/list", {}, 10)
    assert [s["sessionId"] for s in listed["sessions"]] == [sid]
    bridge.result("session/load", {"sessionId": sid, "cwd": str(bridge.cwd), "mcpServers": []}, 10)
    again = bridge.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "more"}]}, 30)
    assert again["stopReason"] == "end_turn"
    assert time.monotonic() - started < 20
    assert bridge.close() == 0
    assert "is not a regular file" in (tmp_path / "acp-mux.log").read_text()


def _saving_notices(bridge: RawBridge, sid: str) -> int:
    return bridge.text(sid).count("not being saved")


def test_a_store_that_cannot_be_written_answers_every_turn_and_says_so_once(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "sessions").write_text("a file where the sessions folder should be\n")
    bridge = RawBridge(tmp_path)
    bridge.initialize()
    sid = bridge.new_session()
    for text in ("hi", "again", "once more"):
        answer = bridge.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}, 30)
        assert answer["stopReason"] == "end_turn", answer
        assert _saving_notices(bridge, sid) == 1  # shown at the first turn, never again
    assert bridge.close() == 0
    log = (tmp_path / "acp-mux.log").read_text()
    assert "could not be saved" in log or "not written" in log
    assert (state / "sessions").read_text() == "a file where the sessions folder should be\n"


@pytest.mark.e2e
async def test_real_claude_answers_with_an_unwritable_store_and_fifos_in_it_and_says_so_once(tmp_path: Path) -> None:
    """The real claude through the SDK client: ``sessions`` is a file (nothing can be saved) and a FIFO sits where
    the last agent is kept. session/new and the prompt are answered, the answer is shown, the notice once."""
    from tests.e2e.harness import RealAgent, require_cli
    from tests.server.client import RecordingClient

    agent = RealAgent("claude", require_cli("claude"), tmp_path)
    agent.serve("claude_text")
    state = tmp_path / "state"
    state.mkdir()
    (state / "sessions").write_text("a file where the sessions folder should be\n")
    os.mkfifo(state / "last-agent")
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await asyncio.wait_for(agent.session(conn), 30)
            result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Say hello.")]), 90)
    finally:
        agent.close()
    assert result.stop_reason == "end_turn"
    shown = client.text()
    assert shown.count("not being saved") == 1
    assert shown.replace("not being saved", "").strip(), "the agent's own answer is shown too"
    assert (state / "sessions").read_text() == "a file where the sessions folder should be\n"
    assert "could not be saved" in agent.log() or "not written" in agent.log()

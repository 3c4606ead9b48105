"""REPLAY tests for cursor, NOT end-to-end on the real CLI: ``acp-mux --agent cursor`` driven by the SDK client
against a fake ``cursor-agent`` (tests/fakes/fake_cursor_agent.py, on PATH through tests/fakes/bin) that replays
the scripted turns in tests/fixtures/cursor, written from Cursor's documented ACP shapes (see the README there).
cursor-agent itself cannot be installed here and talks only to Cursor's backend.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import acp
import pytest

from acp_mux.adapters.registry import ENTRIES, locate_binary
from tests.server.client import RecordingClient, bridge, final_statuses

FAKE_BIN = Path(__file__).resolve().parents[1] / "fakes" / "bin"
WRITE_EDIT = "Create notes.txt with the lines alpha and beta, then change beta to gamma."
TURN = 30


class Cursor:
    """One test's folders and environment: a private HOME (the fake keeps its sessions there), the project, the
    bridge's store; the fake cursor-agent first on PATH, and CURSOR_API_KEY only in the environment."""

    def __init__(self, root: Path, *, api_key: str | None = "fake-cursor-key") -> None:
        self.root, self.home, self.cwd = root, root / "home", root / "project"
        self.home.mkdir(parents=True, exist_ok=True)
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.env = {
            "HOME": str(self.home),
            "PATH": f"{FAKE_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "FAKE_CURSOR_PYTHON": sys.executable,
        }
        if api_key is not None:
            self.env["CURSOR_API_KEY"] = api_key

    def bridge(self, client: RecordingClient) -> Any:
        env = {k: v for k, v in {**os.environ, **self.env}.items() if k != "ACP_MUX_CURSOR_BIN"}
        if "CURSOR_API_KEY" not in self.env:
            env.pop("CURSOR_API_KEY", None)
        return bridge(
            client,
            "--agent",
            "cursor",
            "--log-level",
            "debug",
            "--log-file",
            str(self.root / "acp-mux.log"),
            cwd=str(self.cwd),
            state_dir=str(self.root / "state"),
            env=env,
        )

    async def session(self, conn: Any) -> str:
        await conn.initialize(protocol_version=1, client_capabilities=None)
        return (await conn.new_session(cwd=str(self.cwd), mcp_servers=[])).session_id

    def log(self) -> str:
        path = self.root / "acp-mux.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""


async def prompt(conn: Any, sid: str, text: str) -> Any:
    return await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), TURN)


def by_kind(options: list[Any], kind: str) -> str:
    return next(o.option_id for o in options if o.kind == kind)


async def test_replay_write_then_edit_allowed(tmp_path: Path) -> None:
    cursor = Cursor(tmp_path)
    client = RecordingClient(choose=lambda options, call: by_kind(options, "allow_once"))
    async with cursor.bridge(client) as (conn, _):
        sid = await cursor.session(conn)
        result = await prompt(conn, sid, WRITE_EDIT)
    assert result.stop_reason == "end_turn", cursor.log()
    assert (cursor.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
    assert "notes.txt now contains alpha and gamma" in client.text()
    starts = {u.tool_call_id: u for u in client.of("tool_call")}
    assert set(starts) == {"tool_write_1", "tool_edit_2"} and all(u.kind == "edit" for u in starts.values())
    assert final_statuses(client) == {"tool_write_1": "completed", "tool_edit_2": "completed"}
    asked = [call.tool_call_id for call, _ in client.permissions]
    assert asked == ["tool_write_1", "tool_edit_2"]  # each question about a call the editor was shown
    diffs = [
        c
        for u in client.updates
        if u.session_update in ("tool_call", "tool_call_update")
        for c in (u.content or [])
        if c.type == "diff"
    ]
    assert any(d.new_text == "alpha\ngamma\n" and d.old_text == "alpha\nbeta\n" for d in diffs)


async def test_replay_write_rejected_fails_the_call_though_cursor_says_completed(tmp_path: Path) -> None:
    """Cursor reports a rejected tool as ``completed`` (forum thread 153825, replayed): the editor sees it failed."""
    cursor = Cursor(tmp_path)
    client = RecordingClient(choose=lambda options, call: by_kind(options, "reject_once"))
    async with cursor.bridge(client) as (conn, _):
        sid = await cursor.session(conn)
        result = await prompt(conn, sid, WRITE_EDIT)
    assert result.stop_reason == "end_turn", cursor.log()
    assert not (cursor.cwd / "notes.txt").exists()
    assert [call.tool_call_id for call, _ in client.permissions] == ["tool_write_1"]
    assert final_statuses(client) == {"tool_write_1": "failed"}
    assert "rejected, so I stop here" in client.text()


async def test_replay_allow_always_is_answered_by_the_bridge_next_time(tmp_path: Path) -> None:
    cursor = Cursor(tmp_path)
    client = RecordingClient(choose=lambda options, call: by_kind(options, "allow_always"))
    async with cursor.bridge(client) as (conn, _):
        sid = await cursor.session(conn)
        result = await prompt(conn, sid, WRITE_EDIT)
    assert result.stop_reason == "end_turn", cursor.log()
    assert (cursor.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
    assert [call.tool_call_id for call, _ in client.permissions] == ["tool_write_1"]  # the edit was not asked again
    assert final_statuses(client) == {"tool_write_1": "completed", "tool_edit_2": "completed"}


async def test_replay_cancel_mid_stream_then_next_prompt_works(tmp_path: Path) -> None:
    cursor = Cursor(tmp_path)
    client = RecordingClient()
    async with cursor.bridge(client) as (conn, _):
        sid = await cursor.session(conn)
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Tell me a long story.")]))
        deadline = time.monotonic() + TURN
        while "Line 003" not in client.text():
            assert time.monotonic() < deadline and not turn.done(), cursor.log()
            await asyncio.sleep(0.02)
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 5)
        assert result.stop_reason == "cancelled"
        assert "Line 200" not in client.text()
        again = await prompt(conn, sid, "Remember the word pelican.")
        assert again.stop_reason == "end_turn"
        assert "I will remember that." in client.text()


async def test_replay_cancel_while_asking_answers_cancelled(tmp_path: Path) -> None:
    cursor = Cursor(tmp_path)
    client = RecordingClient(hold_permissions=True)
    async with cursor.bridge(client) as (conn, _):
        sid = await cursor.session(conn)
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block(WRITE_EDIT)]))
        await asyncio.wait_for(client.permission_event.wait(), TURN)
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 5)
    assert result.stop_reason == "cancelled"
    assert final_statuses(client)["tool_write_1"] == "failed"  # never left pending
    assert not (cursor.cwd / "notes.txt").exists()


async def test_replay_question_todos_task_and_plan(tmp_path: Path) -> None:
    """cursor/update_todos → plans, cursor/ask_question → a choice dialog whose pick goes back to cursor,
    cursor/task → a tool call, cursor/create_plan → a dialog (allow = accepted)."""
    cursor = Cursor(tmp_path)

    def choose(options: list[Any], call: Any) -> str:
        ids = [o.option_id for o in options]
        return "choice:unittest" if "choice:unittest" in ids else by_kind(options, "allow_once")

    client = RecordingClient(choose=choose)
    async with cursor.bridge(client) as (conn, _):
        sid = await cursor.session(conn)
        result = await prompt(conn, sid, "Make a test plan for this project.")
    assert result.stop_reason == "end_turn", cursor.log()
    assert "You picked unittest." in client.text() and "Plan accepted." in client.text()
    question, options = client.permissions[0]
    assert [o.name for o in options] == ["pytest", "unittest", "Skip this question"]
    assert question.tool_call_id == "tool_ask_1"
    plans = [[(e.content, e.status) for e in u.entries] for u in client.of("plan")]
    assert plans[0] == [("Pick a test framework", "in_progress"), ("Write the first test", "pending")]
    assert plans[1] == [("Pick a test framework", "completed"), ("Write the first test", "in_progress")]
    task = next(u for u in client.of("tool_call") if u.tool_call_id == "tool_task_1")
    assert "Survey the tests folder" in task.title
    statuses = final_statuses(client)
    # the question and the plan end when answered, not as "turn ended" failures
    assert statuses == {"tool_ask_1": "completed", "tool_task_1": "completed", "tool_plan_1": "completed"}, statuses
    shown = [
        c.content.text
        for u in client.of("tool_call_update")
        if u.tool_call_id == "tool_ask_1"
        for c in (u.content or [])
        if c.type == "content"
    ]
    assert "answered: unittest" in shown, shown
    assert [call.tool_call_id for call, _ in client.permissions] == ["tool_ask_1", "tool_plan_1"]


async def test_replay_question_skipped(tmp_path: Path) -> None:
    cursor = Cursor(tmp_path)
    client = RecordingClient(choose=lambda options, call: by_kind(options, "reject_once"))
    async with cursor.bridge(client) as (conn, _):
        sid = await cursor.session(conn)
        result = await prompt(conn, sid, "Make a test plan for this project.")
    assert result.stop_reason == "end_turn", cursor.log()
    assert "No answer, so I keep the default." in client.text() and "Plan rejected." in client.text()
    statuses = final_statuses(client)
    assert statuses["tool_ask_1"] == "failed" and statuses["tool_plan_1"] == "failed", statuses


async def test_replay_cancel_while_a_question_is_open(tmp_path: Path) -> None:
    """cursor/ask_question blocks cursor: a cancel answers it "cancelled" and the turn ends cancelled."""
    cursor = Cursor(tmp_path)
    client = RecordingClient(hold_permissions=True)
    async with cursor.bridge(client) as (conn, _):
        sid = await cursor.session(conn)
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Make a test plan.")]))
        await asyncio.wait_for(client.permission_event.wait(), TURN)
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 5)
        assert result.stop_reason == "cancelled"
        assert final_statuses(client)["tool_ask_1"] == "failed"
        client.hold_permissions = False
        assert (await prompt(conn, sid, "Remember the word heron.")).stop_reason == "end_turn"
    assert "You picked" not in client.text() and "No answer" not in client.text()


async def test_replay_not_signed_in_is_a_typed_auth_error(tmp_path: Path) -> None:
    cursor = Cursor(tmp_path, api_key=None)
    client = RecordingClient()
    async with cursor.bridge(client) as (conn, _):
        with pytest.raises(acp.RequestError) as err:
            sid = await cursor.session(conn)
            await prompt(conn, sid, "hello")
    assert err.value.code == -32000  # ACP auth_required: editors offer the login flow
    assert "--login" in str(err.value.data) or "CURSOR_API_KEY" in str(err.value.data), err.value.data


async def test_replay_session_survives_a_bridge_restart(tmp_path: Path) -> None:
    cursor = Cursor(tmp_path)
    first = RecordingClient()
    async with cursor.bridge(first) as (conn, _):
        sid = await cursor.session(conn)
        assert (await prompt(conn, sid, "Remember the word pelican.")).stop_reason == "end_turn"
    second = RecordingClient()
    async with cursor.bridge(second) as (conn, _):
        await conn.initialize(protocol_version=1)
        listed = await conn.list_sessions(cwd=str(cursor.cwd))
        assert [s.session_id for s in listed.sessions] == [sid]
        await conn.load_session(session_id=sid, cwd=str(cursor.cwd), mcp_servers=[])
        assert "pelican" in second.text("user_message_chunk")
        before = len(second.updates)
        assert (await prompt(conn, sid, "Which word?")).stop_reason == "end_turn"
        answer = "".join(u.content.text for u in second.updates[before:] if u.session_update == "agent_message_chunk")
    # the fake's own session was loaded: it answers from the first turn it kept
    assert answer == "You told me: Remember the word pelican.", answer


def test_agent_link_is_taken_only_when_it_is_cursor_agent(tmp_path: Path) -> None:
    """The installer's ``agent`` → …/cursor-agent link is accepted; any other ``agent`` is not (never run)."""
    row = ENTRIES["cursor"]
    real = tmp_path / "versions" / "2026.10.01-e373342" / "cursor-agent"
    real.parent.mkdir(parents=True)
    real.write_text("#!/bin/sh\n")
    real.chmod(0o755)
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.mkdir(), bad.mkdir()
    (good / "agent").symlink_to(real)
    (bad / "agent").write_text("#!/bin/sh\n")
    (bad / "agent").chmod(0o755)
    assert locate_binary(row, None, {"PATH": str(good)}) == (str(good / "agent"), None)
    path, problem = locate_binary(row, None, {"PATH": str(bad)})
    assert path is None and problem is not None and "not a link to cursor-agent" in problem
    assert locate_binary(row, None, {"PATH": str(FAKE_BIN)})[0] == str(FAKE_BIN / "cursor-agent")

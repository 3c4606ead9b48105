"""``/compare A B PROMPT`` in the every-agent entry, through the real bridge and the SDK client: each candidate
works in its own copy (shown as one call each, its own calls nested), the table and diffs, the one question, the
kept change in the folder and the conversation going on with that agent; cancel, keep none, bad input, replay.

The candidates are the bundled scripted agent under the names alpha, beta and gamma (tests/server/switching_agents.py):
real subprocesses writing real files, so every claim is checked on disk.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from collections.abc import Callable
from typing import Any

import acp
import pytest

from acp_mux.server.branches.compare_turn import KEEP_NONE, parse_compare
from tests.server.client import RecordingClient
from tests.server.switching_client import switching_bridge

TIMEOUT = 60


async def settled(check: Callable[[], object], seconds: float) -> None:
    """Wait until ``check()`` holds or ``seconds`` have passed; the test asserts what it needs afterwards."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not check() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)


def keeping(agent: str | None) -> Any:
    """A client's chooser: reject every candidate's command, keep ``agent``'s change (None: keep none)."""

    def choose(options: list[Any], call: Any) -> str | None:
        ids = [o.option_id for o in options]
        if KEEP_NONE in ids:
            return f"compare-keep:{agent}" if agent else KEEP_NONE
        return next(o.option_id for o in options if o.kind == "reject_once")

    return choose


def copies(root: Path) -> list[Path]:
    folder = root / "state" / "compare"
    return list(folder.iterdir()) if folder.exists() else []


@pytest.mark.asyncio
async def test_each_candidate_works_in_its_copy_and_the_kept_change_lands_and_the_conversation_goes_on(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    asked_before: list[bool] = []
    keep_beta = keeping("beta")

    def watching(options: list[Any], call: Any) -> str | None:
        asked_before.append((project / "notes.txt").exists())
        return keep_beta(options, call)

    client = RecordingClient(choose=watching)
    async with switching_bridge(client, tmp_path) as (conn, _, sid):
        await settled(lambda: client.of("available_commands_update"), 5)  # once the agent's warm start shows them
        commands = [c.name for u in client.of("available_commands_update") for c in u.available_commands]
        assert "compare" in commands
        result = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[acp.text_block("/compare alpha beta write the notes")]), TIMEOUT
        )
        assert result.stop_reason == "end_turn"
        assert (project / "notes.txt").read_text() == "alpha\ngamma\n"
        assert asked_before and not any(asked_before)  # nothing reached the folder before the last answer
        calls = {u.tool_call_id: u for u in client.of("tool_call")}
        assert calls["compare:alpha"].kind == "think" and calls["compare:beta"].kind == "think"
        nested = [u for u in client.of("tool_call") if u.tool_call_id.startswith(("alpha:", "beta:"))]
        assert {u.tool_call_id.split(":")[0] for u in nested} == {"alpha", "beta"}
        assert all(
            (u.field_meta or {}).get("parent_tool_call", {}).get("tool_call_id", "").startswith("compare:")
            for u in nested
        )
        text = client.text()
        assert "| alpha | end_turn |" in text and "| beta | end_turn |" in text and "+gamma" in text
        assert "Kept beta's change: notes.txt." in text and "Now talking to Scripted beta." in text
        keep_question = client.permissions[-1]
        assert [o.option_id for o in keep_question[1]] == ["compare-keep:alpha", "compare-keep:beta", KEEP_NONE]
        assert copies(tmp_path) == []

        # the conversation goes on with beta, which is handed the comparison's turn
        agent_option = next(u for u in client.of("config_option_update"))
        assert agent_option is not None
        follow = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hello again")]), TIMEOUT)
        assert follow.stop_reason == "end_turn"
        assert "**Scripted beta:**" in client.text()

        # session/load shows the comparison again: the candidates' calls and the report
        replay = RecordingClient()
    async with switching_bridge(replay, tmp_path) as (conn2, _, _sid):
        await conn2.load_session(session_id=sid, cwd=str(project), mcp_servers=[])
        ids = {u.tool_call_id for u in replay.of("tool_call")}
        assert {"compare:alpha", "compare:beta"} <= ids
        assert "| beta | end_turn |" in replay.text()


@pytest.mark.asyncio
async def test_keep_none_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    client = RecordingClient(choose=keeping(None))
    async with switching_bridge(client, tmp_path) as (conn, _, sid):
        result = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[acp.text_block("/compare alpha gamma write the notes")]), TIMEOUT
        )
    assert result.stop_reason == "end_turn"
    assert not (tmp_path / "project" / "notes.txt").exists()
    assert "Kept none" in client.text() and copies(tmp_path) == []


@pytest.mark.asyncio
async def test_cancel_stops_every_candidate_answers_cancelled_and_leaves_no_copy(tmp_path: Path) -> None:
    client = RecordingClient(choose=keeping("alpha"))
    async with switching_bridge(client, tmp_path) as (conn, _, sid):
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("/compare alpha beta hang")]))
        await settled(
            lambda: (
                len(copies(tmp_path)) == 1 and any(u.tool_call_id == "compare:beta" for u in client.of("tool_call"))
            ),
            10,
        )
        await asyncio.sleep(0.5)
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, TIMEOUT)
    assert result.stop_reason == "cancelled"
    assert copies(tmp_path) == []


@pytest.mark.asyncio
async def test_a_cancel_takes_back_a_candidates_open_question_and_answers_cancelled(tmp_path: Path) -> None:
    """Each candidate's command question is asked in the editor like the agent's own, named for its candidate; a
    cancel while they are open takes them back, asks nothing more, and the turn answers ``cancelled`` with no copy
    left."""
    client = RecordingClient(hold_permissions=True)
    async with switching_bridge(client, tmp_path) as (conn, _, sid):
        turn = asyncio.ensure_future(
            conn.prompt(session_id=sid, prompt=[acp.text_block("/compare alpha beta write the notes")])
        )
        await settled(
            lambda: len(client.permissions) == 2, TIMEOUT
        )  # each candidate asks about its command, both at once
        titles = sorted(call.title.split("]")[0] for call, _ in client.permissions)
        assert titles == ["[alpha", "[beta"]
        assert all(call.tool_call_id.startswith("compare-question:") for call, _ in client.permissions)
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 10)
    assert result.stop_reason == "cancelled"
    assert len(client.permissions) == 2  # nothing more was asked after the cancel
    assert copies(tmp_path) == []


@pytest.mark.asyncio
async def test_a_wrong_command_is_a_clear_error_and_the_session_goes_on(tmp_path: Path) -> None:
    client = RecordingClient()
    async with switching_bridge(client, tmp_path) as (conn, _, sid):
        for text in ("/compare alpha write", "/compare alpha alpha x", "/compare alpha beta", "/compare nope beta x"):
            with pytest.raises(acp.RequestError) as refused:
                await conn.prompt(session_id=sid, prompt=[acp.text_block(text)])
            assert refused.value.code == -32602 and "Usage: /compare" in str(refused.value)
        result = await conn.prompt(session_id=sid, prompt=[acp.text_block("hello")])
        assert result.stop_reason == "end_turn"


def test_the_command_line_is_read_as_written() -> None:
    names = ["claude", "codex", "gemini"]
    request = parse_compare('/compare claude codex --check "pytest -q" --judge gemini fix the bug', names)
    assert (request.agents, request.check, request.judge, request.prompt) == (
        ["claude", "codex"],
        "pytest -q",
        "gemini",
        "fix the bug",
    )
    for bad in ("/compare claude", "/compare claude codex --check", '/compare claude codex "unclosed', "/compare"):
        with pytest.raises(ValueError, match="Usage"):
            parse_compare(bad, names)


@pytest.mark.asyncio
async def test_a_killed_bridge_leaves_no_candidate_running_and_the_next_one_removes_the_copies(tmp_path: Path) -> None:
    import os
    import signal

    from tests.server.switching_client import agent_groups

    client = RecordingClient(choose=keeping("alpha"))
    async with switching_bridge(client, tmp_path) as (conn, proc, sid):
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("/compare alpha beta hang")]))
        await settled(
            lambda: len(copies(tmp_path)) == 1 and sum(len(g) for g in agent_groups(proc.pid).values()) >= 2, 10
        )
        assert copies(tmp_path), "the comparison never started"
        candidates = [pid for group in agent_groups(proc.pid).values() for pid in group]
        os.kill(proc.pid, signal.SIGKILL)
        turn.cancel()
    await asyncio.sleep(2.0)
    alive = [pid for pid in candidates if os.path.exists(f"/proc/{pid}") and b"zombie" not in _state(pid)]
    assert alive == []
    assert len(copies(tmp_path)) == 1  # left by the killed bridge ...
    async with switching_bridge(RecordingClient(), tmp_path) as (_conn2, _, _sid2):
        await settled(lambda: not copies(tmp_path), 5)
    assert copies(tmp_path) == []  # ... removed by the next one


def _state(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            return fh.read().lower()
    except OSError:
        return b"zombie"

"""Issue 39, leftover: ``resume=`` from Python of a fork whose agent cannot make its own fork falls back to the
handover exactly as the editor path does (before: the API turn failed with the agent's "No conversation found").

The scripted agent with ``SCRIPTED_AGENT_FORK_FAILS`` exits as claude does when ``--resume ID --fork-session`` names
a session it no longer has. The editor path's own answer to the same fork (a copy of the same store) is the measure:
the same turns handed over, once; the same line in the conversation and the log; the fork gets its own session.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import acp
import pytest

import acp_mux
from acp_mux.adapters import registry
from tests.api.test_rules_given_in_code import editor_story, handover
from tests.server.client import RecordingClient
from tests.server.switching_agents import install
from tests.server.switching_client import switching_bridge

pytestmark = pytest.mark.asyncio

SAYS = "could not fork its own session; the conversation so far is handed over to a new one instead."


@pytest.fixture(autouse=True, scope="module")
def scripted_agents() -> Iterator[None]:
    """alpha, beta, gamma (tests/server/switching_agents.py) in the agent table for this module's tests only."""
    before = registry.ENTRIES
    install()
    yield
    registry.ENTRIES = before


async def editor_reply(root: Path, session_id: str, text: str, fails: str) -> str:
    """The editor path's answer in the fork, its agent's own fork failing: the text the editor is shown."""
    client = RecordingClient()
    async with switching_bridge(client, root, SCRIPTED_AGENT_FORK_FAILS=fails) as (conn, _, _new):
        await conn.load_session(session_id=session_id, cwd=str(root / "project"), mcp_servers=[])
        start = len(client.updates)
        answer = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[acp.text_block(text)]), 60)
        assert answer.stop_reason == "end_turn"
    return "".join(u.content.text for u in client.updates[start:] if u.session_update == "agent_message_chunk")


def shown(root: Path, session_id: str) -> str:
    """``acp-mux sessions show``: what the log says of the session."""
    return subprocess.run(
        [sys.executable, "-m", "acp_mux", "sessions", "show", session_id],
        env={**os.environ, "ACP_MUX_STATE_DIR": str(root / "state")},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout


def record_of(root: Path, session_id: str) -> dict[str, Any]:
    return json.loads((root / "state" / "sessions" / f"{session_id}.json").read_text())


@pytest.mark.parametrize("fails", ["1", "answer"])
async def test_resume_of_a_fork_whose_agent_cannot_fork_hands_the_conversation_over_as_the_editor_does(
    tmp_path: Path, fails: str
) -> None:
    """The agent's fork fails as claude's does: its run exits at once ("1"), or its process answers the prompt with
    the error and waits for the next ("answer")."""
    root, twin = tmp_path / "root", tmp_path / "twin"
    root.mkdir()
    fork, _ = await editor_story(root, before=2, switch=False, fork_to=None)  # claude-like: the agent's own fork
    assert record_of(root, fork)["native_fork_from"] and not record_of(root, fork)["native_session_id"]
    shutil.copytree(root, twin)
    by_editor = await editor_reply(twin, fork, "and from here?", fails)

    updates: list[Any] = []
    events: list[Any] = []
    async with acp_mux.run(
        None,
        "and from here?",
        resume=fork,
        state_dir=root / "state",
        binary=sys.executable,
        env={**os.environ, "SCRIPTED_AGENT_FORK_FAILS": fails},
    ) as run:
        run.on_update = updates.append  # the ACP updates an editor would get
        async for event in run:
            events.append(event)
        result = run.result
    assert result is not None and result.stop_reason == "end_turn" and result.error is None, result

    # the same turns handed over as the editor path hands over, before the person's message
    assert (
        handover(result.text) == handover(by_editor) == ([("turn 0", "alpha"), ("turn 1", "alpha")], "and from here?")
    )
    # what the caller is told: the line, as a warning event, in place of the failed fork's crash
    warnings = [e.message for e in events if e.type == "debug" and e.level == "warn"]
    assert len(warnings) == 1 and SAYS in warnings[0], warnings
    assert not [e for e in events if e.type in ("crash", "error")], events
    assert [e.type for e in events].count("turn_end") == 1
    assert SAYS in by_editor and any(SAYS in u["content"]["text"] for u in updates if "content" in u)
    # the log says so as the editor's does, once; the fork now has its own session, not the original's
    for store in (root, twin):
        assert shown(store, fork).count(SAYS) == 1
        record = record_of(store, fork)
        assert record["native_fork_from"] is None and record["native_session_id"], record

    # handed over once: the next turn goes to the fork's own new session with nothing handed over again
    async with acp_mux.run(None, "once more", resume=fork, state_dir=root / "state", binary=sys.executable) as run:
        again = await run.wait()
    assert again.stop_reason == "end_turn" and "earlier-conversation" not in again.text
    assert again.native_session_id == result.native_session_id == record_of(root, fork)["native_session_id"]


async def test_a_fork_whose_agent_forked_before_its_turn_failed_fails_as_any_turn(tmp_path: Path) -> None:
    """Only the agent's own fork failing falls back: when the agent made its fork (it started its session) and the
    turn fails after that, the failure is the turn's, passed on as it came, and nothing is sent again."""
    fork, _ = await editor_story(tmp_path, before=1, switch=False, fork_to=None)
    events: list[Any] = []
    async with acp_mux.run(None, "crash now", resume=fork, state_dir=tmp_path / "state", binary=sys.executable) as run:
        async for event in run:
            events.append(event)
        failed = run.result
    assert failed is not None and failed.stop_reason == "error" and failed.error is not None, failed
    assert "exited unexpectedly" in failed.error.message and [e.type for e in events].count("crash") == 1
    assert not [e for e in events if e.type == "debug" and e.level == "warn"]
    assert SAYS not in shown(tmp_path, fork)
    record = record_of(tmp_path, fork)
    assert record["native_fork_from"] is None and record["native_session_id"] == failed.native_session_id, record

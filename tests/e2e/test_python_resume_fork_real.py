"""Issue 39, class 5, on the real CLIs: ``resume=`` from Python of a session an editor forked hands the agent the
same conversation the editor path would. A claude session with one turn is forked in the editor (claude's own fork,
``--resume ID --fork-session``, not made yet when the editor leaves) and resumed from Python: claude's model
request carries the earlier turn as its own history, the fork gets its own claude session, and the original's
next prompt carries nothing said in the fork. Forked into codex instead, the Python run hands codex the earlier
turn, once (before: both agents started empty, the turns copied into the fork never reached them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import acp_mux
from tests.e2e.harness import ClaudeAndCodex, require_cli
from tests.e2e.test_fork_real import (
    CLAUDE_SAID,
    FIRST,
    NEXT,
    AFTER,
    META,
    claude_answers,
    ends_its_turn,
    first_turn,
    record_of,
)
from tests.e2e.test_switching import request_with
from tests.faults.test_handover_forgery import read_back
from tests.e2e.test_switching_handover import strings
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]


async def python_turn(agents: ClaudeAndCodex, session_id: str, words: str) -> acp_mux.TurnResult:
    async with acp_mux.run(None, words, resume=session_id, env=agents.env(), state_dir=agents.root / "state") as run:
        return await run.wait()


@pytest.mark.parametrize("into", [None, "codex"])
async def test_python_resumes_an_editors_fork_with_the_conversation_the_editor_would_give(
    tmp_path: Path, into: str | None
) -> None:
    require_cli("codex")
    agents = ClaudeAndCodex("auto", require_cli("claude"), tmp_path)
    server, state = claude_answers(agents)
    client = RecordingClient()
    try:
        async with agents.bridge(client) as (conn, _):
            sid = await first_turn(agents, conn)
            meta = {META: {"agent": into}} if into else {}
            fid = (await conn.fork_session(session_id=sid, cwd=str(agents.cwd), **meta)).session_id
        result = await python_turn(agents, fid, NEXT)
        assert result.stop_reason == "end_turn", (result, agents.log()[-3000:])
        asked = request_with(server, NEXT)
        body = json.dumps(asked["body"])
        if into is None:  # claude's own fork: the earlier turn as real history, no handover
            assert FIRST in body and CLAUDE_SAID in body and "earlier-conversation" not in body
            original, fork = record_of(state, sid), record_of(state, fid)
            assert fork["native_session_id"] and fork["native_session_id"] != original["native_session_id"]
            assert fork["native_fork_from"] is None
        else:  # codex is handed the earlier turn, once, as quoted data before the person's message
            handed = [s for s in strings(asked["body"]) if NEXT in s and "earlier-conversation" in s]
            assert len(handed) == 1, strings(asked["body"])
            records, message = read_back(handed[0][handed[0].index("<earlier-conversation") :])
            assert [(r["person"], r["agent"]) for r in records] == [(FIRST, "claude")] and message.strip() == NEXT
        async with agents.bridge(RecordingClient()) as (conn, _):  # the original goes on without the fork's words
            await conn.initialize(protocol_version=1)
            await conn.load_session(session_id=sid, cwd=str(agents.cwd), mcp_servers=[])
            await ends_its_turn(agents, conn, sid, AFTER)
        again = json.dumps(request_with(server, AFTER)["body"])
        assert FIRST in again and NEXT not in again
    finally:
        agents.close()


@pytest.mark.parametrize("by", ["python", "editor"])
async def test_a_fork_whose_claude_cannot_fork_hands_the_conversation_over_from_python_as_in_the_editor(
    tmp_path: Path, by: str
) -> None:
    """The original's claude session file gone from the private HOME before the fork's first turn: claude's own fork
    (``--resume ID --fork-session``) fails with "No conversation found", and the turn falls back, from Python as in
    the editor (server/branches/fork_fallback.py; before, the Python turn failed with claude's error): claude is handed the
    earlier turn, once, as quoted data; the fork gets a new claude session of its own; the conversation and the log
    say the fork fell back."""
    agents = ClaudeAndCodex("auto", require_cli("claude"), tmp_path)
    server, state = claude_answers(agents)
    try:
        async with agents.bridge(RecordingClient()) as (conn, _):
            sid = await first_turn(agents, conn)
            fid = (await conn.fork_session(session_id=sid, cwd=str(agents.cwd))).session_id
        native = record_of(state, fid)["native_fork_from"]
        gone = list((agents.home / ".claude" / "projects").glob(f"*/{native}.jsonl"))
        assert len(gone) == 1, sorted(p.name for p in (agents.home / ".claude").rglob("*.jsonl"))
        gone[0].unlink()
        if by == "python":
            events: list[Any] = []
            async with acp_mux.run(None, NEXT, resume=fid, env=agents.env(), state_dir=state) as run:
                async for event in run:
                    events.append(event)
                result = run.result
            assert result is not None and result.stop_reason == "end_turn", (result, agents.log()[-3000:])
            warnings = [e.message for e in events if e.type == "debug" and e.level == "warn"]
            assert [w for w in warnings if "could not fork its own session" in w], warnings
            assert not [e for e in events if e.type in ("crash", "error")], events
        else:
            client = RecordingClient()
            async with agents.bridge(client) as (conn, _):
                await conn.initialize(protocol_version=1)
                await conn.load_session(session_id=fid, cwd=str(agents.cwd), mcp_servers=[])
                await ends_its_turn(agents, conn, fid, NEXT)
            assert client.text().count("could not fork its own session") == 1, client.text()
        body = request_with(server, NEXT)["body"]
        handed = [s for s in strings(body) if "earlier-conversation" in s]
        assert len(handed) == 1, handed
        records, message = read_back(handed[0][handed[0].index("<earlier-conversation") :])
        assert [(r["person"], r["agent"]) for r in records] == [(FIRST, "claude")]
        assert message.strip() in ("", NEXT) and NEXT in json.dumps(body)  # claude sends each prompt part apart
        assert CLAUDE_SAID in records[0]["reply"]
        fork = record_of(state, fid)
        assert fork["native_fork_from"] is None and fork["native_session_id"] not in (None, native)
        logged = (state / "sessions" / f"{fid}.events.jsonl").read_text()
        assert logged.count("could not fork its own session") == 1
        again = await python_turn(agents, fid, AFTER)  # handed over once: the fork's own claude session goes on
        assert again.stop_reason == "end_turn", (again, agents.log()[-3000:])
        body = request_with(server, AFTER)["body"]  # the fallback's turn as claude's own history, nothing handed again
        assert NEXT in json.dumps(body) and len([s for s in strings(body) if "<earlier-conversation" in s]) == 1
    finally:
        agents.close()

"""``session/fork`` on the real CLIs, driven by the SDK client (issue 24, part 2).

A claude session with one turn is forked into codex: codex's own model request carries claude's turn, handed over
as quoted data; the original claude session's files are not touched and it still loads with only its own turns.
A claude session forked in claude uses claude's own fork (``--resume ID --fork-session``): the model request of
the fork's first prompt holds the earlier turn as real history (no handover), the fork has its own native session,
and the original's next prompt carries nothing the fork was told.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import ClaudeAndCodex, RealAgent, require_cli
from tests.e2e.test_switching import prompt, request_with
from tests.e2e.test_switching_handover import strings
from tests.faults.test_handover_forgery import read_back
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

FIRST, CLAUDE_SAID = "Which file holds the notes?", "The notes live in notes.txt, as agreed."
NEXT, AFTER = "Fork question: what did claude say?", "Original again, after the fork."
META = "acp-mux"


def files_of(state: Path, session_id: str) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((state / "sessions").glob(f"{session_id}.*"))
    }


def record_of(state: Path, session_id: str) -> dict[str, Any]:
    return json.loads((state / "sessions" / f"{session_id}.json").read_text())


async def ends_its_turn(agent: RealAgent, conn: Any, sid: str, words: str) -> None:
    """One prompt turn, which must end ``end_turn`` (the bridge's log shown if not)."""
    assert (await prompt(conn, sid, words)).stop_reason == "end_turn", agent.log()[-3000:]


async def first_turn(agent: RealAgent, conn: Any) -> str:
    """A new session whose first prompt (FIRST) was answered: the session each test forks."""
    sid = await agent.session(conn)
    await ends_its_turn(agent, conn, sid, FIRST)
    return sid


def claude_answers(agent: RealAgent) -> tuple[Any, Path]:
    """The model server answering every request with claude's one reply (a fork's turn gets it too; any agent), and
    the bridge's state directory (the session records and logs a fork must leave or copy)."""
    reply = [{"blocks": [{"text": CLAUDE_SAID, "deltas": 2}]}]
    return agent.serve("switch_codex_reply", delta_delay=0, steps=reply, done_text=CLAUDE_SAID), agent.root / "state"


async def test_a_claude_session_forked_into_codex_carries_claudes_turn(tmp_path: Path) -> None:
    agents = ClaudeAndCodex("auto", require_cli("claude"), tmp_path)
    require_cli("codex")
    server, state = claude_answers(agents)
    client = RecordingClient()
    try:
        async with agents.bridge(client) as (conn, _):
            sid = await first_turn(agents, conn)
            before = files_of(state, sid)
            agents.rescript("switch_codex_reply", delta_delay=0)
            forked = await conn.fork_session(session_id=sid, cwd=str(agents.cwd), **{META: {"agent": "codex"}})
            fid = forked.session_id
            assert {o.id: o.current_value for o in forked.config_options}["agent"] == "codex"
            await ends_its_turn(agents, conn, fid, NEXT)
            assert files_of(state, sid) == before  # the original's record and log: byte for byte
            assert record_of(state, fid)["forked_from"] == sid and record_of(state, fid)["agent"] == "codex"
        body = request_with(server, NEXT)["body"]
        handed = [s for s in strings(body) if s.startswith("<earlier-conversation quoted-")]
        assert len(handed) == 1, json.dumps(body)[:3000]
        records, message = read_back(handed[0])
        assert [(r["person"], r["agent"]) for r in records] == [(FIRST, "claude")]
        assert CLAUDE_SAID in records[0]["reply"] and message.strip() == NEXT
    finally:
        agents.close()

    loader = RecordingClient()
    async with agents.bridge(loader) as (conn, _):
        await conn.initialize(protocol_version=1)
        listed = {s.session_id: s for s in (await conn.list_sessions(cwd=str(agents.cwd))).sessions}
        assert set(listed) == {sid, fid} and listed[fid].field_meta == {META: {"forkedFrom": sid}}
        await conn.load_session(session_id=sid, cwd=str(agents.cwd), mcp_servers=[])
        asked, answered = loader.text("user_message_chunk"), loader.text()
        assert FIRST in asked and NEXT not in asked and CLAUDE_SAID in answered and "**Codex:**" not in answered


@pytest.mark.parametrize("name", ["claude", "codex", "opencode", "omp", "hermes"])
async def test_a_fork_in_the_same_agent_is_the_agents_own_fork_with_the_history(tmp_path: Path, name: str) -> None:
    """claude (in an every-agent session, whose fork stays in claude): ``--resume ID --fork-session``; codex:
    app-server thread/fork; opencode, omp, hermes: ACP session/fork, forwarded."""
    agent = ClaudeAndCodex("auto", require_cli(name), tmp_path) if name == "claude" else RealAgent(name, require_cli(name), tmp_path)  # fmt: skip
    server, state = claude_answers(agent)
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await first_turn(agent, conn)
            fid = (await conn.fork_session(session_id=sid, cwd=str(agent.cwd))).session_id
            await ends_its_turn(agent, conn, fid, NEXT)
            await ends_its_turn(agent, conn, sid, AFTER)
            original, fork = record_of(state, sid), record_of(state, fid)
        assert "could not fork" not in client.text()
        assert fork["native_session_id"] and fork["native_session_id"] != original["native_session_id"]
        assert fork["native_fork_from"] is None and fork["forked_from"] == sid
        asked = json.dumps(request_with(server, NEXT)["body"])
        assert FIRST in asked and CLAUDE_SAID in asked and "earlier-conversation" not in asked  # the agent's fork
        again = json.dumps(request_with(server, AFTER)["body"])
        assert FIRST in again and NEXT not in again
    finally:
        agent.close()


async def test_a_fork_in_an_agent_without_its_own_fork_is_handed_the_conversation(tmp_path: Path) -> None:
    """gemini has no session/fork: the fork's first prompt carries the copied turns as the handover, once."""
    agent = RealAgent("gemini", require_cli("gemini"), tmp_path)
    server, state = claude_answers(agent)
    try:
        async with agent.bridge(RecordingClient()) as (conn, _):
            sid = await first_turn(agent, conn)
            before = files_of(state, sid)
            fid = (await conn.fork_session(session_id=sid, cwd=str(agent.cwd))).session_id
            await ends_its_turn(agent, conn, fid, NEXT)
            await ends_its_turn(agent, conn, fid, AFTER)
            assert files_of(state, sid) == before
            assert record_of(state, fid)["native_session_id"] != record_of(state, sid)["native_session_id"]
        body = request_with(server, NEXT)["body"]
        handed = [s for s in strings(body) if "<earlier-conversation quoted-" in s]
        assert len(handed) == 1, json.dumps(body)[:3000]
        records, message = read_back(handed[0][handed[0].index("<earlier-conversation") :])
        assert [(r["person"], r["agent"]) for r in records] == [(FIRST, "gemini")]
        assert message.strip() in ("", NEXT) and NEXT in json.dumps(body)  # gemini sends each prompt part apart
        assert CLAUDE_SAID in records[0]["reply"]
        later = json.dumps(request_with(server, AFTER)["body"])
        assert later.count("<earlier-conversation quoted-") == 1  # the same handover in the history, not a second
    finally:
        agent.close()

"""``session/fork`` through the bridge's real stdio with the SDK client (scripted agents stand in for the CLIs;
tests/e2e/test_fork_real.py forks real claude sessions): the fork is a new session with its own record and log,
holding a copy of the original's completed turns; the original's files never change; a fork into another agent
hands the conversation over; bad requests are refused clearly, create nothing, and the bridge goes on."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.faults.test_handover_forgery import read_back
from tests.server.client import RecordingClient, bridge
from tests.server.switching_client import switching_bridge

pytestmark = pytest.mark.asyncio

META = "acp-mux"


def files_of(state: Path, session_id: str) -> dict[str, str]:
    """The original's files (record, log) by name, as digests: what a fork must never change."""
    folder = state / "sessions"
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob(f"{session_id}.*"))}


def record_of(state: Path, session_id: str) -> dict[str, Any]:
    return json.loads((state / "sessions" / f"{session_id}.json").read_text())


def said(client: RecordingClient, start: int) -> str:
    return "".join(u.content.text for u in client.updates[start:] if u.session_update == "agent_message_chunk")


async def ask(conn: Any, sid: str, text: str) -> Any:
    return await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), 60)


async def test_the_agents_own_session_is_recorded_with_the_first_prompt_that_reaches_it(tmp_path: Path) -> None:
    """The warm agent starts its own session while the person types, but the record keeps it only once a prompt
    went to that agent: before, nothing in it could be resumed (claude answers "No conversation found" for a
    session named with --session-id that never had a message), so a reload starts afresh instead of failing."""
    cwd, state = tmp_path / "project", tmp_path / "state"
    cwd.mkdir()
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", cwd=str(cwd), state_dir=str(state)) as (conn, _):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=str(cwd), mcp_servers=[])).session_id
        log = state / "sessions" / f"{sid}.events.jsonl"
        for _ in range(200):  # the warm agent's session_start, in the log by its own timer
            if log.exists() and '"session_start"' in log.read_text():
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the warm agent never started its session")
        assert record_of(state, sid)["native_session_id"] is None
        assert (await ask(conn, sid, "first question")).stop_reason == "end_turn"
        started = [json.loads(line) for line in log.read_text().splitlines() if '"session_start"' in line]
        assert record_of(state, sid)["native_session_id"] == started[0]["data"]["sessionId"]


async def test_a_fork_in_the_same_agent_is_a_new_session_with_a_copy_and_its_own_native_fork(tmp_path: Path) -> None:
    cwd, state = tmp_path / "project", tmp_path / "state"
    cwd.mkdir()
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", cwd=str(cwd), state_dir=str(state)) as (conn, _):
        init = await conn.initialize(protocol_version=1)
        assert init.agent_capabilities.session_capabilities.fork is not None  # advertised: {}
        sid = (await conn.new_session(cwd=str(cwd), mcp_servers=[])).session_id
        assert (await ask(conn, sid, "first question")).stop_reason == "end_turn"
        before = files_of(state, sid)
        original = record_of(state, sid)
        forked = await conn.fork_session(session_id=sid, cwd=str(cwd))
        fid = forked.session_id
        assert fid != sid and forked.modes is not None
        assert files_of(state, sid) == before
        start = len(client.updates)
        assert (await ask(conn, fid, "second question")).stop_reason == "end_turn"
        reply = said(client, start)
        assert "You said: second question" in reply and "earlier-conversation" not in reply  # its own fork has it
        assert (await ask(conn, sid, "third question")).stop_reason == "end_turn"
        fork_record = record_of(state, fid)
        assert fork_record["forked_from"] == sid and fork_record["native_fork_from"] is None
        assert fork_record["native_session_id"] not in (None, original["native_session_id"])  # --fork-session
        listed = {s.session_id: s for s in (await conn.list_sessions(cwd=str(cwd))).sessions}
        assert set(listed) == {sid, fid}
        assert listed[fid].field_meta == {META: {"forkedFrom": sid}} and not listed[sid].field_meta

    loader = RecordingClient()
    async with bridge(loader, "--agent", "demo", cwd=str(cwd), state_dir=str(state)) as (conn, _):
        await conn.initialize(protocol_version=1)
        await conn.load_session(session_id=fid, cwd=str(cwd), mcp_servers=[])
        shown = loader.text("user_message_chunk")
        assert "first question" in shown and "second question" in shown and "third question" not in shown
        loader.updates.clear()
        await conn.load_session(session_id=sid, cwd=str(cwd), mcp_servers=[])
        shown = loader.text("user_message_chunk")
        assert "first question" in shown and "third question" in shown and "second question" not in shown

    listing = subprocess.run(
        [sys.executable, "-m", "acp_mux", "sessions", "list", "--json"],
        env={**os.environ, "ACP_MUX_STATE_DIR": str(state)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    rows = {r["sessionId"]: r for r in map(json.loads, listing.stdout.splitlines())}
    assert rows[fid]["forkedFrom"] == sid and "forkedFrom" not in rows[sid]


async def test_a_fork_into_another_agent_hands_over_only_what_came_before_it(tmp_path: Path) -> None:
    client = RecordingClient()
    state = tmp_path / "state"
    async with switching_bridge(client, tmp_path) as (conn, _, sid):
        assert (await ask(conn, sid, "before the fork")).stop_reason == "end_turn"
        before = files_of(state, sid)
        fid = (
            await conn.fork_session(session_id=sid, cwd=str(tmp_path / "project"), **{META: {"agent": "beta"}})
        ).session_id
        assert files_of(state, sid) == before
        assert (await ask(conn, sid, "said after the fork")).stop_reason == "end_turn"
        start = len(client.updates)
        assert (await ask(conn, fid, "and now?")).stop_reason == "end_turn"
        reply = said(client, start)  # the scripted agent echoes its whole prompt: the handover included
        assert "**Scripted beta:**" in reply and "<earlier-conversation quoted-" in reply
        records, message = read_back(reply[reply.index("<earlier-conversation") :])
        assert [(r["person"], r["agent"]) for r in records] == [("before the fork", "alpha")]
        assert "said after the fork" not in reply and message.strip() == "and now?"
        start = len(client.updates)
        assert (await ask(conn, fid, "once more")).stop_reason == "end_turn"
        assert "earlier-conversation" not in said(client, start)  # handed over once
        fork_record = record_of(state, fid)
        assert fork_record["agent"] == "beta" and fork_record["native_sessions"] == {}
        assert record_of(state, sid)["agent"] == "alpha"


async def test_a_fork_of_a_prompting_session_copies_the_completed_turns(tmp_path: Path) -> None:
    client = RecordingClient(hold_permissions=True)
    async with switching_bridge(client, tmp_path) as (conn, _, sid):
        assert (await ask(conn, sid, "a finished turn")).stop_reason == "end_turn"
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("write the demo")]))
        await asyncio.wait_for(client.permission_event.wait(), 30)
        fid = (await conn.fork_session(session_id=sid, cwd=str(tmp_path / "project"))).session_id
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 10)).stop_reason == "cancelled"
        start = len(client.updates)
        client.hold_permissions = False
        assert (await ask(conn, fid, "what now?")).stop_reason == "end_turn"
        reply = said(client, start)  # a running turn: no native fork (its copy would hold it); handed over
        assert "a finished turn" in reply and "write the demo" not in reply


@pytest.mark.parametrize(
    "meta, message",
    [
        ({META: {"agent": "nobody"}}, "choose one of alpha, beta, gamma"),
        ({META: {"agent": 7}}, "choose one of alpha, beta, gamma"),
        ({META: {"agent": ["beta"]}}, "choose one of alpha, beta, gamma"),
        ({META: "beta"}, 'must be an object like {"agent": "codex"}'),
        ({META: {}}, 'must be an object like {"agent": "codex"}'),
    ],
)
async def test_a_bad_fork_is_refused_creates_nothing_and_the_bridge_goes_on(
    tmp_path: Path, meta: dict[str, Any], message: str
) -> None:
    client = RecordingClient()
    state = tmp_path / "state"
    async with switching_bridge(client, tmp_path) as (conn, _, sid):
        assert (await ask(conn, sid, "hello")).stop_reason == "end_turn"
        present = sorted(p.name for p in (state / "sessions").iterdir())
        with pytest.raises(acp.RequestError) as refused:
            await conn.fork_session(session_id=sid, cwd=str(tmp_path / "project"), **meta)
        assert refused.value.code == -32602 and message in str(refused.value)
        with pytest.raises(acp.RequestError) as unknown:
            await conn.fork_session(session_id="no-such-session", cwd=str(tmp_path / "project"))
        assert "no-such-session" in str(unknown.value)
        with pytest.raises(acp.RequestError):
            await conn.fork_session(session_id=sid, cwd="relative/path")
        assert sorted(p.name for p in (state / "sessions").iterdir()) == present
        assert (await ask(conn, sid, "still here")).stop_reason == "end_turn"


async def test_a_single_agent_entry_refuses_a_fork_into_another_agent(tmp_path: Path) -> None:
    cwd, state = tmp_path / "project", tmp_path / "state"
    cwd.mkdir()
    async with bridge(RecordingClient(), "--agent", "demo", cwd=str(cwd), state_dir=str(state)) as (conn, _):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=str(cwd), mcp_servers=[])).session_id
        with pytest.raises(acp.RequestError, match="serves demo only"):
            await conn.fork_session(session_id=sid, cwd=str(cwd), **{META: {"agent": "codex"}})
        same = await conn.fork_session(session_id=sid, cwd=str(cwd), **{META: {"agent": "demo"}})
        assert same.session_id != sid


@pytest.mark.parametrize("fails", ["1", "answer"])
async def test_a_native_fork_that_fails_falls_back_to_the_handover_and_says_so(tmp_path: Path, fails: str) -> None:
    """The agent's fork fails as claude's does: its run exits at once ("1"), or its live process answers the prompt
    with the error and waits for the next ("answer": the fallback goes to a new process, not to that one)."""
    state = tmp_path / "state"
    client = RecordingClient()
    async with switching_bridge(client, tmp_path, SCRIPTED_AGENT_FORK_FAILS=fails) as (conn, _, sid):
        assert (await ask(conn, sid, "the first turn")).stop_reason == "end_turn"
        fid = (await conn.fork_session(session_id=sid, cwd=str(tmp_path / "project"))).session_id
        start = len(client.updates)
        assert (await ask(conn, fid, "and in the fork?")).stop_reason == "end_turn"
        reply = said(client, start)
        assert "could not fork its own session" in reply
        records, message = read_back(reply[reply.index("<earlier-conversation") :])  # handed over instead
        assert [(r["person"], r["agent"]) for r in records] == [("the first turn", "alpha")]
        assert message.strip() == "and in the fork?"
        fork = record_of(state, fid)
        assert fork["native_fork_from"] is None and fork["native_session_id"]
        start = len(client.updates)
        assert (await ask(conn, fid, "again")).stop_reason == "end_turn"
        assert "earlier-conversation" not in said(client, start)
    shown = subprocess.run(
        [sys.executable, "-m", "acp_mux", "sessions", "show", fid],
        env={**os.environ, "ACP_MUX_STATE_DIR": str(state)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert f"forked from {sid}" in shown.stdout.splitlines()[1] and "could not fork" in shown.stdout

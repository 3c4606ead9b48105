"""Issue 14's "done when", for every recorded claude and codex transcript played through the real bridge:
stored as an event log, exported twice byte for byte, replayed by ``session/load`` (in a fresh bridge) to the
updates the live turn produced modulo chunk coalescing, a torn last line survived, ``sequence`` gap-free per run,
and after pruning a gap marker with the session still loading. (The demo agent's end-to-end run through a real
bridge process is in ``test_demo_bridge.py``.)"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest

from acp_mux.cli.sessions import run_sessions
from acp_mux.server.records.event_log import read_envelopes
from acp_mux.server.records.replay import STATE_UPDATES
from acp_mux.server.wire.rpc import RpcError
from acp_mux.server.records.store import SessionStore
from acp_mux.translation.conversation import failed_turn_text
from acp_mux.translation.updates import notice
from tests.server.recorded_runs import fixture_names, load, play

CASES = [(cli, name) for cli in ("claude", "codex") for name in fixture_names(cli)]


def conversation(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The updates as a conversation: session-state updates dropped (the answer to load reports those afresh), the
    prompts' own chunks dropped (the editor showed its prompt itself), consecutive text chunks of one kind joined,
    and consecutive content-only refreshes of one tool call's live output reduced to the last (chunk coalescing:
    the live view is throttled by time, the log keeps the output folded)."""
    out: list[dict[str, Any]] = []
    for u in updates:
        kind = u["sessionUpdate"]
        if kind in STATE_UPDATES or kind == "user_message_chunk":
            continue
        last = out[-1] if out else None
        if kind in ("agent_message_chunk", "agent_thought_chunk") and last and last["sessionUpdate"] == kind:
            last["content"] = {"type": "text", "text": last["content"]["text"] + u["content"]["text"]}
            continue
        if _output_refresh(u) and last and _output_refresh(last) and last["toolCallId"] == u["toolCallId"]:
            out[-1] = dict(u)
            continue
        out.append(dict(u))
    return out


def _output_refresh(u: dict[str, Any]) -> bool:
    return u["sessionUpdate"] == "tool_call_update" and set(u) <= {"sessionUpdate", "toolCallId", "content"}


def export(state: Path, session_id: str) -> bytes:
    out = io.StringIO()
    assert run_sessions(["export", session_id], SessionStore(state), out) == 0
    return out.getvalue().encode("utf-8")


def assert_gap_free(path: Path) -> dict[str, list[int]]:
    runs: dict[str, list[int]] = {}
    for env in read_envelopes(path):
        runs.setdefault(env["run_id"], []).append(env["sequence"])
    for run, seqs in runs.items():
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), (run, seqs)
    return runs


@pytest.mark.parametrize(("cli", "name"), CASES, ids=[f"{c}-{n}" for c, n in CASES])
def test_a_recorded_session_is_stored_exported_and_replayed(cli: str, name: str, tmp_path: Path, monkeypatch) -> None:
    state = tmp_path / "state"

    async def scenario() -> None:
        session_id, turns, results = await play(cli, name, state, monkeypatch)
        store = SessionStore(state)
        log = store.log_path(session_id)
        runs = assert_gap_free(log)
        assert all(seqs[0] == 0 for seqs in runs.values())
        assert len(runs) == (2 if name == "resume" else 1)
        # stored: the prompts and how each turn ended, next to the agent's events
        envs = list(read_envelopes(log))
        ended = [e["data"] for e in envs if e["type"] == "turn.ended"]
        assert len(ended) == len(results)
        for answer, result in zip(ended, results):
            if isinstance(result, RpcError):
                assert answer["error"]["code"] == result.code
            else:
                assert answer == {"stopReason": result["stopReason"]}
        assert sum(e["type"] == "user.message" for e in envs) == len(results)
        if name == "cancel":
            assert any(e["type"] == "user.cancel" for e in envs) and results[-1]["stopReason"] == "cancelled"
        # exported twice, byte for byte
        first = export(state, session_id)
        assert first and first == export(state, session_id)
        assert first == log.read_bytes()  # the stored lines are already canonical
        # replayed by a fresh bridge: the conversation the live turns showed, and the error a failed turn's prompt
        # was answered with, once, where the turn ended (live, the editor showed that error itself)
        expected = conversation(
            [
                update
                for turn, result in zip(turns, results)
                for update in turn
                + ([notice(failed_turn_text(result.message))] if isinstance(result, RpcError) else [])
            ]
        )
        assert any(u["sessionUpdate"] == "agent_message_chunk" for u in expected)
        replayed = await load(cli, state, session_id, monkeypatch)
        prompts = [u["content"]["text"] for u in replayed if u["sessionUpdate"] == "user_message_chunk"]
        assert len(prompts) == len(results)
        assert conversation(replayed) == expected
        # a crash mid-write: the torn last line is skipped and the session still loads the same
        with open(log, "ab") as fh:
            fh.write(b'{"schema_version":"1","event_id":"01TORN","run_id":"run-x","sess')
        assert conversation(await load(cli, state, session_id, monkeypatch)) == expected
        # retention cuts the log: a gap marker, and load still works (the newest turn intact)
        if len(results) > 1:
            assert store.prune(max_events=len(envs) // 2).pruned_events
            after = list(read_envelopes(log))
            assert after[0]["type"] == "gap.events_pruned"
            assert_gap_free(log)
            replayed = await load(cli, state, session_id, monkeypatch)
            assert "earlier events of this session were removed by retention" in replayed[0]["content"]["text"]
            assert conversation(replayed[1:]) == conversation(turns[-1])  # the newest turn, whole

    asyncio.run(scenario())

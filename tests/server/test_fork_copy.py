"""The copy a fork starts from (acp_mux/server/branches/fork.py), tried hard: whatever the turns say, the fork's handed-over
record is exactly the original's completed turns before the fork — never a turn still running then, never what the
original got after — and the original's files are the same bytes after the fork and after the turns that follow.
And whatever ``_meta`` an editor sends, the agent is picked or the fork refused with -32602, nothing else."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.adapters.base import ToolTable
from acp_mux.server.branches.fork import META_KEY, completed_part, copy_conversation, fork_agent
from acp_mux.server.sessions.handoff import context_text, turns_from_record
from acp_mux.server.records.replay import folded_conversation, session_history
from acp_mux.server.wire.rpc import INVALID_PARAMS, RpcError
from acp_mux.server.records.store import SessionRecord, SessionStore
from acp_mux.translation.updates import UpdateTranslator
from tests.faults.test_handover_forgery import read_back

texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(lambda t: t.strip() == t)
exchanges = st.lists(st.tuples(texts, texts), max_size=4)


def write_turns(store: SessionStore, session_id: str, turns: list[tuple[str, str]], *, last_open: bool = False) -> None:
    """Turns as the bridge logs them: the person's prompt, the agent's text, the turn's end (not for an open one)."""
    log = store.event_log(session_id)
    for index, (person, reply) in enumerate(turns):
        run = f"run-{session_id}"
        log.record(run, "user.message", {"content": [{"type": "text", "text": person}], "agent": "demo"})
        log.record(run, "turn_start", {"turnIndex": index})
        log.record(run, "text_delta", {"delta": reply})
        if not (last_open and index == len(turns) - 1):
            log.record(run, "turn_end", {"turnIndex": index})
            log.record(run, "turn.ended", {"stopReason": "end_turn"})
    log.flush()


def digests(store: SessionStore, session_id: str) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(store.root.glob(f"{session_id}.*"))}


def handed_over(store: SessionStore, session_id: str, cwd: str) -> str:
    history = session_history(store, session_id, lambda read: UpdateTranslator(ToolTable(), cwd, read_file=read))
    return context_text(turns_from_record(folded_conversation(history), []))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=exchanges, running=st.one_of(st.none(), st.tuples(texts, texts)), after=exchanges)
def test_the_fork_holds_exactly_the_turns_completed_before_it(
    before: list[tuple[str, str]], running: tuple[str, str] | None, after: list[tuple[str, str]]
) -> None:
    with tempfile.TemporaryDirectory() as root:
        store = SessionStore(Path(root))
        store.save(SessionRecord(session_id="orig", agent="demo", cwd=root))
        write_turns(store, "orig", before)
        if running is not None:  # a turn under way when the fork is made
            write_turns(store, "orig", [running], last_open=True)
        kept = digests(store, "orig")
        copy_conversation(store, "orig", "fork", {"from": "orig"})
        assert digests(store, "orig") == kept
        write_turns(store, "orig", after)  # the original goes on; the fork must not see any of it
        text = handed_over(store, "fork", root)
        if not before:
            assert text == ""
            return
        records, _ = read_back(text)
        assert [(r["person"], r["reply"]) for r in records] == before


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=10,
    ),
    st.booleans(),
)
def test_any_meta_picks_a_usable_agent_or_is_refused_as_invalid_params(meta: Any, one_agent: bool) -> None:
    usable = ("claude", "codex") if not one_agent else ("claude",)
    for candidate in (meta, {META_KEY: meta}, {META_KEY: {"agent": meta}}):
        try:
            picked = fork_agent(candidate, "claude", usable, one_agent)
        except RpcError as refused:
            assert refused.code == INVALID_PARAMS and "session/fork" in refused.message
            assert "Traceback" not in refused.message and len(refused.message) < 300
            continue
        assert picked in usable


def test_the_named_agent_is_picked_and_other_meta_keys_are_ignored() -> None:
    assert fork_agent({"zed.dev": [1, 2]}, "claude", ("claude", "codex"), False) == "claude"
    assert fork_agent({META_KEY: {"agent": "codex", "x": 1}}, "claude", ("claude", "codex"), False) == "codex"
    with pytest.raises(RpcError, match="choose one of claude, codex"):
        fork_agent({META_KEY: {"agent": "gemini"}}, "claude", ("claude", "codex"), False)


def test_an_old_format_transcript_is_copied_whole() -> None:
    envelopes: list[Any] = [
        {"type": "acp.update", "data": {}, "run_id": "legacy", "sequence": 0, "event_id": "a", "occurred_at": "x"},
        {"type": "user.message", "data": {}, "run_id": "r", "sequence": 0, "event_id": "b", "occurred_at": "x"},
    ]
    assert completed_part(envelopes) == envelopes[:1]

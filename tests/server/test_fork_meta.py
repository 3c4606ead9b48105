"""Hostile ``_meta`` on ``session/fork`` at a real bridge (``acp-mux --agent demo``, spoken to line by line): whatever
shape it has, the fork is made (``_meta`` without acp-mux's key, or naming the one agent) or refused with -32602 —
never -32603, never a Python message — the original's files do not change, and the bridge serves the next message."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.server.records.event_log import FLUSH_INTERVAL_S
from acp_mux.server.branches.fork import META_KEY
from tests.faults.raw import RawBridge, wait_until
from tests.server.test_editor_wire import PYTHON_LEAKS

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_meta = st.one_of(
    _json,
    st.dictionaries(st.just(META_KEY), _json, min_size=1),
    st.dictionaries(st.just(META_KEY), st.dictionaries(st.sampled_from(["agent", "x"]), _json), min_size=1),
    st.just({META_KEY: {"agent": "demo"}}),
)


@pytest.fixture(scope="module")
def opened(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RawBridge, str]]:
    bridge = RawBridge(tmp_path_factory.mktemp("fork-meta"))
    bridge.initialize()
    session_id = bridge.new_session()
    record = bridge.root / "state" / "sessions" / f"{session_id}.json"
    # the agent starts warm (its native session is kept in the record only with a first prompt, so the record is
    # written once, at session/new): its start is in the log before the property runs
    wait_until(record.exists, what="its record")
    log = record.with_name(f"{session_id}.events.jsonl")
    wait_until(lambda: log.exists() and "session_start" in log.read_text(), what="its agent's start in the log")
    time.sleep(3 * FLUSH_INTERVAL_S)  # the rest of the start-up, flushed by its own timer
    yield bridge, session_id
    assert bridge.close() == 0


def records(sessions: Path) -> int:
    """The session records there are, not counting a record being written (the store's ``.tmp-*.json``, renamed
    over its record a moment later: a fork's agent saving its native session may be writing one meanwhile)."""
    return sum(1 for p in sessions.glob("*.json") if not p.name.startswith("."))


def digests(root: Path, session_id: str) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.glob(f"{session_id}.*"))}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(meta=_meta)
def test_any_meta_forks_or_is_refused_as_invalid_params(opened: tuple[RawBridge, str], meta: Any) -> None:
    bridge, session_id = opened
    sessions = bridge.root / "state" / "sessions"
    before = digests(sessions, session_id)
    count = records(sessions)
    answer = bridge.call("session/fork", {"sessionId": session_id, "cwd": str(bridge.cwd), "_meta": meta})
    assert ("result" in answer) != ("error" in answer), answer
    if "error" in answer:
        assert answer["error"]["code"] == -32602, answer
        assert not any(leak in answer["error"]["message"] for leak in PYTHON_LEAKS), answer
        assert records(sessions) == count  # nothing created
    else:
        assert answer["result"]["sessionId"] != session_id
        assert records(sessions) == count + 1
    assert digests(sessions, session_id) == before
    assert bridge.serves()

"""``acp-mux sessions show`` reads each stored update into the typed ACP model before it renders it: a log may be
old, damaged or written by someone else, and the view must neither fail on it nor guess at fields."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.cli.sessions import _TextView, run_sessions
from acp_mux.server.records.store import SessionStore
from tests.server.test_sessions_cli import OLD_RECORD

KINDS = ["user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"]
leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6)
json_value = st.recursive(
    leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
fields = st.sampled_from(["content", "toolCallId", "title", "kind", "status", "entries", "_meta", "text", "type"])
progress_meta = st.dictionaries(
    st.just("tool_call_progress"),
    json_value | st.dictionaries(st.sampled_from(["progress", "total", "message", "status"]), json_value),
)
hostile = st.builds(
    lambda kind, extra: {"sessionUpdate": kind, **extra},
    st.sampled_from([*KINDS, "x", ""]),
    st.dictionaries(fields, json_value, max_size=5),
) | st.builds(
    lambda meta, status: {"sessionUpdate": "tool_call_update", "toolCallId": "t", "_meta": meta, "status": status},
    progress_meta,
    st.sampled_from(["pending", "completed", None]),
)


@given(st.lists(hostile, max_size=8))
def test_any_stored_update_renders_or_shows_nothing_without_failing(updates: list[dict[str, Any]]) -> None:
    """An attacker's log: every line is rendered as text, or skipped; the view never raises."""
    view = _TextView()
    lines = [line for update in updates for line in view.update(update)] + list(view.close())
    assert all(isinstance(line, str) for line in lines)


@given(st.lists(st.tuples(st.sampled_from(KINDS[:3]), st.text(min_size=1, max_size=10)), min_size=1, max_size=6))
def test_chunks_of_one_kind_are_joined_under_one_heading(chunks: list[tuple[str, str]]) -> None:
    """Consecutive chunks of a kind form one block; a change of kind starts the next (no text is lost)."""
    view = _TextView()
    lines: list[str] = []
    for kind, text in chunks:
        lines += view.update({"sessionUpdate": kind, "content": {"type": "text", "text": text}})
    lines += view.close()
    blocks: list[tuple[str, str]] = []
    for kind, text in chunks:
        if blocks and blocks[-1][0] == kind:
            blocks[-1] = (kind, blocks[-1][1] + text)
        else:
            blocks.append((kind, text))
    expected = [
        line for kind, text in blocks if text.strip("\n") for line in (_TextView._HEADINGS[kind], text.strip("\n"))
    ]
    assert lines == expected


def test_a_damaged_tool_call_shows_nothing_instead_of_none() -> None:
    """A tool call without its id is no ACP update: nothing is shown (the old reader printed "None")."""
    assert list(_TextView().update({"sessionUpdate": "tool_call", "title": 3})) == []


def test_sessions_show_goes_on_past_damaged_lines_of_an_old_transcript(tmp_path: Path) -> None:
    """Through the command itself: an old-format transcript with lines no reader can trust (a list ``_meta``, a
    plan entry that is a number, a progress that is text) shows the rest of the conversation, exit status 0."""
    store = SessionStore(tmp_path / "state")
    store.root.mkdir(parents=True)
    (store.root / "01DAMAGED.json").write_text(json.dumps({**OLD_RECORD, "session_id": "01DAMAGED"}))
    lines = [
        {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hello"}},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "_meta": [1]},
        {"sessionUpdate": "plan", "entries": [1]},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "_meta": {"tool_call_progress": {"progress": "x"}}},
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "still here"}},
    ]
    store.legacy_path("01DAMAGED").write_text("".join(json.dumps(u) + "\n" for u in lines))
    out = io.StringIO()
    assert run_sessions(["show", "01DAMAGED"], store, out) == 0
    assert "## You\nhello" in out.getvalue() and "## Agent\nstill here" in out.getvalue()

"""translation.stored_updates.read_update: the edge where a recorded update becomes the typed ACP model. Whatever a
record holds, it answers a model or None, never an exception, and what it answers is the record, field for field."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.protocol.wire import dump
from acp_mux.translation.stored_updates import read_update

leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6)
json_value = st.recursive(
    leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
KINDS = ["user_message_chunk", "agent_message_chunk", "tool_call", "tool_call_update", "plan", "usage_update", "x"]


@given(
    json_value
    | st.builds(
        lambda k, rest: {"sessionUpdate": k, **rest},
        st.sampled_from(KINDS),
        st.dictionaries(
            st.sampled_from(["content", "toolCallId", "title", "entries", "status", "_meta", "used", "size"]),
            json_value,
        ),
    )
)
def test_anything_reads_as_a_model_or_none(raw: Any) -> None:
    update = read_update(raw)
    assert update is None or dump(update) == raw  # a model is the record itself, nothing dropped or invented


@given(st.text(max_size=20), st.text(min_size=1, max_size=8), st.sampled_from(["pending", "in_progress", "completed"]))
def test_valid_updates_read_as_their_kind(text: str, tool_id: str, status: str) -> None:
    chunk = read_update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})
    assert chunk is not None and chunk.session_update == "agent_message_chunk"
    call = read_update({"sessionUpdate": "tool_call", "toolCallId": tool_id, "title": text, "status": status})
    assert call is not None and call.session_update == "tool_call"

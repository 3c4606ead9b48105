"""The one subagent-link rule claude and codex share (``acp_mux.adapters.subagent_links``), tried to break."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.adapters.subagent_links import link_to_subagent
from acp_mux.core.events.union import BaseEvent, TextDeltaEvent, ToolCallStartEvent, ToolResultEvent

IDS = st.sampled_from(["a", "b", "c", "task1", "task2"])


def _event(kind: int, tool_id: str, preset: str | None) -> BaseEvent:
    if kind == 0:
        return TextDeltaEvent(delta="x", parent_tool_call_id=preset)
    if kind == 1:
        return ToolCallStartEvent(tool_call_id=tool_id, tool_name="Read", parent_tool_call_id=preset)
    return ToolResultEvent(tool_call_id=tool_id, tool_name="Read", parent_tool_call_id=preset)


EVENTS = st.lists(st.builds(_event, st.integers(0, 2), IDS, st.none() | IDS), max_size=8)
MESSAGES = st.lists(st.tuples(EVENTS, st.none() | IDS), max_size=6)


@given(MESSAGES)
def test_every_event_is_linked_to_its_subagent_and_a_preset_link_is_kept(messages: list[tuple[list[BaseEvent], str | None]]) -> None:  # fmt: skip
    """Against a model: a tool call belongs for good to the subagent it first came from; anything else a subagent's
    message carries belongs to that subagent; a link the adapter set itself is never overwritten."""
    children: dict[str, str] = {}
    first: dict[str, str] = {}  # the model: tool call id -> the subagent call it first appeared under
    for events, parent in messages:
        expected = []
        for event in events:
            tool_id = getattr(event, "tool_call_id", None)
            if parent is not None and tool_id is not None and tool_id != parent:
                first.setdefault(tool_id, parent)
            known = first.get(tool_id) if tool_id is not None else None
            expected.append(event.parent_tool_call_id or known or parent)
        assert link_to_subagent(events, parent, children) is events
        assert [e.parent_tool_call_id for e in events] == expected
        assert children == first  # remembered for its later events, and only first come
        assert all(key != value for key, value in children.items())  # a starting call never nests under itself


def test_the_main_agents_events_stay_unlinked_before_any_subagent() -> None:
    events: list[BaseEvent] = [ToolCallStartEvent(tool_call_id="a", tool_name="Read"), TextDeltaEvent(delta="x")]
    children: dict[str, str] = {}
    assert link_to_subagent(events, None, children) is events
    assert [e.parent_tool_call_id for e in events] == [None, None] and children == {}

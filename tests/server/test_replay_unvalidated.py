"""A stored turn-ending event whose data no longer validates (an older or damaged log) is read back as an
UnknownEvent of the same type. Before the events were typed, the turn's outcome was read from it by attribute
(``event.stderr``, ``event.code``...), so such a line made session/load fail with an AttributeError; now an event
is judged by its class, and the replay goes on."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.adapters.base import ToolTable
from acp_mux.core.events import union as ev
from acp_mux.core.run.handle import _Accumulator
from acp_mux.server.records.replay import replay_updates
from acp_mux.translation.stop_reasons import outcome_for
from acp_mux.translation.updates import UpdateTranslator

TURN_ENDING = sorted({"timeout", "turn_limit", *(cls.model_fields["type"].default for cls in ev.CATEGORIES["error"])})
json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
data = st.dictionaries(
    st.sampled_from(["code", "message", "stderr", "exitCode", "kind", "maxTurns", "guidance", "signal", "x"]),
    json_leaf | st.lists(json_leaf, max_size=2),
    max_size=4,
)


def turn(kind: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    """A stored turn: the person's message, then one event of ``kind`` with ``payload`` as its data."""
    return [
        {"type": "user.message", "run_id": "r1", "data": {"content": [{"type": "text", "text": "hi"}]}},
        {"type": kind, "run_id": "r1", "sequence": 2, "data": payload},
    ]


@given(st.sampled_from(TURN_ENDING), data)
def test_any_stored_turn_ending_event_replays_without_failing(kind: str, payload: dict[str, Any]) -> None:
    """Whatever the stored data (valid or not), the replay answers with updates and never raises."""
    updates = list(replay_updates(turn(kind, payload), UpdateTranslator(ToolTable(), "/work")))
    assert updates[0]["sessionUpdate"] == "user_message_chunk"


@given(st.sampled_from(TURN_ENDING))
def test_an_unknown_event_of_a_turn_ending_type_imposes_nothing(kind: str) -> None:
    """No outcome (the typed fields it would be read from are not there) and no run error: it is not a failure the
    agent reported, only a line this version cannot read."""
    unknown = ev.UnknownEvent(type=kind)
    assert outcome_for(unknown) is None
    result = _Accumulator()
    result.add(unknown)
    assert result.error is None


def test_a_crash_whose_data_no_longer_validates_replays_as_nothing_shown() -> None:
    """The concrete case: a crash line with a non-integer exit code (a damaged log) shows no error notice."""
    updates = list(replay_updates(turn("crash", {"exitCode": "x"}), UpdateTranslator(ToolTable(), "/work")))
    assert [u["sessionUpdate"] for u in updates] == ["user_message_chunk"]

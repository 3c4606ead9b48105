"""Adjacent deltas of one burst joined: the text, its order and everything between stay exactly as they were."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.core.text import delta_join
from acp_mux.core.events import union as ev
from acp_mux.core.text.delta_join import join_adjacent_deltas
from acp_mux.core.text.joined_text import JoinedText

# one step of a burst: a delta of stream 0-2 (two text messages, one thinking), or another event between deltas
STEP = st.one_of(
    st.tuples(st.integers(min_value=0, max_value=2), st.text(min_size=1, max_size=5)),
    st.just((None, "")),
)


def burst(steps: list[tuple[int | None, str]]) -> tuple[list[ev.BaseEvent], list[JoinedText]]:
    """The events an adapter would give for ``steps``: each stream's deltas share its growing text, as
    ParseContext builds them; stream 1 names its message (an ACP ``messageId``)."""
    texts = [JoinedText(), JoinedText(), JoinedText()]
    events: list[ev.BaseEvent] = []
    for stream, delta in steps:
        if stream is None:
            events.append(ev.DebugEvent(level="info", message="between"))
            continue
        texts[stream].append(delta)
        if stream == 2:
            events.append(ev.ThinkingDeltaEvent.lazy(delta, texts[stream]))
        elif stream == 1:
            events.append(ev.TextDeltaEvent.lazy(delta, texts[stream], message_id="m-1"))
        else:
            events.append(ev.TextDeltaEvent.lazy(delta, texts[stream]))
    return events, texts


def stream_of(event: ev.BaseEvent, texts: list[JoinedText]) -> int | None:
    parts = (event.__pydantic_private__ or {}).get("_parts")
    return next((i for i, text in enumerate(texts) if text is parts), None)


@given(st.lists(STEP, max_size=40), st.sampled_from([4096, 6, 1]))
def test_joined_deltas_keep_every_stream_text_and_every_other_event_in_place(
    steps: list[tuple[int | None, str]], most: int
) -> None:
    events, texts = burst(steps)
    accumulated = [getattr(e, "accumulated", None) for e in events]  # read before joining: what each delta meant
    sizes = [len(getattr(e, "delta", "")) for e in events]
    saved, delta_join.MOST_JOINED = delta_join.MOST_JOINED, most
    try:
        joined = join_adjacent_deltas(events)
    finally:
        delta_join.MOST_JOINED = saved

    # what is not a delta is untouched and keeps its place among the deltas' runs
    assert [e for e in joined if e.type == "debug"] == [e for e in events if e.type == "debug"]
    # each stream's text is the same, in the same order
    for i, text in enumerate(texts):
        assert "".join(e.delta for e in joined if stream_of(e, texts) == i) == text.text()
    # a delta kept is the last of its run: its accumulated text is the message up to the end of the run
    for event in joined:
        if event.type != "debug":
            assert event.accumulated == accumulated[events.index(event)]
            # a joined delta stays within the bound; one the agent wrote longer is left as it was
            assert len(event.delta) <= most or len(event.delta) == sizes[events.index(event)]
    # runs are cut only where another event, another stream or the bound comes: greedily, in order
    runs, size = 0, 0
    for i, event in enumerate(events):
        joins = (
            i > 0
            and "debug" not in (event.type, events[i - 1].type)
            and stream_of(event, texts) == stream_of(events[i - 1], texts)
            and size + sizes[i] <= most
        )
        size = size + sizes[i] if joins else sizes[i]
        runs += not joins
    assert len(joined) == runs


def test_deltas_of_two_messages_with_the_same_text_object_but_other_ids_stay_apart() -> None:
    text = JoinedText()
    text.append("a")
    first = ev.TextDeltaEvent.lazy("a", text, message_id="m-1")
    text.append("b")
    second = ev.TextDeltaEvent.lazy("b", text, message_id="m-2")
    assert join_adjacent_deltas([first, second]) == [first, second]

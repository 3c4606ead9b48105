"""omp shows each change's own diff to the end: an ACP update's ``content`` replaces what the editor shows for a
call, and omp's updates for a write carry only text, so the diff a write was asked with must survive its updates
(issue 21: "omp's allow path shows one diff where the turn made two changes")."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.adapters.omp import OmpAdapter, keep_diffs
from tests.adapters.acp_replay import replay


def last_shown(events: list[Any], tool_call_id: str) -> Any:
    """The display of the last event that set what the editor shows for the call (content or diffs)."""
    shown = [e.display for e in events if getattr(e, "tool_call_id", None) == tool_call_id
             and getattr(e, "display", None) is not None and (e.display.content or e.display.diffs)]
    return shown[-1]


def test_the_write_and_the_edit_each_end_showing_their_own_diff() -> None:
    result = replay(OmpAdapter(), "omp", "write_edit_allow")
    edits = [e.tool_call_id for e in result.of_type("tool_call_start") if e.display and e.display.kind == "edit"]
    assert len(edits) == 2
    write, edit = (last_shown(result.events, tid) for tid in edits)
    assert [(d.old_text, d.new_text) for d in write.diffs or []] == [(None, "alpha\nbeta\n")]
    assert [(d.old_text, d.new_text) for d in edit.diffs or []] == [("alpha\nbeta\n", "alpha\ngamma\n")]
    assert any("Successfully wrote" in str(block) for block in write.content)  # omp's own words are kept too


def diff(text: str) -> dict[str, Any]:
    return {"type": "diff", "path": "/p/a.txt", "oldText": None, "newText": text}


def words(text: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": text}}


UPDATES = st.lists(st.tuples(st.sampled_from(["A", "B"]), st.one_of(
    st.none(), st.lists(st.one_of(st.builds(diff, st.text(max_size=5)), st.builds(words, st.text(max_size=5))),
                        max_size=3))), max_size=12)


@given(UPDATES)
def test_a_call_once_shown_a_diff_never_loses_it_and_nothing_of_the_agents_is_dropped(seq: list[Any]) -> None:
    shown: dict[str, list[dict[str, Any]]] = {}
    latest: dict[str, list[dict[str, Any]]] = {}
    for call, content in seq:
        update = {"sessionUpdate": "tool_call_update", "toolCallId": call, **({"content": content} if content is not None else {})}
        out = keep_diffs(update, call, shown)
        if content is None:
            assert out == update  # no content: what the editor shows is untouched
            continue
        assert out["content"][len(out["content"]) - len(content):] == content  # the agent's items, in order, last
        diffs = [c for c in content if c["type"] == "diff"]
        if diffs:
            assert out == update
            latest[call] = diffs
        else:  # the most recent diffs shown for this call (never another call's) come first
            assert out["content"][: len(out["content"]) - len(content)] == latest.get(call, [])

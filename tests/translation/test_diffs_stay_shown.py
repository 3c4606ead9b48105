"""A change the editor was shown stays shown: an ACP update's ``content`` replaces the call's, so an agent's later
text-only update ("Successfully wrote 11 bytes") must not make the diff vanish (issue 21: omp's and opencode's
writes ended showing no diff, a turn with two changes showed one). Tried with any sequence of agent displays."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.adapters.stream_agents.scripted import TOOLS as SCRIPTED_TOOLS
from acp_mux.core.events import union as ev
from acp_mux.translation.updates import UpdateTranslator
from tests.translation.helpers import acp_valid

CWD = "/w"


def shown_content(out: list[dict[str, Any]], tool_id: str) -> list[dict[str, Any]] | None:
    """What the editor shows for the call after these updates: the content of the last one that carried any."""
    contents = [u["content"] for u in out if u.get("toolCallId") == tool_id and "content" in u]
    return contents[-1] if contents else None


def display(diff: str | None, words: str | None) -> ev.ToolDisplay | None:
    if diff is None and words is None:
        return None
    return ev.ToolDisplay(
        diffs=[ev.ToolDiff(path="/w/a.txt", new_text=diff, old_text=None)] if diff is not None else None,
        content=[{"type": "text", "text": words}] if words is not None else None,
    )


def test_a_write_asked_with_its_diff_ends_showing_it_after_a_text_only_result() -> None:
    tr = UpdateTranslator(SCRIPTED_TOOLS, CWD)
    out = tr.translate(ev.ToolCallStartEvent(tool_call_id="w", tool_name="edit", display=display("alpha\n", None)))
    out += tr.translate(ev.ToolUpdateEvent(tool_call_id="w", display=display(None, "Writing 6 bytes"), running=True))
    out += tr.translate(ev.ToolResultEvent(tool_call_id="w", tool_name="edit", display=display(None, "Wrote 6 bytes")))
    shown = shown_content(acp_valid(out), "w")
    assert shown is not None and [c["type"] for c in shown] == ["diff", "content"]
    assert shown[0]["newText"] == "alpha\n" and shown[1]["content"]["text"] == "Wrote 6 bytes"


STEPS = st.lists(
    st.tuples(
        st.one_of(st.none(), st.text(min_size=1, max_size=5)), st.one_of(st.none(), st.text(min_size=1, max_size=5))
    ),
    max_size=8,
)


@given(STEPS, st.booleans())
def test_the_latest_diff_shown_stays_and_the_agents_own_words_always_reach_the_editor(
    steps: list[Any], ok: bool
) -> None:
    tr = UpdateTranslator(SCRIPTED_TOOLS, CWD)
    out = tr.translate(ev.ToolCallStartEvent(tool_call_id="t", tool_name="edit"))
    latest_diff: str | None = None
    for i, (diff, words) in enumerate(steps):
        last = i == len(steps) - 1
        shown_display = display(diff, words)
        if last and ok:
            step = tr.translate(ev.ToolResultEvent(tool_call_id="t", tool_name="edit", display=shown_display))
        elif last:
            step = tr.translate(
                ev.ToolErrorEvent(tool_call_id="t", tool_name="edit", error="no", display=shown_display)
            )
        else:
            step = tr.translate(ev.ToolUpdateEvent(tool_call_id="t", display=shown_display))
        out += step
        latest_diff = diff if diff is not None else latest_diff
        now = shown_content(step, "t")
        if shown_display is None or now is None:
            continue
        diffs = [c["newText"] for c in now if c["type"] == "diff"]
        texts = [c["content"]["text"] for c in now if c["type"] == "content"]
        assert diffs == ([latest_diff] if latest_diff is not None else []), (steps, now)
        assert texts == ([words] if words is not None else []), (steps, now)
    acp_valid(out)

"""The per-event step shared by a live turn and a replay: tool progress, approvals linked to their calls, notices."""

from __future__ import annotations

from acp_mux.adapters.stream_agents.scripted import TOOLS
from acp_mux.core.events import union as ev
from acp_mux.translation.conversation import updates_for_event
from acp_mux.translation.stop_reasons import outcome_for
from acp_mux.translation.updates import UpdateTranslator
from tests.translation.helpers import acp_valid


def step(translator: UpdateTranslator, event: ev.BaseEvent, cancelled: bool = False) -> list[dict]:
    updates, _ = updates_for_event(translator, event, login_command=None, cancelled=cancelled)
    return acp_valid(updates)


def test_progress_of_a_running_tool_reaches_the_editor_in_meta() -> None:
    t = UpdateTranslator(TOOLS, "/p")
    step(t, ev.ToolCallStartEvent(tool_call_id="t1", tool_name="mcp__docs__search"))
    first = step(t, ev.ToolProgressEvent(tool_call_id="t1", progress=1, total=4, message="one of four"))
    again = step(t, ev.ToolProgressEvent(tool_call_id="t1", status="paused"))
    assert first == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "in_progress"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "_meta": {"tool_call_progress": {
            "schema": "tool-call-progress.v1", "call_id": "t1", "status": "running", "progress": 1.0, "total": 4.0,
            "message": "one of four"}}},
    ]  # fmt: skip
    assert again == [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "_meta": {"tool_call_progress": {"schema": "tool-call-progress.v1", "call_id": "t1", "status": "paused"}},
        }
    ]
    assert step(t, ev.ToolProgressEvent(tool_call_id="never-announced", progress=1)) == []


def test_progress_never_ends_the_call_or_decides_the_turn() -> None:
    t = UpdateTranslator(TOOLS, "/p")
    step(t, ev.ToolCallStartEvent(tool_call_id="t1", tool_name="Bash"))
    failed = ev.ToolProgressEvent(tool_call_id="t1", status="failed", message="retrying")
    assert outcome_for(failed) is None  # the stop reason comes from the turn's terminal event only
    step(t, failed)
    assert t.tool_status("t1") == "in_progress"
    (end,) = [
        u for u in step(t, ev.ToolResultEvent(tool_call_id="t1", tool_name="Bash", output="ok")) if u.get("status")
    ]
    assert end["status"] == "completed"


def test_an_approval_is_linked_to_its_call_however_it_is_answered() -> None:
    """A denial fails the call at once, whether the person, a rule or a read-only mode answered, live or replayed."""
    t = UpdateTranslator(TOOLS, "/p")
    step(t, ev.ToolCallStartEvent(tool_call_id="t1", tool_name="Bash"))
    request = ev.ApprovalRequestEvent(interaction_id="q1", action="Bash", tool_name="Bash", tool_call_id="t1", input={})
    assert step(t, request) == []
    denied = step(t, ev.ApprovalDeniedEvent(interaction_id="q1", reason="read-only mode"))
    assert denied[-1]["status"] == "failed"
    # a question about a call the editor never saw announces one first
    orphan = ev.ApprovalRequestEvent(
        interaction_id="q2", action="rm -rf build", tool_name="Bash", input={"command": "rm -rf build"}
    )
    (announced,) = step(t, orphan)
    assert announced["sessionUpdate"] == "tool_call" and announced["toolCallId"] == "approval-q2"


def test_a_turn_ending_notice_is_shown_unless_the_person_cancelled() -> None:
    t = UpdateTranslator(TOOLS, "/p")
    full = ev.ContextExceededEvent()
    assert "context window is full" in step(t, full)[0]["content"]["text"]
    assert step(t, full, cancelled=True) == []


def test_a_failed_turns_error_is_not_also_a_message() -> None:
    """The prompt's JSON-RPC error shows it (editors do): as a bold chunk too, every failure appeared twice."""
    t = UpdateTranslator(TOOLS, "/p")
    for event in (ev.CrashEvent(exit_code=3, stderr="boom"), ev.ErrorEvent(code="X", message="stream broke")):
        updates, outcome = updates_for_event(t, event, login_command=None, cancelled=False)
        assert outcome is not None and outcome.error_code is not None and updates == []

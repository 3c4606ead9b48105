"""The tool call of a ``session/request_permission`` is complete on its own: an editor may build its dialog from it
alone (CodeCompanion names the file from ``locations[0]`` and shows ``content[0]`` as the diff; without a location it
joins its own cwd to the diff's absolute path)."""

from __future__ import annotations

from acp_mux.adapters.stream_agents.scripted import TOOLS
from acp_mux.core.events import union as ev
from acp_mux.translation.updates import UpdateTranslator


def test_an_edit_question_carries_kind_title_location_and_the_diff_first(tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    t = UpdateTranslator(TOOLS, str(tmp_path))
    edit = {"file_path": "notes.txt", "old_string": "beta", "new_string": "gamma"}
    t.translate(ev.ToolCallStartEvent(tool_call_id="e1", tool_name="Edit"))
    t.translate(ev.ToolCallReadyEvent(tool_call_id="e1", tool_name="Edit", input=edit))
    call = t.permission_call("e1")
    path = str(tmp_path / "notes.txt")
    assert call["kind"] == "edit" and call["status"] == "pending" and "notes.txt" in call["title"]
    assert call["locations"] == [{"path": path}]
    assert call["content"][0] == {"type": "diff", "path": path, "oldText": "alpha\nbeta\n", "newText": "alpha\ngamma\n"}


def test_a_diff_names_its_file_when_the_call_named_none(tmp_path) -> None:
    t = UpdateTranslator(TOOLS, str(tmp_path))
    display = ev.ToolDisplay(diffs=[ev.ToolDiff(path="new.txt", new_text="hi\n", old_text=None)])
    t.translate(ev.ToolCallStartEvent(tool_call_id="w1", tool_name="tool", display=display))
    call = t.permission_call("w1")
    assert call["locations"] == [{"path": str(tmp_path / "new.txt")}]
    assert call["content"][0]["type"] == "diff"


def test_a_call_the_editor_was_not_shown_is_asked_by_its_id() -> None:
    assert UpdateTranslator(TOOLS, "/p").permission_call("x") == {"toolCallId": "x", "status": "pending"}

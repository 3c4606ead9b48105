"""omp (``omp acp`` 18.2.3) on the ACP-client family, over the recorded transcripts in tests/fixtures/omp: every run
keeps the ordering contract, every question is about a tool call the editor was shown (the form elicitations for
write/edit included), one tool call per edit, refusals and cancels end their calls, 401/429 are typed errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_mux.adapters.acp_agents.acp_client import approval_form
from acp_mux.adapters.acp_agents.omp import OmpAdapter, elicited_call
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.parse_context import ParseContext
from tests.adapters.acp_replay import Replay, replay
from tests.adapters.helpers import assert_ordering
from tests.fixtures.acp_transcripts import fixture_names

# `resume` re-attached with session/load (omp replays history first); the adapter resumes with session/resume,
# which `resume_with_session_resume` records.
REPLAYABLE = [n for n in fixture_names("omp") if n != "resume"]


def run(name: str, **kwargs: Any) -> Replay:
    return replay(OmpAdapter(), "omp", name, **kwargs)


@pytest.mark.parametrize("name", REPLAYABLE)
def test_every_recording_keeps_the_ordering_contract_and_ends_every_tool_call(name: str) -> None:
    result = run(name)
    result.assert_contract()
    assert result.events[-1].type in ("turn_end", "auth_error"), result.events[-1]


def test_omp_is_started_asking_and_told_the_bridge_answers_form_elicitations() -> None:
    adapter = OmpAdapter()
    spawn = adapter.build_spawn(RunOptions(agent="omp", cwd="/p"))
    assert spawn.args[:3] == ["acp", "--approval-mode", "always-ask"]
    result = run("write_edit_allow")
    init = result.sent[0]
    assert init["method"] == "initialize"
    assert init["params"]["clientCapabilities"]["elicitation"] == {"form": {}}


def test_write_and_edit_are_asked_through_elicitations_about_one_tool_call_each() -> None:
    result = run("write_edit_allow")
    starts = {e.tool_call_id: e for e in result.of_type("tool_call_start")}
    edits = [tid for tid, e in starts.items() if e.display and e.display.kind == "edit"]
    assert len(edits) == 2 and len(starts) == 4  # echo, write, edit, cat: no second call for an elicited edit
    assert set(result.asked_tools()) == set(starts)  # every call was asked about, each before it ran
    assert all(result.ended()[tid] == "tool_result" for tid in starts)
    write = starts[edits[0]]
    assert write.display.locations[0].path == "/work/project/notes.txt"
    assert write.display.diffs[0].new_text == "alpha\nbeta\n" and write.display.diffs[0].old_text is None
    edit_result = next(e for e in result.of_type("tool_result") if e.tool_call_id == edits[1])
    assert (
        edit_result.display.diffs[0].old_text == "alpha\nbeta\n"
        and edit_result.display.diffs[0].new_text == "alpha\ngamma\n"
    )
    # omp's own title (its intent) replaces the one built from the question once its tool call arrives
    titles = [e.display.title for e in result.of_type("tool_update") if e.tool_call_id == edits[0] and e.display]
    assert "create notes.txt" in titles
    answers = result.answers()
    assert answers[1]["result"] == {"action": "accept", "content": {"value": "Approve"}}
    assert answers[0]["result"] == {"outcome": {"outcome": "selected", "optionId": "allow_once"}}


def test_the_edit_rule_input_names_the_file_so_an_always_rule_for_it_matches() -> None:
    result = run("write_edit_allow")
    inputs = [e.input for e in result.of_type("approval_request") if e.tool_name == "edit"]
    assert inputs == [{"path": "/work/project/notes.txt"}, {"path": "/work/project/notes.txt"}]
    commands = [e.input.get("command") for e in result.of_type("approval_request") if e.tool_name == "execute"]
    assert commands == ["echo hello-from-omp", "cat notes.txt"]


def test_refused_calls_end_failed_and_show_no_more_progress() -> None:
    result = run("write_edit_reject")
    asked = result.asked_tools()
    assert len(asked) == 4
    assert all(result.ended()[tid] == "tool_error" for tid in asked)
    answers = result.answers()
    assert answers[1]["result"] == {"action": "accept", "content": {"value": "Deny"}}
    assert answers[0]["result"]["outcome"]["optionId"] == "reject_once"
    shown_after = [e for e in result.of_type("tool_update") if e.tool_call_id in asked]
    assert all(not e.running for e in shown_after)


@pytest.mark.parametrize(("name", "kind"), [("auth_error", "auth_error"), ("rate_limit", "rate_limit_error")])
def test_a_refused_model_request_is_a_typed_error_never_a_plain_end_turn(name: str, kind: str) -> None:
    result = run(name)
    (error,) = result.of_type(kind)
    assert error.message.startswith("401" if kind == "auth_error" else "429")
    if kind == "rate_limit_error":
        assert result.events[-1].type == "turn_end"


def test_a_text_that_only_starts_with_a_number_after_real_work_is_no_error() -> None:
    result = run("text")
    assert not result.of_type("auth_error") and not result.of_type("rate_limit_error")
    assert result.events[-1].type == "turn_end"


def test_cancel_mid_stream_and_while_asking_end_the_turn_cancelled() -> None:
    for name in ("cancel", "cancel_at_ask"):
        result = run(name)
        assert len(result.of_type("interrupted")) == 1, name
        assert len(result.of_type("turn_end")) == 2, name  # the follow-up prompt runs too
    at_ask = run("cancel_at_ask")
    assert at_ask.answers()[0]["result"] == {"outcome": {"outcome": "cancelled"}}
    (asked,) = at_ask.asked_tools()[:1]
    assert at_ask.ended()[asked] == "tool_error"  # omp never finishes it: the bridge does


def test_a_restarted_bridge_resumes_omps_session_without_a_replay() -> None:
    result = run("resume_with_session_resume", process=2)
    methods = [m.get("method") for m in result.sent]
    assert "session/resume" in methods and "session/load" not in methods
    (start,) = result.of_type("session_start")
    assert start.resumed
    assert_ordering(result.events)


def test_an_elicitation_that_is_no_approval_is_declined() -> None:
    adapter = OmpAdapter()
    ctx = ParseContext(run_id="r", agent="omp", cwd="/p")
    adapter.start(RunOptions(agent="omp", cwd="/p"), ctx)
    ctx.take_outbox()
    form = {
        "mode": "form",
        "sessionId": "s",
        "message": "Your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
    }
    events = list(
        adapter.parse_line(
            '{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":%s}' % __import__("json").dumps(form), ctx
        )
    )
    assert events == []
    assert '"action":"decline"' in ctx.take_outbox()[0].replace(" ", "")
    assert approval_form(form) is None


def test_the_question_names_the_tool_and_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old\n")
    write = elicited_call(f"Allow tool: write\nPath: {tmp_path}/a.txt\nContent:\nnew\n", str(tmp_path))
    assert write is not None and write["kind"] == "edit" and write["title"] == f"write {tmp_path}/a.txt"
    assert write["content"] == [{"type": "diff", "path": f"{tmp_path}/a.txt", "oldText": "old\n", "newText": "new\n"}]
    edit = elicited_call("Allow tool: edit\nFile: a.txt", str(tmp_path))
    assert edit is not None and edit["locations"] == [{"path": f"{tmp_path}/a.txt"}] and "content" not in edit
    assert elicited_call("Something else entirely", str(tmp_path)) is None

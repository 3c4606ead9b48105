"""copilot (``copilot --acp --stdio`` 1.0.102) on the ACP-client family, over the recorded transcripts in
tests/fixtures/copilot: every run keeps the ordering contract, every question is about a tool call the editor was
shown, refusals and cancels end their calls, "Info:" lines are status (thoughts), "Error:" turns are typed errors,
mode ids are short toward the editor and URLs toward copilot, and a restart loads the session without a replay."""

from __future__ import annotations

import json
from typing import Any

import pytest

from acp_mux.adapters.acp_agents.copilot import (
    MODE_URL,
    CopilotAdapter,
    copilot_mode_id,
    held_is_failure,
    short_mode_id,
)
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.parse_context import ParseContext
from tests.adapters import acp_replay
from tests.adapters.acp_replay import Replay, replay
from tests.adapters.helpers import assert_ordering
from tests.fixtures.acp_transcripts import fixture_names, load

# `resume` is a second process (the first one's turn, then list + resume (refused) + load): see its own test.
REPLAYABLE = [n for n in fixture_names("copilot") if n != "resume"]


def run(name: str, **kwargs: Any) -> Replay:
    return replay(CopilotAdapter(), "copilot", name, **kwargs)


@pytest.mark.parametrize("name", REPLAYABLE)
def test_every_recording_keeps_the_ordering_contract_and_ends_every_tool_call(name: str) -> None:
    result = run(name)
    result.assert_contract()
    assert result.events[-1].type in ("turn_end", "auth_error"), result.events[-1]


def test_copilot_is_started_in_acp_mode_on_stdio_with_the_chosen_model() -> None:
    adapter = CopilotAdapter()
    assert adapter.build_spawn(RunOptions(agent="copilot", cwd="/p")).args == ["--acp", "--stdio"]
    spawn = adapter.build_spawn(RunOptions(agent="copilot", cwd="/p", model="gpt-4.1"))
    assert spawn.args == ["--acp", "--stdio", "--model", "gpt-4.1"]


def test_every_question_is_about_the_tool_call_announced_before_it_with_its_announced_title() -> None:
    result = run("write_edit_allow")
    starts = {e.tool_call_id: e for e in result.of_type("tool_call_start")}
    assert len(starts) == 4  # echo, create, edit, cat
    asked = result.of_type("approval_request")
    assert [e.tool_call_id for e in asked] == list(starts)
    for question in asked:  # the tool call start came first
        assert result.events.index(starts[question.tool_call_id]) < result.events.index(question)
    assert [e.action for e in asked] == [
        "Print a greeting",
        "Creating /work/project/notes.txt",
        "Editing /work/project/notes.txt",
        "Show notes.txt",
    ]
    assert all(result.ended()[tid] == "tool_result" for tid in starts)
    answers = result.answers()
    assert [answers[i]["result"] for i in range(4)] == [
        {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
    ] * 4


def test_the_edit_rule_input_names_the_file_so_an_always_rule_for_it_matches() -> None:
    result = run("write_edit_allow")
    edits = [e.input for e in result.of_type("approval_request") if e.tool_name == "edit"]
    assert [i.get("path") for i in edits] == ["/work/project/notes.txt", "/work/project/notes.txt"]
    commands = [e.input.get("command") for e in result.of_type("approval_request") if e.tool_name == "execute"]
    assert commands == ["echo hello-from-copilot", "cat notes.txt"]


def test_edits_carry_their_diffs_and_locations() -> None:
    result = run("write_edit_allow")
    results = {e.tool_call_id: e for e in result.of_type("tool_result")}
    create, edit = results["call_chatcmpl_fake_1_1"], results["call_chatcmpl_fake_2_0"]
    assert create.display.diffs[0].new_text == "alpha\nbeta\n"
    assert (edit.display.diffs[0].old_text, edit.display.diffs[0].new_text) == ("beta", "gamma")
    start = next(e for e in result.of_type("tool_call_start") if e.tool_call_id == "call_chatcmpl_fake_1_1")
    assert start.display.locations[0].path == "/work/project/notes.txt"


def test_info_lines_are_thoughts_never_the_answer_text() -> None:
    allow = run("write_edit_allow")
    assert "Info:" not in allow.text()
    assert "Info: /work/project/notes.txt" in allow.thoughts()
    assert allow.text().endswith("Done: notes.txt now contains alpha and gamma.")
    reject = run("write_edit_reject")
    assert "Info: Operation cancelled by user" in reject.thoughts() and "Info:" not in reject.text()


def test_a_refused_call_ends_failed_and_the_turn_ends_normally() -> None:
    result = run("write_edit_reject")
    (asked,) = result.asked_tools()  # copilot stops the turn after the first refusal
    assert result.ended()[asked] == "tool_error"
    assert result.answers()[0]["result"] == {"outcome": {"outcome": "selected", "optionId": "reject_once"}}
    assert result.events[-1].type == "turn_end" and not result.of_type("interrupted")


@pytest.mark.parametrize("name", ["auth_error", "auth_error_no_retry"])
def test_a_401_is_an_auth_error_with_the_login_hint_never_end_turn(name: str) -> None:
    result = run(name)
    (error,) = result.of_type("auth_error")
    assert error.message.startswith("Authentication failed with provider") and "HTTP 401" in error.message
    assert "copilot login" in error.guidance
    assert not result.of_type("turn_end")  # the prompt fails as ACP auth_required
    assert "Error:" not in result.text()  # shown once, by the typed error, not also as the answer
    if name == "auth_error":  # copilot's retry lines are retries, as every agent's are
        retries = result.of_type("retry")
        assert [(r.attempt, r.reason) for r in retries] == [
            (1, "Request failed due to a transient API error"),
            (2, "Request failed due to a transient API error"),
        ]
        assert "Retrying" not in result.thoughts()


@pytest.mark.parametrize("name", ["rate_limit", "rate_limit_no_retry"])
def test_a_429_is_a_rate_limit_error(name: str) -> None:
    result = run(name)
    (error,) = result.of_type("rate_limit_error")
    assert "429 Rate limit reached" in error.message
    assert not result.of_type("auth_error") and "Error:" not in result.text()


def test_a_turn_that_merely_says_error_after_real_work_stays_text() -> None:
    assert held_is_failure("Error: 429 Rate limit reached", "end_turn", used_model=True)
    assert held_is_failure("Error: something odd", "end_turn", used_model=False)
    assert not held_is_failure("Error: the test failed as expected", "end_turn", used_model=True)
    assert not held_is_failure("Error: 429 Rate limit reached", "cancelled", used_model=False)
    ctx, adapter = _started()
    chunk = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "Error: the test failed as expected"},
    }
    events = _feed(adapter, ctx, _update(chunk))
    assert events == []  # held until the turn shows what it was
    events = _feed(
        adapter,
        ctx,
        {
            "jsonrpc": "2.0",
            "id": 3,
            "result": {"stopReason": "end_turn", "usage": {"inputTokens": 1, "outputTokens": 1}},
        },
    )
    assert [e.text for e in events if e.type == "message_stop"] == ["Error: the test failed as expected"]
    assert events[-1].type == "turn_end" and not [e for e in events if e.type.endswith("error")]


def test_an_info_or_error_inside_the_models_text_is_text() -> None:
    ctx, adapter = _started()
    chunks = ["The log said:\n", "Info: all good\n", "Error: none"]
    events: list[Any] = []
    for text in chunks:
        events += _feed(
            adapter, ctx, _update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})
        )
    events += _feed(adapter, ctx, {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}})
    assert [e.text for e in events if e.type == "message_stop"] == ["".join(chunks)]
    assert not [e for e in events if e.type.startswith("thinking")]


def test_cancel_mid_stream_and_while_asking_end_the_turn_cancelled() -> None:
    for name in ("cancel", "cancel_at_ask"):
        result = run(name)
        assert len(result.of_type("interrupted")) == 1, name
        assert len(result.of_type("turn_end")) == 2, name  # the follow-up prompt runs too
    at_ask = run("cancel_at_ask")
    assert at_ask.answers()[0]["result"] == {"outcome": {"outcome": "cancelled"}}
    asked = at_ask.asked_tools()[0]
    assert at_ask.ended()[asked] == "tool_error"  # copilot leaves it pending: the bridge ends it


def test_a_cancel_answered_end_turn_is_still_cancelled() -> None:
    """The issue saw copilot answer a cancel with end_turn (1.0.102 says cancelled): either way the editor gets
    cancelled."""
    ctx, adapter = _started()
    _feed(
        adapter, ctx, _update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Line 1"}})
    )
    assert adapter.interrupt(ctx)
    events = _feed(adapter, ctx, {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}})
    assert [e.type for e in events][-2:] == ["interrupted", "turn_end"]


def test_a_turn_copilot_stops_by_itself_spends_the_process_and_a_cancel_asked_for_does_not() -> None:
    """copilot 1.0.102 sometimes answers ``cancelled`` midway through a fast long reply with no cancel asked, and then
    never answers another prompt in that process: the run says its process is spent (the next prompt gets a new
    copilot). A cancel the person asked for leaves the process usable, and so does a finished turn."""
    chunk = _update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "c1 "}})
    ctx, adapter = _started()
    _feed(adapter, ctx, chunk)
    events = _feed(adapter, ctx, {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "cancelled"}})
    assert [e.type for e in events][-2:] == ["interrupted", "turn_end"]
    assert ctx.process_spent
    asked, asked_adapter = _started()
    _feed(asked_adapter, asked, chunk)
    assert asked_adapter.interrupt(asked)
    _feed(asked_adapter, asked, {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "cancelled"}})
    assert not asked.process_spent
    done, done_adapter = _started()
    _feed(done_adapter, done, {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}})
    assert not done.process_spent


def test_mode_ids_are_short_toward_the_editor_and_urls_toward_copilot() -> None:
    result = run("write_edit_set_mode")
    options = result.of_type("session_options")[0]
    assert [(m.id, m.name) for m in options.modes] == [("agent", "Agent"), ("plan", "Plan"), ("autopilot", "Autopilot")]
    assert options.current_mode == "agent"
    assert [e.mode_id for e in result.of_type("mode_change")] == ["autopilot"]
    sent = [m for m in result.sent if m.get("method") == "session/set_mode"]
    assert [m["params"]["modeId"] for m in sent] == [MODE_URL + "autopilot"]
    assert short_mode_id(MODE_URL + "plan") == "plan" and copilot_mode_id("plan") == MODE_URL + "plan"
    assert copilot_mode_id(MODE_URL + "plan") == MODE_URL + "plan"


def test_a_new_session_never_starts_hands_off() -> None:
    """copilot reporting autopilot or allow_all on (the person's own copilot config) for a new session: acp-mux's
    default asks, so the bridge switches to agent and allow_all off; COPILOT_ALLOW_ALL set by the person is kept."""
    new = json.loads(json.dumps(_new_session_result()).replace(MODE_URL + 'agent"', MODE_URL + 'autopilot"'))
    for option in new["configOptions"]:
        if option["id"] == "allow_all":
            option["currentValue"] = "on"
    ctx, adapter = _started(new_session=new)
    sent = [json.loads(line) for line in ctx.take_outbox()]
    assert {m["method"]: m["params"] for m in sent if m.get("method", "").startswith("session/set")} == {
        "session/set_mode": {"sessionId": "s1", "modeId": MODE_URL + "agent"},
        "session/set_config_option": {"sessionId": "s1", "configId": "allow_all", "value": "off"},
    }
    ctx, adapter = _started(new_session=new, env={"COPILOT_ALLOW_ALL": "true"}, mode="autopilot")
    assert not [json.loads(line) for line in ctx.take_outbox() if "session/set" in line]


def test_a_restarted_bridge_loads_the_session_and_hides_copilots_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """copilot has no session/resume: the family loads (copilot replays the history first), and the replay is
    not news: the bridge shows its own record."""
    entries = load("copilot", "resume")
    refused = {json.dumps(e.get("msg", {}).get("method")) for e in entries}
    assert '"session/resume"' in refused  # the recording tried resume first and was refused
    kept = [e for e in entries if not _is_resume_attempt(e)]
    monkeypatch.setattr(acp_replay, "load", lambda cli, name: kept)
    result = run("resume", process=2)
    methods = [m.get("method") for m in result.sent]
    assert "session/load" in methods and "session/resume" not in methods
    (start,) = result.of_type("session_start")
    assert start.resumed
    assert_ordering(result.events)
    assert len(result.of_type("turn_start")) == 1  # only the new prompt's turn: the replayed one is not shown
    assert not result.of_type("tool_call_start")


# ── helpers ──────────────────────────────────────────────────────────────────────────────────────────────────
def _is_resume_attempt(entry: dict[str, Any]) -> bool:
    msg = entry.get("msg") or {}
    return (
        msg.get("method") == "session/resume"
        or (msg.get("error") or {}).get("data", {}).get("method") == "session/resume"
    )


def _new_session_result() -> dict[str, Any]:
    entries = load("copilot", "write_edit_allow")
    return next(
        e["msg"]["result"]
        for e in entries
        if e["from"] == "agent"
        and isinstance(e.get("msg", {}).get("result"), dict)
        and "configOptions" in e["msg"]["result"]
        and "sessionId" in e["msg"]["result"]
    )


def _started(
    *, new_session: dict[str, Any] | None = None, env: dict[str, str] | None = None, mode: str | None = None
) -> tuple[ParseContext, CopilotAdapter]:
    """An adapter past initialize and session/new (session id ``s1``) with a prompt (our id 3) in flight."""
    adapter = CopilotAdapter()
    ctx = ParseContext(run_id="r", agent="copilot", cwd="/work/project")
    adapter.start(RunOptions(agent="copilot", cwd="/work/project", env=env or {}, mode=mode), ctx)
    _feed(
        adapter,
        ctx,
        {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}}},
    )
    body = {**(new_session or _new_session_result()), "sessionId": "s1"}
    _feed(adapter, ctx, {"jsonrpc": "2.0", "id": 2, "result": body})
    if new_session is None:
        ctx.take_outbox()
        from acp_mux.core.run.prompt import Prompt

        adapter.send_prompt(Prompt.of_text("hi"), ctx)
        ctx.take_outbox()
    return ctx, adapter


def _feed(adapter: CopilotAdapter, ctx: ParseContext, msg: dict[str, Any]) -> list[Any]:
    return list(adapter.parse_line(json.dumps(msg), ctx))


def _update(update: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": update}}

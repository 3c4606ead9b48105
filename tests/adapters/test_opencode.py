"""opencode (``opencode acp`` 1.18.33) on the ACP-client family, over the recorded transcripts in tests/fixtures/opencode:
every run keeps the ordering contract, opencode is started with asking rules without touching the user's files,
each call is shown with its input before its question and never as running before it is allowed, a refused call
ends failed, opencode's unasked fs/write_text_file writes nothing twice, 401/429 are typed errors, cancel ends
``cancelled``, and a restarted bridge resumes opencode's own session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_mux.adapters.acp_agents.opencode import (
    CONFIG_ENV,
    OpencodeAdapter,
    merged_config_content,
    permission_config,
    stream_error,
)
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.run.prompt import Prompt
from tests.adapters.acp_replay import Replay, replay
from tests.adapters.helpers import AsTheRunDrives
from tests.fixtures.acp_transcripts import fixture_names

# `resume` re-attached with session/load (opencode replays first); the adapter resumes with session/resume, which
# `resume_with_session_resume` records.
REPLAYABLE = [n for n in fixture_names("opencode") if n != "resume"]


def run(name: str, cwd: Path | None = None, **kwargs: Any) -> Replay:
    if cwd is not None:
        kwargs["cwd"] = str(cwd)
    return replay(OpencodeAdapter(), "opencode", name, **kwargs)


@pytest.mark.parametrize("name", REPLAYABLE)
def test_every_recording_keeps_the_ordering_contract_and_ends_every_tool_call(name: str) -> None:
    result = run(name)
    result.assert_contract()
    assert result.events[-1].type in ("turn_end", "auth_error"), result.events[-1]


# ── start: asking rules through OPENCODE_CONFIG_CONTENT ─────────────────────────────────────────────────────────
def test_opencode_starts_with_asking_rules_on_its_agents_and_a_truthful_allow_all_mode() -> None:
    spawn = OpencodeAdapter().build_spawn(RunOptions(agent="opencode", cwd="/p", env={"HOME": "/h", "PATH": "/bin"}))
    assert spawn.args == ["acp", "--print-logs", "--log-level", "WARN"]  # its log on stderr: retries show only there
    assert spawn.env is not None and spawn.env["HOME"] == "/h"
    config = json.loads(spawn.env[CONFIG_ENV])
    agents = config["agent"]
    assert config["default_agent"] == "build"
    for asking in ("build", "general"):
        assert agents[asking]["permission"] == {"edit": "ask", "bash": "ask", "webfetch": "ask"}
    assert "edit" not in agents["plan"]["permission"]  # plan keeps its own edit deny
    assert agents["plan"]["permission"]["bash"] == "ask" and agents["explore"]["permission"]["bash"] == "ask"
    assert agents["allow-all"] == {**agents["allow-all"], "mode": "primary", "permission": {"*": "allow"}}
    assert "permission" not in config  # a top-level rule would override every agent's own (plan's deny)


def test_the_users_own_config_content_is_kept_under_the_bridges_rules() -> None:
    theirs = json.dumps(
        {"theme": "dark", "agent": {"build": {"model": "x/y", "permission": {"bash": "allow", "read": "deny"}}}}
    )
    merged = json.loads(merged_config_content(theirs))
    assert merged["theme"] == "dark"
    assert merged["agent"]["build"]["model"] == "x/y"
    assert merged["agent"]["build"]["permission"] == {"bash": "ask", "read": "deny", "edit": "ask", "webfetch": "ask"}
    assert json.loads(merged_config_content("{not json")) == permission_config()


# ── tool calls: shown with their input before the question, never running before the answer ───────────────────
def test_each_question_is_about_a_call_shown_with_its_real_input_and_not_yet_running() -> None:
    result = run("write_edit_allow")
    asked = result.of_type("approval_request")
    assert len(asked) == 4
    for question in asked:
        at = result.events.index(question)
        before = result.events[:at]
        ready = [e for e in before if e.type == "tool_call_ready" and e.tool_call_id == question.tool_call_id]
        assert len(ready) == 1 and ready[0].input, question.tool_call_id
        running = [
            e for e in before if e.type == "tool_update" and e.tool_call_id == question.tool_call_id and e.running
        ]
        assert running == [], "shown running before it was allowed"
    inputs = {e.tool_call_id: e.input for e in result.of_type("tool_call_ready")}
    assert inputs["toolu_fake_1_2"]["command"] == "echo hello-from-opencode"
    assert inputs["toolu_fake_2_1"] == {"filePath": "/work/project/notes.txt", "content": "alpha\nbeta\n"}
    assert inputs["toolu_fake_4_1"] == {
        "command": "cat notes.txt"
    }  # asked before its in_progress: the question's input
    starts = {e.tool_call_id: e for e in result.of_type("tool_call_start")}
    assert starts["toolu_fake_1_2"].input_accumulated == ""  # announced empty, as opencode does
    assert all(kind == "tool_result" for kind in result.ended().values())
    titles = [
        e.display.title for e in result.of_type("tool_update") if e.tool_call_id == "toolu_fake_1_2" and e.display
    ]
    assert "echo hello-from-opencode" in titles


def test_the_always_rule_input_names_the_file_and_the_command() -> None:
    result = run("write_edit_allow")
    by_tool = {e.tool_call_id: e.input for e in result.of_type("approval_request")}
    assert by_tool["toolu_fake_2_1"]["path"] == "/work/project/notes.txt"
    assert by_tool["toolu_fake_4_1"]["command"] == "cat notes.txt"
    # the bridge answers a one-time allow whatever the person said: its own rules keep "always"
    assert {
        a["result"]["outcome"]["optionId"] for a in result.answers().values() if "outcome" in a.get("result", {})
    } == {"once"}


def test_a_refused_call_ends_failed_and_is_never_shown_running() -> None:
    result = run("write_edit_reject")
    (question,) = result.of_type("approval_request")
    assert result.ended() == {question.tool_call_id: "tool_error"}
    assert not [e for e in result.of_type("tool_update") if e.running]
    assert result.answers()[0]["result"] == {"outcome": {"outcome": "selected", "optionId": "reject"}}
    assert result.events[-1].type == "turn_end"


def test_plan_mode_is_opencodes_config_option_and_its_edit_refusals_end_failed() -> None:
    result = run("write_edit_plan_mode")
    sent = [m for m in result.sent if m.get("method") == "session/set_config_option"]
    assert [m["params"]["configId"] for m in sent] == ["mode"] and sent[0]["params"]["value"] == "plan"
    modes = [e for e in result.of_type("session_options") if e.current_mode == "plan"]
    assert modes and [m.id for m in modes[0].modes] == ["build", "plan"]
    edits = [e.tool_call_id for e in result.of_type("tool_call_start") if e.display and e.display.kind == "edit"]
    asked = {e.tool_call_id for e in result.of_type("approval_request")}
    assert edits and not set(edits) & asked
    assert all(result.ended()[tid] == "tool_error" for tid in edits)


# ── fs/write_text_file ─────────────────────────────────────────────────────────────────────────────────────────
def test_an_unoffered_write_is_answered_without_writing_a_second_time(tmp_path: Path) -> None:
    result = run("write_edit_allow", cwd=tmp_path)
    writes = [a for rid, a in result.answers().items() if rid in (2, 4)]
    assert [w.get("result") for w in writes] == [{}, {}]  # opencode's own edit tool writes the file
    assert not (tmp_path / "notes.txt").exists()
    assert not result.of_type("client_request")


def test_an_offered_write_goes_to_the_editor() -> None:
    result = run("write_edit_fs")
    relayed = result.of_type("client_request")
    assert [r.method for r in relayed] == ["fs/write_text_file", "fs/write_text_file"]
    assert relayed[0].params == {"path": "/work/project/notes.txt", "content": "alpha\nbeta\n"}


# ── errors, cancel, resume ─────────────────────────────────────────────────────────────────────────────────────
def test_a_refused_key_is_an_auth_error_with_opencodes_login() -> None:
    result = run("auth_error")
    (error,) = result.of_type("auth_error")
    assert error.message == "Internal error: invalid x-api-key"
    assert "opencode auth login" in error.guidance
    assert not result.of_type("turn_end")


def test_a_rate_limit_is_a_typed_error_that_ends_the_turn() -> None:
    result = run("rate_limit")
    (error,) = result.of_type("rate_limit_error")
    assert "Rate limited" in error.message
    assert result.events[-1].type == "turn_end" and not result.of_type("auth_error")


def test_cancel_mid_stream_and_while_asking_end_the_turn_cancelled() -> None:
    for name in ("cancel", "cancel_at_ask"):
        result = run(name)
        assert len(result.of_type("interrupted")) == 1, name
        assert len(result.of_type("turn_end")) == 2, name  # the follow-up prompt runs too
    at_ask = run("cancel_at_ask")
    assert at_ask.answers()[0]["result"] == {"outcome": {"outcome": "cancelled"}}
    first = at_ask.of_type("approval_request")[0].tool_call_id
    assert at_ask.ended()[first] == "tool_error"


def test_a_restarted_bridge_resumes_opencodes_session_without_a_replay() -> None:
    result = run("resume_with_session_resume", process=2)
    methods = [m.get("method") for m in result.sent]
    assert "session/resume" in methods and "session/load" not in methods
    (start,) = result.of_type("session_start")
    assert start.resumed and start.session_id.startswith("ses_")
    assert result.of_type("turn_end")


# ── retries of a failing model: only in opencode's log (stderr with --print-logs) ─────────────────────────────
# Recorded from opencode 1.18.33 (`--print-logs`) while the model endpoint answered HTTP 500 to every request.
SES = "ses_df70ae9fdffeKsOO8FiLASAwj5"
FAILED_REQUEST = (
    'timestamp=2026-11-23T15:10:10.607Z level=ERROR run=fef59d35 message="stream error" providerID=fake '
    f"modelID=claude-sonnet-4-5 session.id={SES} small=false agent=build mode=primary "
    'error.error="AI_APICallError: Internal server error (fake)"'
)
FAILED_TITLE = (  # opencode's own title request (small=true) gave up: not the person's turn
    'timestamp=2026-11-23T15:10:15.736Z level=ERROR run=fef59d35 message="stream error" providerID=fake '
    f"modelID=claude-sonnet-4-5 session.id={SES} small=true agent=title mode=primary "
    'error.error="AI_RetryError: Failed after 3 attempts. Last error: Internal server error (fake)"'
)
OTHER = (
    f"timestamp=2026-11-23T15:10:10.585Z level=INFO run=fef59d35 message=stream providerID=fake "
    f"modelID=claude-sonnet-4-5 session.id={SES} small=false agent=build mode=primary"
)


def rpc(obj: dict[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", **obj})


def prompting(session: str = SES) -> tuple[OpencodeAdapter, ParseContext]:
    """An opencode run whose session is open and whose prompt is in flight (request id 3)."""
    adapter, ctx = AsTheRunDrives(OpencodeAdapter()), ParseContext(run_id="r1", agent="opencode", cwd="/p")
    adapter.start(RunOptions(agent="opencode", cwd="/p", prompt=Prompt.of_text("hello")), ctx)
    list(adapter.parse_line(rpc({"id": 1, "result": {"protocolVersion": 1, "agentCapabilities": {}}}), ctx))
    list(adapter.parse_line(rpc({"id": 2, "result": {"sessionId": session}}), ctx))
    assert any(json.loads(m).get("method") == "session/prompt" for m in ctx.take_outbox())
    return adapter, ctx


def test_only_a_failed_request_of_the_persons_turn_is_read_from_its_log() -> None:
    assert stream_error(FAILED_REQUEST) == (SES, "Internal server error (fake)")
    assert stream_error(FAILED_TITLE) is None
    assert stream_error(OTHER) is None
    assert stream_error("") is None and stream_error('message="stream error"') is None


def test_each_failed_request_is_a_numbered_retry_and_the_final_error_ends_the_turn() -> None:
    adapter, ctx = prompting()
    events = [
        e for text in (FAILED_REQUEST, FAILED_TITLE, OTHER, FAILED_REQUEST) for e in adapter.stderr_events(text, ctx)
    ]
    retries = [e for e in events if e.type == "retry"]
    assert [(r.attempt, r.max_attempts) for r in retries] == [(1, 5), (2, 5)]
    assert retries[0].reason == "the model request failed (Internal server error (fake)); opencode tries again"
    failed = list(
        adapter.parse_line(
            rpc({"id": 3, "error": {"code": -32603, "message": "Internal error: Internal server error (fake)"}}), ctx
        )
    )
    assert any(e.type == "error" and "Internal server error" in e.message for e in failed), failed


def test_a_failed_request_of_another_session_or_outside_a_prompt_says_nothing() -> None:
    adapter, ctx = prompting(session="ses_other")
    assert list(adapter.stderr_events(FAILED_REQUEST, ctx)) == []
    adapter, ctx = prompting()
    list(adapter.parse_line(rpc({"id": 3, "result": {"stopReason": "end_turn"}}), ctx))
    assert list(adapter.stderr_events(FAILED_REQUEST, ctx)) == []  # the prompt has ended: not this turn's news


def test_the_retry_count_starts_again_with_each_prompt() -> None:
    adapter, ctx = prompting()
    list(adapter.stderr_events(FAILED_REQUEST, ctx))
    list(adapter.parse_line(rpc({"id": 3, "result": {"stopReason": "end_turn"}}), ctx))
    adapter.send_prompt(Prompt.of_text("again"), ctx)
    (retry,) = [e for e in adapter.stderr_events(FAILED_REQUEST, ctx) if e.type == "retry"]
    assert retry.attempt == 1


def test_the_sixth_failed_request_and_a_refused_key_are_not_retries() -> None:
    """opencode retries five times, and never a refused key: those failures are followed at once by its error."""
    adapter, ctx = prompting()
    retries = [e for _ in range(6) for e in adapter.stderr_events(FAILED_REQUEST, ctx) if e.type == "retry"]
    assert [r.attempt for r in retries] == [1, 2, 3, 4, 5]
    adapter, ctx = prompting()
    refused = FAILED_REQUEST.replace("Internal server error (fake)", "invalid x-api-key")
    assert list(adapter.stderr_events(refused, ctx)) == []

"""pi's rpc transcripts (tests/fixtures/pi, recorded from pi 0.73.1 by capture_pi.py) through the pi adapter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_mux.adapters.rpc_agents.pi import GATE, GATE_ENV, LOADER, PiAdapter, PiRun
from acp_mux.adapters.rpc_agents.pi_lines import read_update
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.events.union import BaseEvent
from acp_mux.core.run.prompt import Prompt
from tests.adapters.helpers import (
    FIXTURES,
    assert_ordering,
    brief,
    capture_lines,
    make_ctx,
    sent,
    stdin_annotations,
    types,
)

PI = FIXTURES / "pi"
CWD = "/work/project"


def run(
    name: str,
    *,
    answer: bool | None = None,
    mode: str | None = None,
    session_id: str | None = None,
    interrupt_at_text: bool = False,
    env: dict[str, str] | None = None,
) -> tuple[list[BaseEvent], Any, PiAdapter]:
    """Replay a fixture's pi lines through a fresh adapter, answering its questions as a person would."""
    adapter = PiAdapter()
    ctx = make_ctx("pi", CWD)
    lines = capture_lines(PI / f"{name}.jsonl")
    prompt = next(m["message"] for m in stdin_annotations(PI / f"{name}.jsonl") if m.get("type") == "prompt")
    options = RunOptions(
        agent="pi", cwd=CWD, mode=mode, session_id=session_id, env=env or {}, prompt=Prompt.of_text(prompt)
    )
    adapter.start(options, ctx)  # the same commands, with the same ids, as the recorder sent
    events: list[BaseEvent] = []
    interrupted = False
    for line in lines:
        for event in adapter.parse_line(line, ctx):
            events.append(event)
            if event.type == "approval_request" and answer is not None:
                adapter.respond_approval(event.interaction_id, ApprovalDecision(approve=answer), ctx)
            if interrupt_at_text and event.type == "text_delta" and not interrupted:
                interrupted = adapter.interrupt(ctx)
    return events, ctx, adapter


def of(events: list[BaseEvent], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]


# ── write then edit ────────────────────────────────────────────────────────────────────────────────────────────
def test_allowed_write_edit_streams_thinking_text_tools_and_one_turn() -> None:
    events, ctx, _ = run("write_edit_allow", answer=True)
    assert_ordering(events)
    assert types(events).count("turn_start") == 1 and types(events).count("turn_end") == 1
    (start,) = of(events, "session_start")
    assert start.session_id.startswith("/work/home/.pi/agent/sessions/--work-project--/") and not start.resumed
    assert (
        "".join(e.delta for e in of(events, "thinking_delta")) == "First check the shell works, then write notes.txt."
    )
    assert of(events, "message_stop")[-1].text == "Done: notes.txt now contains alpha and gamma."
    ready = [(e.tool_name, e.input) for e in of(events, "tool_call_ready")]
    assert ready == [
        ("bash", {"command": "echo hello-from-pi"}),
        ("write", {"path": "/work/project/notes.txt", "content": "alpha\nbeta\n"}),
        ("edit", {"path": "/work/project/notes.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]}),
        ("bash", {"command": "echo done-from-pi"}),
    ]
    asked = of(events, "approval_request")
    assert [e.tool_name for e in asked] == ["bash", "write", "edit", "bash"]
    assert [e.tool_call_id for e in asked] == [e.tool_call_id for e in of(events, "tool_call_ready")]
    assert asked[1].input == {
        "path": "/work/project/notes.txt",
        "content": "alpha\nbeta\n",
    }  # "always" rules match on it
    # every question was answered on pi's stdin, by its request id
    answers = [m for m in sent(ctx) if m.get("type") == "extension_ui_response"]
    assert len(answers) == 4 and all(m["confirmed"] is True for m in answers)
    # the commands ran and showed their output; the edit's result carries pi's diff
    assert brief(of(events, "shell_start")) == [
        ("shell_start", "echo hello-from-pi", CWD),
        ("shell_start", "echo done-from-pi", CWD),
    ]
    assert [e.delta for e in of(events, "shell_stdout_delta")] == ["hello-from-pi\n", "done-from-pi\n"]
    assert [e.exit_code for e in of(events, "shell_exit")] == [0, 0]
    results = of(events, "tool_result")
    assert len(results) == 4 and results[2].output["diff"] == " 1 alpha\n-2 beta\n+2 gamma"


def test_the_turn_ends_only_when_pi_has_settled() -> None:
    """agent_end alone does not end the turn: the get_state sent after it does, with the usage and cost first."""
    events, ctx, _ = run("write_edit_allow", answer=True)
    assert types(events)[-2:] == ["cost", "turn_end"]
    assert of(events, "cost")[-1].cost.input_tokens == 500  # five model calls of 100 input tokens
    assert of(events, "token_usage")[0].output_tokens == 20
    assert PiRun.of(ctx).settling is False


def test_rejected_calls_fail_and_no_command_is_shown_running() -> None:
    events, ctx, _ = run("write_edit_reject", answer=False)
    assert_ordering(events)
    errors = of(events, "tool_error")
    assert [e.tool_name for e in errors] == ["bash", "write", "edit", "bash"]
    assert all(e.error == "The user rejected this action." for e in errors)
    assert of(events, "shell_start") == [] and of(events, "tool_result") == []
    answers = [m for m in sent(ctx) if m.get("type") == "extension_ui_response"]
    assert len(answers) == 4 and all(m["confirmed"] is False for m in answers)


@pytest.mark.parametrize(
    ("mode", "asked"), [("accept-edits", ["bash", "bash"]), ("bypass", []), ("ask", ["bash", "write", "edit", "bash"])]
)
def test_modes_decide_which_questions_reach_the_editor(mode: str, asked: list[str]) -> None:
    events, ctx, _ = run("write_edit_allow", answer=True, mode=mode)
    assert [e.tool_name for e in of(events, "approval_request")] == asked
    answers = [m for m in sent(ctx) if m.get("type") == "extension_ui_response"]
    assert len(answers) == 4 and all(m["confirmed"] is True for m in answers)  # the rest answered by the mode


def test_a_mode_switch_applies_to_the_next_question() -> None:
    adapter, ctx = PiAdapter(), make_ctx("pi", CWD)
    adapter.start(RunOptions(agent="pi", cwd=CWD, env={}), ctx)
    sent(ctx)
    ask = {
        "type": "extension_ui_request",
        "id": "q1",
        "method": "confirm",
        "title": "acp-mux:permission",
        "message": json.dumps({"toolCallId": "c1", "toolName": "write", "input": {"path": "a.txt", "content": ""}}),
    }
    assert adapter.set_mode("accept-edits", ctx)
    assert adapter.parse_line(json.dumps(ask), ctx) == []
    assert sent(ctx) == [{"type": "extension_ui_response", "id": "q1", "confirmed": True}]
    assert adapter.set_mode("ask", ctx)
    asked = adapter.parse_line(json.dumps({**ask, "id": "q2"}), ctx)
    assert [e.type for e in asked][-1] == "approval_request" and sent(ctx) == []


# ── cancel, errors, resume ─────────────────────────────────────────────────────────────────────────────────────
def test_cancel_sends_abort_and_ends_the_turn_without_an_error() -> None:
    events, ctx, _ = run("cancel", interrupt_at_text=True)
    assert_ordering(events)
    assert {"type": "abort"} in sent(ctx)
    assert types(events)[-1] == "turn_end"
    assert not [e for e in events if e.type in ("error", "auth_error", "rate_limit_error")]
    assert "Line 200" not in "".join(e.delta for e in of(events, "text_delta"))


def test_auth_error_is_typed_with_the_http_status() -> None:
    events, _, adapter = run("auth_error")
    (error,) = of(events, "auth_error")
    assert error.message.startswith("401 ") and error.guidance == adapter.auth_hint
    assert of(events, "retry") == []  # pi does not retry a 401


def test_rate_limit_shows_the_retry_then_ends_the_turn_once_with_the_final_error() -> None:
    events, _, _ = run("rate_limit")
    assert_ordering(events)
    (retry,) = of(events, "retry")
    assert retry.attempt == 1 and "429" in retry.reason
    (error,) = of(events, "rate_limit_error")
    assert "429" in error.message
    assert types(events).count("turn_end") == 1 and types(events).index("retry") < types(events).index(
        "rate_limit_error"
    )


def test_resume_reports_the_same_session_file() -> None:
    lines = capture_lines(PI / "resume.jsonl")
    session_file = json.loads(lines[0])["data"]["sessionFile"]
    events, _, _ = run("resume", session_id=session_file)
    (start,) = of(events, "session_start")
    assert start.session_id == session_file and start.resumed
    assert of(events, "message_stop")[-1].text == "Done: notes.txt now contains alpha and gamma."


# ── the gate ───────────────────────────────────────────────────────────────────────────────────────────────────
def test_a_gate_that_did_not_load_is_said_and_offers_only_the_truthful_mode() -> None:
    events, ctx, _ = run("gate_failed", answer=True)
    options = [e for e in of(events, "session_options") if e.modes is not None]
    assert [m.id for m in options[-1].modes] == ["no-permissions"] and options[-1].current_mode == "no-permissions"
    note = of(events, "message_stop")[0].text
    assert "pi does not ask before changing files or running commands" in note and "ParseError" in note
    assert of(events, "approval_request") == []
    assert len(of(events, "tool_result")) == 4  # everything ran, as pi does without the gate
    commands = of(events, "commands_update")[-1].commands
    assert all(not c.name.startswith("acp-mux") for c in commands)


def test_spawn_loads_the_loader_with_the_gate_in_the_environment(tmp_path: Path) -> None:
    adapter = PiAdapter()
    spec = adapter.build_spawn(RunOptions(agent="pi", cwd=str(tmp_path), env={"PATH": "/usr/bin"}))
    assert spec.args[:4] == ["--mode", "rpc", "-e", str(LOADER)]
    assert spec.env == {"PATH": "/usr/bin", GATE_ENV: str(GATE)}
    assert LOADER.is_file() and GATE.is_file()
    off = adapter.build_spawn(RunOptions(agent="pi", cwd=str(tmp_path), env={"ACP_MUX_PI_EXTENSION": ""}))
    assert "-e" not in off.args


def test_a_session_file_that_is_gone_starts_a_new_session_with_a_note(tmp_path: Path) -> None:
    adapter, ctx = PiAdapter(), make_ctx("pi", str(tmp_path))
    kept = tmp_path / "kept.jsonl"
    kept.write_text("")
    spec = adapter.build_spawn(RunOptions(agent="pi", cwd=str(tmp_path), session_id=str(kept), env={}))
    assert spec.args[spec.args.index("--session") + 1] == str(kept)
    gone = RunOptions(agent="pi", cwd=str(tmp_path), session_id=str(tmp_path / "gone.jsonl"), env={})
    assert "--session" not in adapter.build_spawn(gone).args
    adapter.start(gone, ctx)
    events = adapter.parse_line('{"type":"agent_start"}', ctx)
    assert "pi's earlier session is gone" in of(events, "message_stop")[0].text


# ── constant cost per streaming line ───────────────────────────────────────────────────────────────────────────
def test_a_message_update_is_read_without_parsing_its_partial_message() -> None:
    """The delta comes out of a line whose (megabyte) partial message is not even valid JSON: it is never parsed."""
    junk = "x" * 1_000_000
    line = (
        '{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":3,'
        f'"delta":"Line 042\\n","partial":{{{junk}'
    )
    update = read_update(line)
    assert update is not None and (update.kind, update.index, update.delta) == ("text_delta", 3, "Line 042\n")


def test_a_started_tool_call_is_found_from_the_end_of_the_line() -> None:
    head = '{"type":"message_update","assistantMessageEvent":{"type":"toolcall_start","contentIndex":1,"partial":'
    block = '{"type":"toolCall","id":"call_7","name":"write","arguments":{},"partialArgs":"","streamIndex":0}'
    tail = '],"api":"openai-completions","stopReason":"stop","timestamp":1}}'
    line = (
        head
        + "not json " * 100_000
        + ',"message":{"role":"assistant","content":[{"type":"text","text":"hi"},'
        + block
        + tail
    )
    update = read_update(line)
    assert update is not None and update.tool_call == {"id": "call_7", "name": "write"}


def test_a_line_laid_out_differently_is_still_read_correctly() -> None:
    line = json.dumps(
        {
            "type": "message_update",
            "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "hi", "partial": {}},
        }
    )
    assert read_update(line).delta == "hi"  # json.dumps puts spaces after separators: the full parse is used

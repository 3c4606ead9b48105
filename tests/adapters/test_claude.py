"""The Claude adapter over real Claude Code 2.1.197 transcripts, plus the lines no capture has (said so inline).

Transcripts live in ``tests/fixtures/claude/shared-captures/`` (copied from the research captures; see the README
there). Freshly recorded fixtures in ``tests/fixtures/claude/*.jsonl`` are picked up by the contract test at the end.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from acp_mux.core.events import union as ev
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.run.interaction import AgentEnd
from acp_mux.core.events.union import CostRecord, is_terminal_event
from acp_mux.core.process.spawn import ExitStatus
from acp_mux.core.run.prompt import ImagePart, Prompt, ResourcePart, TextPart
from acp_mux.adapters.stream_agents.claude import (
    AUTH_GUIDANCE,
    BACKGROUND_ENV,
    BASE_ARGS,
    LOCAL_WARM_UP_SINCE,
    WARM_UP,
    ClaudeAdapter,
    foreground_env,
    prewarm_mode,
    warms_locally,
)
from acp_mux.adapters.mcp import claude_mcp_config as mcp_config
from acp_mux.adapters.stream_agents.claude_tools import CLAUDE_TOOLS, structured_patch_to_diff
from tests.adapters.helpers import (
    FIXTURES,
    assert_ordering,
    brief,
    capture_lines,
    feed,
    make_ctx,
    sent,
    stdin_annotations,
    types,
)

CAPTURES = FIXTURES / "claude" / "shared-captures"
CWD = "/home/user/project"
NOTE = f"{CWD}/note.txt"
BASH_INPUT = {"command": "echo hello-from-tool", "description": "Print greeting"}
WRITE_INPUT = {"file_path": NOTE, "content": "alpha\nbeta\n"}
EDIT_INPUT = {"replace_all": False, "file_path": NOTE, "old_string": "beta", "new_string": "gamma"}
WRITE_OK = f"File created successfully at: {NOTE} (file state is current in your context — no need to Read it back)"
EDIT_OK = (
    f"The file {NOTE} has been updated successfully. (file state is current in your context — no need to Read it back)"
)
EDIT_DIFF = f"--- {NOTE}\n+++ {NOTE}\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n"
NO_FILE = f"File does not exist. Note: your current working directory is {CWD}."
THOUGHT = "User said hi. I will run a shell command."
FINAL = "All done: ran echo, wrote and edited note.txt."


def unsettled(events: list) -> list:
    """The events without Claude's own settings (``session_options``: tests/adapters/test_claude_settings.py)."""
    return [e for e in events if e.type != "session_options"]


@pytest.fixture
def adapter() -> ClaudeAdapter:
    return ClaudeAdapter()


def run_capture(adapter: ClaudeAdapter, name: str, *, exit_code: int | None = 0, **options):
    ctx = make_ctx("claude", CWD)
    adapter.start(RunOptions(agent="claude", cwd=CWD, **options), ctx)
    ctx.take_outbox()
    events = feed(adapter, capture_lines(CAPTURES / f"claude-{name}.jsonl"), ctx, exit_code=exit_code)
    return [e for e in events if e.type not in ("skill_loaded", "session_options")], ctx  # (test_claude_settings)


def bash_turn_prefix(session: str, *, streamed: bool = False) -> list[tuple]:
    text = (
        [("text_delta", "Let me run"), ("text_delta", " a command.")]
        if streamed
        else [("text_delta", "Let me run a command.")]
    )
    parts = ['{"com', 'mand": "echo hello-from-tool", "description": "Print greeting"}']
    deltas = [("tool_input_delta", "toolu_fake_0", part) for part in parts]
    return [
        ("session_start", session, False),
        ("commands_update",),  # the capture's init names its slash commands
        ("turn_start", 0),
        ("thinking_start",), ("thinking_delta", THOUGHT), ("thinking_stop", THOUGHT),
        ("message_start",), *text, ("message_stop", "Let me run a command."),
        ("tool_call_start", "toolu_fake_0", "Bash"), *(deltas if streamed else []),
        ("tool_call_ready", "toolu_fake_0", BASH_INPUT),
        ("shell_start", "echo hello-from-tool", CWD), ("shell_stdout_delta", "hello-from-tool"), ("shell_exit", 0),
        ("tool_result", "toolu_fake_0", "hello-from-tool"),
    ]  # fmt: skip


RESULT_TAIL = [
    ("message_start",), ("text_delta", FINAL), ("message_stop", FINAL),
    ("token_usage", 44, 68), ("cost", CostRecord(total_usd=0.001152, input_tokens=44, output_tokens=68, cached_tokens=0)),
    ("turn_end", 0),
]  # fmt: skip


# ── real transcripts ────────────────────────────────────────────────────────────────────────────────────────────
def test_control_allow_transcript(adapter: ClaudeAdapter) -> None:
    events, ctx = run_capture(adapter, "control-allow")
    assert brief(events) == bash_turn_prefix("6525e8a2-b560-4fcb-ae0b-4cfbe941aa28") + [
        ("message_start",), ("text_delta", "Now writing a file."), ("message_stop", "Now writing a file."),
        ("tool_call_start", "toolu_fake_1", "Write"), ("tool_call_ready", "toolu_fake_1", WRITE_INPUT),
        ("approval_request", "6539b299-e04d-4972-ba3e-046901dc0490", "toolu_fake_1"),
        ("tool_result", "toolu_fake_1", WRITE_OK),
        ("file_create", NOTE, 11),
        ("tool_call_start", "toolu_fake_2", "Edit"), ("tool_call_ready", "toolu_fake_2", EDIT_INPUT),
        ("approval_request", "fa01432d-5e96-4d09-ae31-b957e4d7ecdf", "toolu_fake_2"),
        ("tool_result", "toolu_fake_2", EDIT_OK),
        ("file_patch", NOTE, EDIT_DIFF),
        *RESULT_TAIL,
    ]  # fmt: skip
    write_req = next(e for e in events if e.type == "approval_request")
    assert (write_req.action, write_req.detail, write_req.tool_name, write_req.risk_level) == (
        f"Write {NOTE}",
        NOTE,
        "Write",
        "medium",
    )
    assert write_req.input == WRITE_INPUT
    assert not is_terminal_event(events[-1])
    assert_ordering(events)


def test_approval_answers_match_what_real_claude_accepted(adapter: ClaudeAdapter) -> None:
    """Our control_response lines equal the ones the recording driver sent (and claude acted on)."""
    ctx = make_ctx("claude", CWD)
    recorded = [
        m for m in stdin_annotations(CAPTURES / "claude-control-allow.jsonl") if m["type"] == "control_response"
    ]
    ours = []
    for line in capture_lines(CAPTURES / "claude-control-allow.jsonl"):
        for event in adapter.parse_line(line, ctx):
            if event.type == "approval_request":
                adapter.respond_approval(event.interaction_id, ApprovalDecision(approve=True), ctx)
                ours += sent(ctx)
    assert ours == recorded
    assert len(ctx.questions) == 0

    ctx = make_ctx("claude", CWD)
    (recorded,) = [
        m for m in stdin_annotations(CAPTURES / "claude-control-deny.jsonl") if m["type"] == "control_response"
    ]
    events = feed(adapter, capture_lines(CAPTURES / "claude-control-deny.jsonl")[:10], ctx)
    assert events[-1].type == "approval_request"
    adapter.respond_approval(
        events[-1].interaction_id, ApprovalDecision(approve=False, reason="User denied via ACP"), ctx
    )
    (ours,) = sent(ctx)
    recorded["response"]["response"]["interrupt"] = False
    assert ours == recorded


def test_control_deny_transcript(adapter: ClaudeAdapter) -> None:
    events, _ = run_capture(adapter, "control-deny")
    assert brief(events) == bash_turn_prefix("f2c94f68-c17a-42ed-a91c-d9f8adddcc96") + [
        ("message_start",), ("text_delta", "Now writing a file."), ("message_stop", "Now writing a file."),
        ("tool_call_start", "toolu_fake_1", "Write"), ("tool_call_ready", "toolu_fake_1", WRITE_INPUT),
        ("approval_request", "da1b1c25-cf72-4357-b889-9309e3ce4222", "toolu_fake_1"),
        ("tool_error", "toolu_fake_1", "User denied via ACP"),
        ("tool_call_start", "toolu_fake_2", "Edit"), ("tool_call_ready", "toolu_fake_2", EDIT_INPUT),
        ("tool_error", "toolu_fake_2", NO_FILE),
        *RESULT_TAIL,
    ]  # fmt: skip
    assert_ordering(events)


def test_partial_messages_are_streamed_once(adapter: ClaudeAdapter) -> None:
    events, _ = run_capture(adapter, "partial-acceptedits")
    write_deltas = ['{"fil', 'e_path": "/home/user/project/note.txt", "content": "alpha\\nbeta\\n"}']
    edit_deltas = ['{"fil', 'e_path": "/home/user/project/note.txt", "old_string": "beta", "new_string": "gamma"}']
    assert brief(events) == bash_turn_prefix("700e70a0-9277-457c-91e1-45d251a7dbf5", streamed=True) + [
        ("message_start",), ("text_delta", "Now writi"), ("text_delta", "ng a file."), ("message_stop", "Now writing a file."),
        ("tool_call_start", "toolu_fake_1", "Write"),
        *[("tool_input_delta", "toolu_fake_1", d) for d in write_deltas],
        ("tool_call_ready", "toolu_fake_1", WRITE_INPUT),
        ("tool_result", "toolu_fake_1", WRITE_OK), ("file_create", NOTE, 11),
        ("tool_call_start", "toolu_fake_2", "Edit"),
        *[("tool_input_delta", "toolu_fake_2", d) for d in edit_deltas],
        ("tool_call_ready", "toolu_fake_2", EDIT_INPUT),
        ("tool_result", "toolu_fake_2", EDIT_OK), ("file_patch", NOTE, EDIT_DIFF),
        ("message_start",), ("text_delta", "All done: ran echo, wro"), ("text_delta", "te and edited note.txt."),
        ("message_stop", FINAL),
        *RESULT_TAIL[3:],
    ]  # fmt: skip
    text = "".join(e.delta for e in events if e.type == "text_delta")
    assert text == "Let me run a command.Now writing a file." + FINAL  # no block doubled by the whole lines
    assert [e.accumulated for e in events if e.type == "text_delta"][-1] == FINAL
    assert_ordering(events)


def test_default_mode_refusal_is_a_tool_error_without_approval(adapter: ClaudeAdapter) -> None:
    events, _ = run_capture(adapter, "default-perm")
    refused = "Claude requested permissions to write to /home/user/project/note.txt, but you haven't granted it yet."
    assert ("tool_error", "toolu_fake_1", refused) in brief(events)
    assert "approval_request" not in types(events) and "file_create" not in types(events)
    assert_ordering(events)


def test_resume_keeps_the_session_id(adapter: ClaudeAdapter) -> None:
    sid = "700e70a0-9277-457c-91e1-45d251a7dbf5"
    events, ctx = run_capture(adapter, "resume", session_id=sid)
    assert brief(events) == [
        ("session_start", sid, True),
        ("commands_update",),
        ("turn_start", 0),
        ("message_start",), ("text_delta", FINAL), ("message_stop", FINAL),
        ("token_usage", 11, 17), ("cost", CostRecord(total_usd=0.000288, input_tokens=11, output_tokens=17, cached_tokens=0)),
        ("turn_end", 0),
    ]  # fmt: skip
    assert ctx.session_id == sid
    assert adapter.build_spawn(RunOptions(agent="claude", cwd=CWD, session_id=sid)).args[-2:] == ["--resume", sid]
    # Without a resume request the same line is a fresh session.
    fresh, _ = run_capture(adapter, "resume")
    assert brief(fresh)[0] == ("session_start", sid, False)


def test_auth_error_is_terminal_with_guidance(adapter: ClaudeAdapter) -> None:
    events, _ = run_capture(adapter, "auth-error", exit_code=1)
    assert brief(events) == [
        ("session_start", "f98bd5fc-552e-4579-9a5a-0a93650cd8e3", False),
        ("commands_update",),
        ("token_usage", 0, 0),
        ("cost", CostRecord(total_usd=0.0, cached_tokens=0)),
        ("auth_error", "Invalid API key · Fix external API key"),
    ]  # the synthetic assistant line is not shown as agent text; exit 1 adds no crash
    assert events[-1].guidance == AUTH_GUIDANCE and "claude auth login" in AUTH_GUIDANCE
    assert is_terminal_event(events[-1])
    assert_ordering(events)


def test_auth_error_without_result_line_is_reported_at_exit(adapter: ClaudeAdapter) -> None:
    lines = capture_lines(CAPTURES / "claude-auth-error.jsonl")[:2]  # init + synthetic error; no result
    events = feed(adapter, lines, exit_code=1)
    assert types(events)[-1] == "auth_error" and "crash" not in types(events)


def test_available_commands(adapter: ClaudeAdapter) -> None:
    ctx = make_ctx("claude", CWD)
    lines = capture_lines(CAPTURES / "claude-control-allow.jsonl")
    init_at = next(i for i, line in enumerate(lines) if '"subtype":"init"' in line)
    events = unsettled(feed(adapter, lines[: init_at + 1], ctx))
    commands = dict(adapter.available_commands(ctx))
    assert types(events)[:2] == ["session_start", "commands_update"]  # the editor learns them with the session
    assert [(c.name, c.description) for c in events[1].commands] == list(commands.items())
    assert commands["debug"] == "Enable debug logging for this session and help diagnose issues"
    assert "compact" in commands and not {"login", "logout", "cost"} & set(commands)
    ctx = make_ctx("claude", CWD)  # no initialize answer: init's bare names
    feed(adapter, capture_lines(CAPTURES / "claude-partial-acceptedits.jsonl")[:1], ctx)
    assert ("compact", "") in adapter.available_commands(ctx)


# ── lines no capture has (synthesized from the documented shapes) ─────────────────────────────────────────────
SID = "s-1"
INIT = {"type": "system", "subtype": "init", "session_id": SID, "cwd": CWD, "tools": [], "slash_commands": []}


def assistant(block: dict, msg_id: str = "msg_1", parent: str | None = None) -> dict:
    message = {"id": msg_id, "role": "assistant", "content": [block]}
    return {"type": "assistant", "message": message, "parent_tool_use_id": parent, "session_id": SID}


def tool_use(tool_id: str, name: str, tool_input: dict, **kw) -> dict:
    return assistant({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}, **kw)


def tool_result(tool_id: str, content, is_error: bool = False, sidecar=None) -> dict:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": is_error}
    line = {"type": "user", "message": {"role": "user", "content": [block]}}
    if sidecar is not None:
        line["tool_use_result"] = sidecar
    return line


def result(**kw) -> dict:
    base = {"type": "result", "subtype": "success", "is_error": False, "result": "", "session_id": SID,
            "total_cost_usd": 0.0, "usage": {"input_tokens": 0, "output_tokens": 0}}  # fmt: skip
    return {**base, **kw}


# The real 429 result line from agent-clis.md §1 "Errors (verified)" (no capture file kept it), preceded by a
# synthetic assistant line shaped like the auth capture's with ``error: "rate_limit"``.
RATE_LIMIT_TEXT = "API Error: Request rejected (429) · Rate limited (fake)"
RATE_LIMIT_RESULT = json.dumps({
    "type": "result", "subtype": "success", "is_error": True, "api_error_status": 429, "duration_ms": 180,
    "duration_api_ms": 0, "num_turns": 1, "result": RATE_LIMIT_TEXT, "stop_reason": "stop_sequence",
    "session_id": "25b50e6c-6550-41f2-9ada-ad406d690325", "total_cost_usd": 0,
    "usage": {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0},
    "modelUsage": {}, "permission_denials": [], "terminal_reason": "completed",
})  # fmt: skip
RATE_LIMIT_ASSISTANT = {
    "type": "assistant", "error": "rate_limit", "session_id": SID,
    "message": {"id": "x", "model": "<synthetic>", "role": "assistant", "content": [{"type": "text", "text": RATE_LIMIT_TEXT}]},
}  # fmt: skip


def test_rate_limit_is_recoverable_and_ends_the_turn(adapter: ClaudeAdapter) -> None:
    events = feed(adapter, [INIT, RATE_LIMIT_ASSISTANT, RATE_LIMIT_RESULT], exit_code=0)
    assert types(events) == ["session_start", "turn_start", "token_usage", "cost", "rate_limit_error", "turn_end"]
    err = events[4]
    assert err.message == RATE_LIMIT_TEXT and err.retry_after_ms is None
    assert not is_terminal_event(err)


def test_rate_limit_signals_carry_retry_after(adapter: ClaudeAdapter) -> None:
    # Shapes: rate_limit_event as printed by 2.x; api_retry as documented in agent-clis.md §1.
    reset = int(__import__("time").time()) + 60
    retry = {"type": "system", "subtype": "api_retry", "attempt": 1, "max_retries": 10, "retry_delay_ms": 500,
             "error_status": 429, "error": "rate_limit"}  # fmt: skip
    info = {"status": "rejected", "resetsAt": reset, "rateLimitType": "five_hour"}
    limit = {"type": "rate_limit_event", "rate_limit_info": info}
    events = feed(adapter, [INIT, retry, limit, RATE_LIMIT_ASSISTANT, RATE_LIMIT_RESULT])
    assert brief(events)[:3] == [
        ("session_start", SID, False),
        ("rate_limited",),
        ("retry", 1, "rate_limit (HTTP 429)"),
    ]
    assert events[1].retry_after_ms == 500 and events[2].delay_ms == 500
    assert events[3].type == "rate_limited" and 55_000 < events[3].retry_after_ms <= 60_000
    err = next(e for e in events if e.type == "rate_limit_error")
    assert 55_000 < err.retry_after_ms <= 60_000


USAGE_LIMIT_TEXT = "You've hit your session limit · resets 3pm"  # the words are never read for the time


def _limit_event(status: str, resets: int | None) -> dict:
    """``rate_limit_event`` as claude 2.1.197 builds it from the ``anthropic-ratelimit-unified-*`` headers."""
    info = {"status": status, "unifiedRateLimitFallbackAvailable": False, "isUsingOverage": False}
    if resets is not None:
        info |= {"resetsAt": resets, "rateLimitType": "five_hour"}
    return {"type": "rate_limit_event", "rate_limit_info": info, "uuid": "u", "session_id": SID}


def _limited(text: str) -> list:
    return [
        {
            **RATE_LIMIT_ASSISTANT,
            "message": {**RATE_LIMIT_ASSISTANT["message"], "content": [{"type": "text", "text": text}]},
        },
        json.dumps({**json.loads(RATE_LIMIT_RESULT), "result": text}),
    ]


@given(
    ahead=hs.one_of(hs.none(), hs.integers(min_value=0, max_value=300 * 86_400)),  # a reset still to come (s)
    text=hs.sampled_from([USAGE_LIMIT_TEXT, RATE_LIMIT_TEXT, "API Error: 429 resets 11pm"]),
    status=hs.sampled_from(["rejected", "allowed", "allowed_warning", None]),
)
def test_a_limit_is_a_quota_only_when_claude_said_rejected_and_its_reset_is_its_field(
    ahead: int | None, text: str, status: str | None
) -> None:
    """Whatever the message says, the kind comes from claude's ``rate_limit_event`` (``rejected``) and the reset
    time only from its ``resetsAt``; claude's own "not your usage limit" is never a quota. (Any other reset value:
    tests/faults/test_limit_numbers.py.)"""
    resets = None if ahead is None else int(__import__("time").time()) + ahead
    lines = [INIT] + ([_limit_event(status, resets)] if status else []) + _limited(text)
    limit = next(e for e in feed(ClaudeAdapter(), lines) if e.type == "rate_limit_error")
    assert limit.kind == ("quota" if status == "rejected" else "rate")
    assert limit.resets_at == (resets if status == "rejected" else None)


def test_a_rejected_window_claude_goes_on_past_with_overage_is_not_a_quota(adapter: ClaudeAdapter) -> None:
    overage = {**_limit_event("rejected", 1_900_000_000)}
    overage["rate_limit_info"] = {**overage["rate_limit_info"], "isUsingOverage": True, "overageStatus": "allowed"}
    limit = next(e for e in feed(adapter, [INIT, overage, *_limited(RATE_LIMIT_TEXT)]) if e.type == "rate_limit_error")
    assert (limit.kind, limit.resets_at) == ("rate", None)


def test_claudes_transient_429_is_not_a_quota_even_after_a_rejected_event(adapter: ClaudeAdapter) -> None:
    text = "API Error: Server is temporarily limiting requests (not your usage limit) · Rate limited"
    events = feed(adapter, [INIT, _limit_event("rejected", 1_900_000_000), *_limited(text)])
    limit = next(e for e in events if e.type == "rate_limit_error")
    assert (limit.kind, limit.resets_at) == ("rate", None)


@pytest.mark.parametrize(
    "line, expected",
    [
        (result(is_error=True, api_error_status=400, result="Prompt is too long: 210,000 tokens > 200000 maximum"),
         ("context_exceeded", 210000, 200000)),
        (result(subtype="error_during_execution", is_error=True, errors=["tool crashed"]), ("error", "AGENT_ERROR", True)),
        (result(stop_reason="refusal", result="I can't help with that."), ("error", "REFUSAL", True)),
        (result(stop_reason="max_tokens", result="partial"), ("error", "MAX_TOKENS", True)),
        (result(is_error=True, result="Claude AI usage limit reached|9999999999"), ("rate_limit_error", "Claude usage limit reached")),
        (result(is_error=True, api_error_status=401, result="OAuth token has expired"), ("auth_error", "OAuth token has expired")),
    ],
)  # fmt: skip
def test_result_errors(adapter: ClaudeAdapter, line: dict, expected: tuple) -> None:
    events = feed(adapter, [INIT, line])
    errors = [b for b in brief(events) if b[0] in ("error", "context_exceeded", "rate_limit_error", "auth_error")]
    assert errors == [expected]
    if expected[0] in ("context_exceeded", "auth_error"):
        assert types(events)[-1] == expected[0]  # terminal: the turn is not ended normally
    else:
        assert types(events)[-2:] == [expected[0], "turn_end"]  # before turn_end: the next prompt still works


def test_max_turns_ends_the_turn_then_the_run(adapter: ClaudeAdapter) -> None:
    events = feed(adapter, [INIT, result(subtype="error_max_turns", is_error=True, num_turns=3)])
    assert brief(events)[-2:] == [("turn_end", 0), ("turn_limit", 3)]


def test_recoverable_error_then_nonzero_exit_is_not_a_crash(adapter: ClaudeAdapter) -> None:
    events = feed(adapter, [INIT, result(subtype="error_during_execution", is_error=True)], exit_code=1)
    assert "crash" not in types(events)
    events = feed(adapter, [INIT, assistant({"type": "text", "text": "hi"})], exit_code=1)  # silent death: crash
    assert types(events)[-1] == "crash"


def test_interrupt_closes_the_turn_without_an_error(adapter: ClaudeAdapter) -> None:
    ctx = make_ctx("claude", CWD)
    feed(adapter, [INIT, tool_use("t1", "Bash", {"command": "sleep 100"})], ctx)
    assert adapter.interrupt(ctx) is True
    assert sent(ctx) == [
        {"type": "control_request", "request_id": "req_1_interrupt", "request": {"subtype": "interrupt"}}
    ]
    # What claude 2.1.197 really sends after an interrupt (checked live against the fake model server).
    after_interrupt = result(subtype="error_during_execution", is_error=True, result="[Request interrupted by user]")
    events = feed(adapter, [after_interrupt], ctx)
    assert brief(events) == [
        ("token_usage", 0, 0),
        ("cost", CostRecord(cached_tokens=0)),
        ("tool_error", "t1", "interrupted"),
        ("turn_end", 0),
    ]  # fmt: skip — no error event and no "interrupted" text: the runtime already emitted `interrupted`


def test_multi_turn_cost_is_cumulative_and_usage_per_turn(adapter: ClaudeAdapter) -> None:
    ctx = make_ctx("claude", CWD)
    turn1 = result(
        total_cost_usd=0.01,
        usage={"input_tokens": 10, "output_tokens": 5},
        modelUsage={"m": {"inputTokens": 10, "outputTokens": 5, "cacheReadInputTokens": 100}},
    )
    turn2 = result(total_cost_usd=0.03, usage={"input_tokens": 20, "output_tokens": 7},
                   modelUsage={"m": {"inputTokens": 30, "outputTokens": 12, "cacheReadInputTokens": 300}})  # fmt: skip
    events = feed(adapter, [INIT, turn1, turn2], ctx)
    usage = [(e.input_tokens, e.output_tokens, e.cached_tokens) for e in events if e.type == "token_usage"]
    assert usage == [(110, 5, 100), (220, 7, 200)]
    assert [e.cost.total_usd for e in events if e.type == "cost"] == [0.01, 0.03]
    assert [round(e.cost.total_usd, 6) for e in events if e.type == "turn_end"] == [0.01, 0.02]
    assert [e.turn_index for e in events if e.type == "turn_end"] == [0, 1]


def test_result_text_without_assistant_lines_is_shown(adapter: ClaudeAdapter) -> None:
    events = feed(adapter, [INIT, result(result="Total cost: $0.00")])
    assert ("message_stop", "Total cost: $0.00") in brief(events)


def test_tool_projections(adapter: ClaudeAdapter) -> None:
    lines = [
        INIT,
        tool_use("r1", "Read", {"file_path": NOTE, "offset": 3, "limit": 10}),
        tool_result("r1", [{"type": "text", "text": "     3\tgamma"}]),
        tool_use("b1", "Bash", {"command": "false"}),
        tool_result("b1", "Exit code 2\nboom", is_error=True, sidecar="Error: Exit code 2\nboom"),
        tool_use("m1", "mcp__github__search_issues", {"q": "bug"}),
        tool_result("m1", [{"type": "text", "text": "3 issues"}]),
        tool_use("w1", "Write", {"file_path": NOTE, "content": "new\n"}),
        tool_result("w1", "ok", sidecar={"type": "update", "filePath": NOTE, "content": "new\n", "structuredPatch": [
            {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-old", "+new"]}]}),
        tool_use("e1", "MultiEdit", {"file_path": NOTE, "edits": [{"old_string": "a", "new_string": "b"}]}),
        tool_result("e1", "ok"),
        tool_use("k1", "Task", {"description": "Explore", "prompt": "find it", "subagent_type": "Explore"}),
        assistant({"type": "text", "text": "subagent musing"}, msg_id="sub", parent="k1"),
        tool_use("k1r", "Read", {"file_path": NOTE}, msg_id="sub", parent="k1"),
        tool_result("k1r", "x"),
        tool_result("k1", [{"type": "text", "text": "found it"}]),
    ]  # fmt: skip
    events = feed(adapter, lines)
    got = [
        b for b in brief(events) if b[0] not in ("tool_call_start", "tool_call_ready", "turn_start", "session_start")
    ]
    assert got == [
        ("tool_result", "r1", "     3\tgamma"), ("file_read", NOTE),
        ("shell_start", "false", CWD), ("shell_stderr_delta", "boom"), ("shell_exit", 2), ("tool_error", "b1", "Exit code 2\nboom"),
        ("mcp_tool_call_start", "m1", "github", "search_issues"),
        ("tool_result", "m1", "3 issues"), ("mcp_tool_result", "m1", "3 issues"),
        ("tool_result", "w1", "ok"), ("file_write", NOTE, 4),
        ("file_patch", NOTE, f"--- {NOTE}\n+++ {NOTE}\n@@ -1,1 +1,1 @@\n-old\n+new\n"),
        ("tool_result", "e1", "ok"), ("file_patch", NOTE, f"--- {NOTE}\n+++ {NOTE}\n@@ -1 +1 @@\n-a\n+b\n"),
        ("subagent_spawn", "k1", "Explore"), ("subagent_text",),
        ("tool_result", "k1r", "x"), ("file_read", NOTE),
        ("tool_result", "k1", "found it"), ("subagent_result", "k1", "found it"),
    ]  # fmt: skip
    musing = [e for e in events if "subagent musing" in json.dumps(e.model_dump())]
    assert [(e.type, e.subagent_id, e.parent_tool_call_id) for e in musing] == [("subagent_text", "k1", "k1")]
    linked = {(e.type, getattr(e, "tool_call_id", None)) for e in events if e.parent_tool_call_id == "k1"}
    assert {("tool_call_start", "k1r"), ("tool_result", "k1r"), ("subagent_text", None)} <= linked
    assert all(e.parent_tool_call_id is None for e in events if getattr(e, "tool_call_id", None) == "k1")
    assert_ordering(events)


def test_approval_for_an_unannounced_tool_announces_it_first(adapter: ClaudeAdapter) -> None:
    ask = {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "rm -rf build"}, "tool_use_id": "t9",
           "permission_suggestions": [{"type": "addRules"}]}  # fmt: skip
    request = {"type": "control_request", "request_id": "r-1", "request": ask}
    ctx = make_ctx("claude", CWD)
    events = feed(adapter, [INIT, request], ctx)
    assert types(events)[-4:] == ["tool_call_start", "tool_call_ready", "shell_start", "approval_request"]
    req = events[-1]
    assert (req.action, req.detail, req.risk_level, req.tool_call_id) == (
        "Run rm -rf build",
        "rm -rf build",
        "high",
        "t9",
    )
    adapter.respond_approval(
        "r-1", ApprovalDecision(approve=True, always=True, updated_input={"command": "rm -rf ./build"}), ctx
    )
    # never Claude's own suggestions: a rule of Claude's would be wider than the label (the bridge keeps the rule)
    allow = {"behavior": "allow", "updatedInput": {"command": "rm -rf ./build"}}
    assert sent(ctx) == [
        {"type": "control_response", "response": {"subtype": "success", "request_id": "r-1", "response": allow}}
    ]


def test_leaving_plan_mode_hands_the_chosen_mode_over_inside_the_yes(adapter: ClaudeAdapter) -> None:
    """The mode the person picked travels in the allow itself (``updatedPermissions`` setMode for this session), so
    Claude never takes a step of the plan in plan mode; only that mode, never Claude's own suggestions."""
    ask = {"subtype": "can_use_tool", "tool_name": "ExitPlanMode", "input": {"plan": "1. write a.txt"},
           "tool_use_id": "t7", "permission_suggestions": [{"type": "setMode", "mode": "bypassPermissions"}]}  # fmt: skip
    ctx = make_ctx("claude", CWD)
    feed(adapter, [INIT, {"type": "control_request", "request_id": "r-7", "request": ask}], ctx)
    adapter.respond_approval("r-7", ApprovalDecision(approve=True, mode="acceptEdits"), ctx)
    allow = {
        "behavior": "allow",
        "updatedInput": {"plan": "1. write a.txt"},
        "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}],
    }
    assert sent(ctx) == [
        {"type": "control_response", "response": {"subtype": "success", "request_id": "r-7", "response": allow}}
    ]


@pytest.mark.parametrize(
    ("tool", "mode"),
    [("Bash", "acceptEdits"), ("Bash", "bypassPermissions"), ("ExitPlanMode", "bypassPermissions"), ("Write", "plan")],
)
def test_a_yes_changes_claudes_mode_only_when_leaving_plan_mode_into_an_offered_mode(
    adapter: ClaudeAdapter, tool: str, mode: str
) -> None:
    """An ``Approve(mode=...)`` on any other question, or with a mode not offered for leaving plan mode, is a plain
    yes: one approval never widens into a mode that allows everything after it."""
    ask = {"subtype": "can_use_tool", "tool_name": tool, "input": {"command": "ls"}, "tool_use_id": "t8"}
    ctx = make_ctx("claude", CWD)
    feed(adapter, [INIT, {"type": "control_request", "request_id": "r-8", "request": ask}], ctx)
    adapter.respond_approval("r-8", ApprovalDecision(approve=True, mode=mode), ctx)
    (answer,) = sent(ctx)
    assert answer["response"]["response"] == {"behavior": "allow", "updatedInput": {"command": "ls"}}


def test_a_withdrawn_permission_request_is_denied_by_the_agent(adapter: ClaudeAdapter) -> None:
    """control_cancel_request: the approval ends (spec: every request is granted or denied), nothing is sent back."""
    ask = {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "make"}, "tool_use_id": "t5"}
    ctx = make_ctx("claude", CWD)
    feed(adapter, [INIT, {"type": "control_request", "request_id": "r-5", "request": ask}], ctx)
    events = feed(adapter, [{"type": "control_cancel_request", "request_id": "r-5"}], ctx)
    assert brief(events) == brief([ev.ApprovalDeniedEvent(interaction_id="r-5", reason="withdrawn by the agent")])
    assert len(ctx.questions) == 0 and sent(ctx) == []
    again = feed(adapter, [{"type": "control_cancel_request", "request_id": "r-5"}], ctx)  # unknown now: only logged
    assert types(again) == ["debug"]


def test_other_control_requests_are_answered_with_an_error(adapter: ClaudeAdapter) -> None:
    ctx = make_ctx("claude", CWD)
    events = feed(
        adapter, [{"type": "control_request", "request_id": "h1", "request": {"subtype": "hook_callback"}}], ctx
    )
    assert types(events) == ["debug"]
    assert sent(ctx)[0]["response"] == {"subtype": "error", "request_id": "h1", "error": "not supported by acp-mux"}


def test_compaction(adapter: ClaudeAdapter) -> None:
    line = {
        "type": "system",
        "subtype": "compact_boundary",
        "compact_metadata": {"trigger": "auto", "pre_tokens": 150000},
    }
    (event,) = feed(adapter, [line])
    assert event.type == "context_compacted" and "150000" in event.summary


def test_prompt_queued_mid_turn_does_not_repeat_the_answer(adapter: ClaudeAdapter) -> None:
    ctx = make_ctx("claude", CWD)
    feed(adapter, [INIT, assistant({"type": "text", "text": "first answer"})], ctx)
    adapter.send_prompt(Prompt.of_text("and then?"), ctx)  # queued while turn 0 is still running
    events = feed(adapter, [result(result="first answer")], ctx)
    assert "text_delta" not in types(events)


def test_streamed_subagent_text_stays_inside_the_subagent(adapter: ClaudeAdapter) -> None:
    def sse(event: dict, parent: str | None = "k1") -> dict:
        return {"type": "stream_event", "event": event, "parent_tool_use_id": parent}

    lines = [
        INIT,
        tool_use("k1", "Task", {"description": "Look around", "prompt": "look"}),
        sse({"type": "message_start", "message": {"id": "sub1"}}),
        sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "inner voice"}}),
        sse({"type": "content_block_stop", "index": 0}),
        sse({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "g1", "name": "Glob"}}),
        sse({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"pattern": "*"}'}}),
        sse({"type": "content_block_stop", "index": 1}),
    ]  # fmt: skip
    events = feed(adapter, lines)
    assert "text_delta" not in types(events)
    assert brief(events)[-3:] == [
        ("tool_call_start", "g1", "Glob"), ("tool_input_delta", "g1", '{"pattern": "*"}'), ("tool_call_ready", "g1", {"pattern": "*"}),
    ]  # fmt: skip


def test_permission_request_mid_stream_completes_the_tool_input(adapter: ClaudeAdapter) -> None:
    def sse(event: dict) -> dict:
        return {"type": "stream_event", "event": event, "parent_tool_use_id": None}

    request = {"type": "control_request", "request_id": "r-2", "request": {
        "subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "make"}, "tool_use_id": "b7"}}  # fmt: skip
    lines = [
        INIT,
        sse({"type": "message_start", "message": {"id": "m7"}}),
        sse({"type": "content_block_start", "index": 0,
             "content_block": {"type": "tool_use", "id": "b7", "name": "Bash", "input": {}}}),
        sse({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"comm'}}),
        request,
        sse({"type": "content_block_stop", "index": 0}),
    ]  # fmt: skip
    events = feed(adapter, lines)
    assert brief(events)[-5:] == [
        ("tool_call_start", "b7", "Bash"), ("tool_input_delta", "b7", '{"comm'),
        ("tool_call_ready", "b7", {"command": "make"}), ("shell_start", "make", CWD), ("approval_request", "r-2", "b7"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "junk",
    ["", "   ", "Warning: something on stdout", "{", '{"type": "assistant", "message": {"content": [{"type": "te',
     "[1, 2]", "null", '{"type": 5}', '{"type": "assistant", "message": null}', '{"type": "assistant", "message": {"content": 7}}',
     '{"type": "user", "message": {"content": [null, 1, {"type": "tool_result"}]}}', '{"type": "stream_event", "event": []}',
     '{"type": "stream_event", "event": {"type": "content_block_delta", "index": "x", "delta": null}}',
     '{"type": "result", "usage": [], "modelUsage": {"m": 3}, "total_cost_usd": "lots"}',
     '{"type": "control_request", "request": {"subtype": "can_use_tool", "input": "nope"}}',
     '{"type": "system", "subtype": "init", "plugins": [1, {"x": 2}], "skills": "abc"}', '{"type": "brand_new_type"}'],
)  # fmt: skip
def test_garbage_never_raises(adapter: ClaudeAdapter, junk: str) -> None:
    ctx = make_ctx("claude", CWD)
    feed(adapter, capture_lines(CAPTURES / "claude-partial-acceptedits.jsonl")[:12] + [junk], ctx)
    adapter.finish(ExitStatus(code=0, signal=None), ctx)


@pytest.mark.parametrize("name", ["control-allow", "partial-acceptedits", "auth-error"])
def test_every_truncated_or_mangled_line_is_survivable(adapter: ClaudeAdapter, name: str) -> None:
    lines = capture_lines(CAPTURES / f"claude-{name}.jsonl")
    for i, line in enumerate(lines):
        for cut in (1, len(line) // 2, len(line) - 1):
            feed(adapter, lines[:i] + [line[:cut]] + lines[i + 1 :], exit_code=0)
        for mangled in _mangled(json.loads(line)):
            feed(adapter, lines[:i] + [json.dumps(mangled)] + lines[i + 1 :], exit_code=1)


def _mangled(obj: dict):
    """Each top-level and second-level value replaced by each wrong type in turn."""
    for key, value in obj.items():
        for weird in (None, 7, "x", [], {}):
            yield {**obj, key: weird}
        if isinstance(value, dict):
            for sub in value:
                for weird in (None, 7, "x", [], {}):
                    yield {**obj, key: {**value, sub: weird}}
        if isinstance(value, list) and value and isinstance(value[0], dict):  # e.g. message.content[0]
            for sub in value[0]:
                for weird in (None, 7, "x", [], {}):
                    yield {**obj, key: [{**value[0], sub: weird}, *value[1:]]}


# ── stdin and spawn ─────────────────────────────────────────────────────────────────────────────────────────────
def test_build_spawn(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    env = {"PATH": str(tmp_path), "ANTHROPIC_API_KEY": "k"}
    servers = [
        {"name": "fs", "command": "mcp-fs", "args": ["--root", "/"], "env": [{"name": "TOKEN", "value": "t"}]},
        {"type": "http", "name": "gh", "url": "https://x/mcp", "headers": [{"name": "Authorization", "value": "b"}]},
        {"type": "sse", "name": "old", "url": "https://y/sse", "headers": []},
    ]
    opts = RunOptions(agent="claude", cwd=CWD, env=env, model="opus", mode="plan", session_id="abc",
                      mcp_servers=servers, extra_args=["--effort", "high"])  # fmt: skip
    spec = adapter.build_spawn(opts)
    assert spec.command == str(fake) and spec.env == {**env, BACKGROUND_ENV: "1"} and spec.cwd == CWD
    config = json.dumps(mcp_config(servers), separators=(",", ":"))
    ((path, text),) = spec.private_files  # a private file: env values and headers are secrets, argv is public
    assert text == config and not any('"t"' in a or "Authorization" in a for a in spec.args)
    assert spec.args == [*BASE_ARGS, "--mcp-config", path, "--resume", "abc", "--model", "opus",
                         "--permission-mode", "plan", "--effort", "high"]  # fmt: skip
    assert list(BASE_ARGS) == ["-p", "--output-format", "stream-json", "--input-format", "stream-json", "--verbose",
                               "--include-partial-messages", "--permission-prompt-tool", "stdio"]  # fmt: skip
    assert json.loads(config) == {"mcpServers": {
        "fs": {"type": "stdio", "command": "mcp-fs", "args": ["--root", "/"], "env": {"TOKEN": "t"}},
        "gh": {"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "b"}},
        "old": {"type": "sse", "url": "https://y/sse", "headers": {}},
    }}  # fmt: skip
    plain = adapter.build_spawn(RunOptions(agent="claude", cwd=CWD, model="default", binary="/opt/claude"))
    assert plain.args == list(BASE_ARGS) and plain.command == "/opt/claude"
    assert plain.env == {**os.environ, BACKGROUND_ENV: "1"}  # acp-mux's own environment, subagents in the turn


@given(
    hs.dictionaries(hs.text(min_size=1, max_size=8), hs.text(max_size=8), max_size=6), hs.none() | hs.text(max_size=3)
)
def test_claude_runs_its_subagents_in_the_turn_unless_the_person_said_otherwise(
    env: dict[str, str], theirs: str | None
) -> None:
    """Whatever the environment holds: every entry reaches Claude unchanged, background tasks are off (2.1.332 would
    otherwise run a subagent after the turn ended, its questions denied unasked), and a value the person set for
    that variable themselves (even empty, or ``0`` to have background tasks back) is theirs."""
    given_env = {k: v for k, v in env.items() if k != BACKGROUND_ENV}
    if theirs is not None:
        given_env[BACKGROUND_ENV] = theirs
    result = foreground_env(given_env)
    assert {k: v for k, v in result.items() if k != BACKGROUND_ENV} == {
        k: v for k, v in given_env.items() if k != BACKGROUND_ENV
    }
    assert result[BACKGROUND_ENV] == ("1" if theirs is None else theirs)
    assert BACKGROUND_ENV not in given_env or given_env == result


def test_start_queues_initialize_then_the_prompt(adapter: ClaudeAdapter) -> None:
    ctx = make_ctx("claude", CWD)
    adapter.start(RunOptions(agent="claude", cwd=CWD, prompt=Prompt.of_text("hi")), ctx)
    recorded = stdin_annotations(CAPTURES / "claude-control-allow.jsonl")[:2]  # what real claude was sent
    init, user = sent(ctx)
    with_text = {**recorded[0]["request"], "forwardSubagentText": True}  # subagents' text too (2.1.197 has it)
    assert init == {**recorded[0], "request_id": "req_1_initialize", "request": with_text}
    assert user == {**recorded[1], "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}
    adapter.start(
        RunOptions(agent="claude", cwd=CWD, env={"ACP_MUX_CLAUDE_PREWARM": "0"}), ctx := make_ctx("claude", CWD)
    )
    assert [m["type"] for m in sent(ctx)] == ["control_request"]


# real 2.1.197: initialize, get_context_usage, 3 s, two prompts; and the version answers of 2.1.197, 2.1.318 and the
# pinned 2.1.332, whose warm-up answer (``detail: summary``, answered in ~50 ms with no model request) is recorded too
PREWARM = FIXTURES / "claude" / "prewarm"
WARM = {"ACP_MUX_CLAUDE_PREWARM": "1"}


def subtypes(ctx: Any) -> list[str]:
    """What was written to Claude's stdin since the last look: control requests by subtype, else the line type."""
    return [m["request"]["subtype"] if m["type"] == "control_request" else m["type"] for m in sent(ctx)]


def version_answer(version: str) -> str:
    """The real ``get_binary_version`` answer of that CLI (2.1.197, 2.1.318 or 2.1.332), recorded."""
    return capture_lines(PREWARM / f"version_{version}.jsonl")[0]


def unknown_answer(version: str = "2.1.197") -> str:
    """The real answer of that CLI to a control request it does not know (an error; 2.1.332 adds an ``error_code``),
    for the version request's id."""
    return capture_lines(PREWARM / f"version_{version}.jsonl")[1].replace("req_3_", "req_2_")


def test_a_session_warmed_without_a_prompt_asks_for_the_context_usage(adapter: ClaudeAdapter) -> None:
    """get_context_usage makes Claude build its system prompt, tools and HTTP client before the first prompt. It is
    asked once initialize is answered, and only if no prompt came first: Claude reads no user message while it runs."""
    recorded = stdin_annotations_jsonl(PREWARM / "first_prompt_warmed.stdin.jsonl")[:2]
    initialized = capture_lines(PREWARM / "first_prompt_warmed.jsonl")[0]
    adapter.start(RunOptions(agent="claude", cwd=CWD, env=WARM), ctx := make_ctx("claude", CWD))
    assert sent(ctx) == [{**recorded[0], "request": {**recorded[0]["request"], "forwardSubagentText": True}}]
    # what the recorded Claude was sent, with "detail": "summary" (ignored by 2.1.197, answered locally by 2.1.318)
    warm_up = {**recorded[1], "request": {**recorded[1]["request"], "detail": "summary"}}
    assert (
        unsettled(feed(adapter, [initialized], ctx)) == [] and sent(ctx) == [warm_up] and warm_up["request"] == WARM_UP
    )
    assert unsettled(feed(adapter, [initialized], ctx)) == [] and sent(ctx) == []  # once
    # a prompt before the initialize answer: no warm-up behind it
    adapter.start(RunOptions(agent="claude", cwd=CWD, env=WARM), ctx := make_ctx("claude", CWD))
    adapter.send_prompt(Prompt.of_text("quick"), ctx)
    feed(adapter, [initialized], ctx)
    assert subtypes(ctx) == ["initialize", "user"]
    adapter.start(
        RunOptions(agent="claude", cwd=CWD, env=WARM, prompt=Prompt.of_text("hi")), ctx := make_ctx("claude", CWD)
    )
    feed(adapter, [initialized], ctx)
    assert subtypes(ctx) == ["initialize", "user"]


@pytest.mark.parametrize(
    ("version", "warmed"),
    # 2.1.197 asked the model endpoint ~14 count_tokens for the warm-up; 2.1.318 and the pinned 2.1.332 answer it alone
    [("2.1.332", True), ("2.1.318", True), ("2.1.197", False)],
)
def test_by_default_only_a_cli_that_warms_up_locally_is_warmed(
    adapter: ClaudeAdapter, version: str, warmed: bool
) -> None:
    """Unset, the setting asks the CLI's version once initialize is answered, when that answer does not name it
    (2.1.197's does not; the question is answered at once, from memory) and sends the warm-up only to a CLI that
    answers it without its model endpoint, so no prompt waits for count_tokens."""
    initialized = capture_lines(PREWARM / "first_prompt_warmed.jsonl")[0]
    adapter.start(RunOptions(agent="claude", cwd=CWD, env={}), ctx := make_ctx("claude", CWD))
    assert subtypes(ctx) == ["initialize"]
    assert unsettled(feed(adapter, [initialized], ctx)) == [] and sent(ctx) == [
        {"type": "control_request", "request_id": "req_2_get_binary_version", "request": {"subtype": "get_binary_version"}}
    ]  # fmt: skip
    assert feed(adapter, [version_answer(version)], ctx) == []
    assert sent(ctx) == ([{"type": "control_request", "request_id": "req_3_get_context_usage", "request": WARM_UP}]
                         if warmed else [])  # fmt: skip
    assert feed(adapter, [version_answer(version)], ctx) == [] and sent(ctx) == []  # once
    adapter.send_prompt(Prompt.of_text("hi"), ctx)
    assert subtypes(ctx) == ["user"]


def test_a_prompt_overtakes_every_step_of_the_warm_up(adapter: ClaudeAdapter) -> None:
    """A prompt sent while the version question is unanswered is written at once, and no warm-up follows it."""
    initialized = capture_lines(PREWARM / "first_prompt_warmed.jsonl")[0]
    adapter.start(RunOptions(agent="claude", cwd=CWD), ctx := make_ctx("claude", CWD))
    feed(adapter, [initialized], ctx)
    adapter.send_prompt(Prompt.of_text("quick"), ctx)
    assert subtypes(ctx) == ["initialize", "get_binary_version", "user"]
    assert feed(adapter, [version_answer("2.1.318")], ctx) == [] and sent(ctx) == []


@pytest.mark.parametrize("answering", ["2.1.197", "2.1.332"])
def test_a_cli_that_does_not_know_the_version_request_is_not_warmed(adapter: ClaudeAdapter, answering: str) -> None:
    """Answered with an error (the real CLI's answer to a subtype it does not know): no warm-up, a warning in the
    log, the prompt goes out as always; never answered: the prompt goes out as always and nothing waits."""
    initialized = capture_lines(PREWARM / "first_prompt_warmed.jsonl")[0]
    adapter.start(RunOptions(agent="claude", cwd=CWD), ctx := make_ctx("claude", CWD))
    feed(adapter, [initialized], ctx)
    (warning,) = feed(adapter, [unknown_answer(answering)], ctx)
    assert warning.type == "debug" and "Unsupported control request" in warning.message
    assert feed(adapter, [version_answer("2.1.318")], ctx) == []  # a late answer after the error changes nothing
    adapter.send_prompt(Prompt.of_text("hi"), ctx)
    assert subtypes(ctx) == ["initialize", "get_binary_version", "user"]
    adapter.start(RunOptions(agent="claude", cwd=CWD), ctx := make_ctx("claude", CWD))
    feed(adapter, [initialized], ctx)
    adapter.send_prompt(Prompt.of_text("hi"), ctx)  # the version answer never came
    assert subtypes(ctx) == ["initialize", "get_binary_version", "user"]


@pytest.mark.parametrize(
    ("env", "mode"),
    [
        ({}, "auto"),
        ({"ANTHROPIC_BASE_URL": "https://api.anthropic.com"}, "auto"),
        ({"ACP_MUX_CLAUDE_PREWARM": "1"}, "on"),
        ({"ACP_MUX_CLAUDE_PREWARM": " 1 "}, "on"),
        ({"ACP_MUX_CLAUDE_PREWARM": "0"}, "off"),
    ],
)
def test_prewarm_mode_follows_the_setting(env: dict[str, str], mode: str) -> None:
    assert prewarm_mode(env) == mode


def test_off_means_nothing_is_asked(adapter: ClaudeAdapter) -> None:
    initialized = capture_lines(PREWARM / "first_prompt_warmed.jsonl")[0]
    adapter.start(
        RunOptions(agent="claude", cwd=CWD, env={"ACP_MUX_CLAUDE_PREWARM": "0"}), ctx := make_ctx("claude", CWD)
    )
    feed(adapter, [initialized], ctx)
    assert subtypes(ctx) == ["initialize"]


@given(hs.tuples(hs.integers(0, 999_999), hs.integers(0, 999_999), hs.integers(0, 999_999)), hs.text(max_size=12))
def test_only_a_readable_version_at_or_past_the_first_local_one_warms(parts: tuple[int, int, int], tail: str) -> None:
    """The version test tried with any numbers and tails: the numeric order decides, and a tail that would change
    the number (more digits, another dot) or text before it is never read as a version."""
    text = ".".join(map(str, parts))
    expected = parts >= LOCAL_WARM_UP_SINCE
    assert warms_locally(text) is expected
    assert warms_locally(text + " (Claude Code)") is expected
    if tail and not tail[0].isdigit() and tail[0] != ".":
        assert warms_locally(text + tail) is expected
    assert warms_locally("v" + text) is False and warms_locally(text + "0" * 7) is False
    assert not warms_locally(parts) and not warms_locally(None) and not warms_locally(".".join(map(str, parts[:2])))


def test_the_context_usage_answer_adds_nothing_to_the_run(adapter: ClaudeAdapter) -> None:
    """The recorded answer (~28 KB of categories and grid rows) is silent: no event, the initialize answer (the
    editor's slash commands) is kept, and the warmed run's first prompt streams and ends as any other."""
    lines = capture_lines(PREWARM / "first_prompt_warmed.jsonl")
    usage = json.loads(lines[1])
    assert (
        usage["response"]["request_id"] == "req_2_get_context_usage" and "categories" in usage["response"]["response"]
    )
    ctx = make_ctx("claude", CWD)
    adapter.start(RunOptions(agent="claude", cwd=CWD, env=WARM), ctx)
    assert unsettled(feed(adapter, lines[:1], ctx)) == [] and (commands := adapter.available_commands(ctx))
    assert [m["request"]["subtype"] for m in sent(ctx)] == ["initialize", "get_context_usage"]
    assert feed(adapter, lines[1:2], ctx) == []
    assert adapter.available_commands(ctx) == commands
    events = feed(adapter, lines[2:], ctx, exit_code=0)
    assert_ordering(events)
    assert types(events).count("turn_end") == 2
    text = "".join(e.delta for e in events if e.type == "text_delta")
    assert text.count("Line 001 of a long streamed answer.") == 2 and text.count("\n") == 400


def initialize_answer_332() -> str:
    """The pinned 2.1.332's real answer to initialize: it names the CLI's version (``claude_code_version``)."""
    line = next(x for x in capture_lines(FIXTURES / "claude" / "2.1.332" / "cancel.jsonl") if "control_response" in x)
    assert json.loads(line)["response"]["response"]["claude_code_version"] == "2.1.332"
    return line


@pytest.mark.parametrize(
    ("version", "warmed"), [("2.1.332", True), ("2.1.318", True), ("2.1.197", False), ("2.1", False), (332, False)]
)
def test_a_version_in_the_initialize_answer_decides_at_once(
    adapter: ClaudeAdapter, version: object, warmed: bool
) -> None:
    """2.1.332 says its version in its initialize answer: the default sends the warm-up right behind that answer,
    as the forced setting does, with no version question (one round trip less before the warm-up); a version
    before the first local one, or one it cannot read, gets neither the warm-up nor the question."""
    answer = json.loads(initialize_answer_332())
    answer["response"]["response"]["claude_code_version"] = version
    adapter.start(RunOptions(agent="claude", cwd=CWD, env={}), ctx := make_ctx("claude", CWD))
    assert unsettled(feed(adapter, [json.dumps(answer)], ctx)) == []
    assert subtypes(ctx) == ["initialize", *(["get_context_usage"] if warmed else [])]
    adapter.send_prompt(Prompt.of_text("hi"), ctx)
    assert subtypes(ctx) == ["user"]


def test_the_pinned_clis_warm_up_by_default_is_silent_and_keeps_the_commands(adapter: ClaudeAdapter) -> None:
    """The default path on the pinned 2.1.332, with its real answers: its initialize answer names its version, so
    the warm-up follows at once; the warm-up's answer (``summary``: categories, no ``commands``) adds no event and
    leaves the editor's slash commands as the initialize answer gave them; the prompt after it is written as any
    other."""
    (answer,) = capture_lines(PREWARM / "warm_up_2.1.332.jsonl")
    body = json.loads(answer)["response"]["response"]
    assert "categories" in body and "commands" not in body
    adapter.start(RunOptions(agent="claude", cwd=CWD, env={}), ctx := make_ctx("claude", CWD))
    assert unsettled(feed(adapter, [initialize_answer_332()], ctx)) == [] and (
        commands := adapter.available_commands(ctx)
    )
    assert subtypes(ctx) == ["initialize", "get_context_usage"]
    assert feed(adapter, [answer.replace("req_4_", "req_2_")], ctx) == []
    assert adapter.available_commands(ctx) == commands
    adapter.send_prompt(Prompt.of_text("hi"), ctx)
    assert subtypes(ctx) == ["user"]


def stdin_annotations_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_send_prompt_blocks(adapter: ClaudeAdapter) -> None:
    ctx = make_ctx("claude", CWD)
    ctx.session_id = SID
    prompt = Prompt((
        TextPart("look"),
        ImagePart(data="iVBORw0=", mime_type="image/png"),
        ResourcePart(uri="file:///p/a.py", name="a.py", text="print(1)"),
        ResourcePart(uri="file:///p/b.py", name="b.py"),
        ResourcePart(uri="file:///p/c.png", blob="AAAA", mime_type="image/png"),
    ))  # fmt: skip
    adapter.send_prompt(prompt, ctx)
    (msg,) = sent(ctx)
    assert msg["session_id"] == SID and msg["parent_tool_use_id"] is None
    assert msg["message"]["content"] == [
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0="}},
        {"type": "text", "text": '<context uri="file:///p/a.py">\nprint(1)\n</context>'},
        {"type": "text", "text": "@/p/b.py"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
    ]


def test_deny_default_message_and_mode_switch(adapter: ClaudeAdapter) -> None:
    ctx = make_ctx("claude", CWD)
    asked = ev.ApprovalRequestEvent(interaction_id="q", action="Bash ls", tool_name="Bash", input={"command": "ls"})
    ctx.questions.ask(asked, AgentEnd("q"))
    adapter.respond_approval("q", ApprovalDecision(approve=False), ctx)
    assert adapter.set_mode("acceptEdits", ctx) is True
    deny, mode = sent(ctx)
    assert deny["response"]["response"] == {
        "behavior": "deny",
        "message": "The user rejected this action",
        "interrupt": False,
    }
    assert mode == {"type": "control_request", "request_id": "req_1_set_permission_mode",
                    "request": {"subtype": "set_permission_mode", "mode": "acceptEdits"}}  # fmt: skip


# ── tool table ──────────────────────────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize(
    "name, args, kind, title",
    [
        ("Read", {"file_path": NOTE}, "read", f"Read {NOTE}"),
        ("Read", {"file_path": NOTE, "offset": 5, "limit": 10}, "read", f"Read {NOTE} (5 - 14)"),
        ("Read", {"file_path": NOTE, "offset": 5}, "read", f"Read {NOTE} (from line 5)"),
        ("Write", WRITE_INPUT, "edit", f"Write {NOTE}"),
        ("Edit", EDIT_INPUT, "edit", f"Edit {NOTE}"),
        ("MultiEdit", {"file_path": NOTE, "edits": [{}, {}]}, "edit", f"Edit {NOTE} (2 edits)"),
        ("NotebookEdit", {"notebook_path": "/n.ipynb"}, "edit", "Edit notebook /n.ipynb"),
        ("Bash", {"command": "x" * 100}, "execute", "x" * 79 + "…"),
        ("Bash", {"description": "List files"}, "execute", "List files"),
        ("BashOutput", {"bash_id": "b1"}, "execute", "Read output of shell b1"),
        ("KillShell", {"shell_id": "b1"}, "execute", "Stop shell b1"),
        ("Glob", {"pattern": "**/*.py", "path": "/src"}, "search", "Find **/*.py in /src"),
        ("Grep", {"pattern": "TODO"}, "search", "Search TODO"),
        ("LS", {"path": "/src"}, "search", "List /src"),
        ("WebFetch", {"url": "https://a.b"}, "fetch", "Fetch https://a.b"),
        ("WebSearch", {"query": "acp"}, "fetch", "Search the web: acp"),
        ("TodoWrite", {"todos": []}, "think", "Update plan"),
        ("Task", {"description": "Find the bug"}, "think", "Find the bug"),
        ("Agent", {"description": "Review"}, "think", "Review"),
        ("ExitPlanMode", {"plan": "p"}, "switch_mode", "Ready to code?"),
        ("mcp__github__search_issues", {"q": 1}, "other", "github: search_issues"),
        ("SomethingNew", {}, "other", "SomethingNew"),
    ],
)  # fmt: skip
def test_tool_table(name: str, args: dict, kind: str, title: str) -> None:
    spec = CLAUDE_TOOLS.lookup(name)
    assert (spec.kind, spec.render_title(name, args)) == (kind, title)


def test_tool_table_details() -> None:
    assert CLAUDE_TOOLS.lookup("TodoWrite").is_plan
    assert CLAUDE_TOOLS.lookup("Read").path_args == ("file_path",) and CLAUDE_TOOLS.lookup("Read").line_arg == "offset"
    assert CLAUDE_TOOLS.lookup("Bash").command_arg == "command"
    write, edit, multi = (CLAUDE_TOOLS.lookup(n).diff for n in ("Write", "Edit", "MultiEdit"))
    assert [(d.path, d.new_text, d.old_text) for d in write(WRITE_INPUT)] == [(NOTE, "alpha\nbeta\n", None)]
    assert [(d.new_text, d.old_text) for d in edit(EDIT_INPUT)] == [("gamma", "beta")]
    two = {"file_path": NOTE, "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]}
    assert [(d.old_text, d.new_text) for d in multi(two)] == [("a", "b"), ("c", "d")]
    assert structured_patch_to_diff("/f", [], new_file=True) == "--- /dev/null\n+++ /f\n"


def test_static_metadata(adapter: ClaudeAdapter) -> None:
    assert (adapter.name, adapter.binary, adapter.package) == ("claude", "claude", "@anthropic-ai/claude-code")
    assert adapter.login_args == ("auth", "login")
    assert [m.id for m in adapter.modes] == ["default", "acceptEdits", "plan", "bypassPermissions"]
    assert adapter.default_mode == "default" and "sonnet" in adapter.models
    caps = adapter.capabilities
    assert caps.persistent_process and caps.supports_images and caps.supports_embedded_context
    assert caps.supports_mcp_http and caps.supports_mcp_sse and not caps.supports_audio


# ── every transcript keeps the ordering contract (fresh recordings included when present) ───────────────────────
SHARED = sorted(CAPTURES.glob("claude-*.jsonl"))
FRESH = sorted(p for p in (FIXTURES / "claude").glob("*.jsonl") if not p.name.endswith(".stdin.jsonl"))
FRESH = [p for p in FRESH if p.parent != CAPTURES]
NO_FRESH = pytest.param(None, marks=pytest.mark.skip(reason="no fresh claude recordings in tests/fixtures/claude yet"))


def check_transcript(adapter: ClaudeAdapter, path: Path) -> None:
    """Any real transcript: ordering contract holds, a session starts, a clean result ends its turn, and the final
    answer is shown exactly once (no block doubled by whole lines after partial messages)."""
    lines = capture_lines(path)
    events = feed(adapter, lines, make_ctx("claude", CWD), exit_code=0)
    assert_ordering(events)
    assert any(e.type == "session_start" for e in events)
    results = [m for m in map(_json_or_none, lines) if isinstance(m, dict) and m.get("type") == "result"]
    if results and not results[-1].get("is_error") and results[-1].get("result"):
        assert types(events)[-1] == "turn_end"
        shown, final = "".join(e.delta for e in events if e.type == "text_delta"), str(results[-1]["result"])
        assert shown.endswith(final) and shown.count(final) == 1


def _json_or_none(line: str):
    try:
        return json.loads(line)
    except ValueError:
        return None


@pytest.mark.parametrize("path", SHARED, ids=lambda p: p.name)
def test_shared_transcripts_keep_the_contract(adapter: ClaudeAdapter, path: Path) -> None:
    check_transcript(adapter, path)


@pytest.mark.parametrize("path", FRESH or [NO_FRESH], ids=lambda p: os.path.relpath(p, FIXTURES) if p else "none")
def test_fresh_recordings_keep_the_contract(adapter: ClaudeAdapter, path: Path) -> None:
    check_transcript(adapter, path)


# ── the same scenarios recorded on the pinned 2.1.332 (``tests/fixtures/claude/2.1.332/``) ───────────────────────────
PINNED = FIXTURES / "claude" / "2.1.332"
PINNED_RECORDINGS = sorted(p for p in PINNED.glob("*.jsonl") if not p.name.endswith(".stdin.jsonl"))
LOADED = ("skill_loaded", "plugin_loaded")  # what the CLI bundles: more skills and plugins in 2.1.332


@pytest.mark.parametrize("path", PINNED_RECORDINGS, ids=lambda p: p.name)
def test_the_pinned_clis_recordings_keep_the_contract(adapter: ClaudeAdapter, path: Path) -> None:
    check_transcript(adapter, path)


def shown(path: Path) -> list[tuple[str, str]]:
    """What a recording gives the editor, in order: each event's type with its text, tool name and input, or
    message; without the skills and plugins the CLI loaded (each release bundles others)."""
    events = feed(ClaudeAdapter(), capture_lines(path), make_ctx("claude", CWD), exit_code=0)
    fields = ("delta", "text", "tool_name", "input", "message")
    return [
        (e.type, json.dumps([getattr(e, f, None) for f in fields], default=str)) for e in events if e.type not in LOADED
    ]


@pytest.mark.parametrize("name", ["write_edit_allow", "write_edit_deny", "resume", "auth_error", "rate_limit", "text"])
def test_2_1_197_and_the_pinned_2_1_332_give_the_editor_the_same_events(name: str) -> None:
    """One scenario, recorded on each CLI against the same scripted model: 2.1.332 adds fields (``timestamp``,
    ``api_error_type``, the result's ``model_usage_since_last_result`` …) and removes none the adapter reads, so the
    editor sees the same text, tool calls, questions and errors in the same order."""
    old, new = shown(FIXTURES / "claude" / f"{name}.jsonl"), shown(PINNED / f"{name}.jsonl")
    assert len(new) > 3 and old == new


def test_the_pinned_cli_closes_an_interrupted_message_and_the_turn_ends_cancelled(adapter: ClaudeAdapter) -> None:
    """2.1.332, interrupted at its first text delta, ends the streamed message itself (``content_block_stop``,
    ``message_stop``, an ``aborted`` whole line) before its ``error_during_execution`` result; 2.1.197 left it open.
    Either way the text ends once, no error is shown (the runtime says "interrupted"), and the turn ends."""
    lines = capture_lines(PINNED / "cancel.jsonl")
    first = next(i for i, line in enumerate(lines) if '"text_delta"' in line)
    ctx = make_ctx("claude", CWD)
    events = feed(adapter, lines[: first + 1], ctx)
    assert adapter.interrupt(ctx) is True
    events += feed(adapter, lines[first + 1 :], ctx, exit_code=0)
    assert_ordering(events)
    assert any('"aborted":true' in line.replace(" ", "") for line in lines)
    assert types(events).count("message_stop") == 1 and types(events)[-1] == "turn_end"
    assert not [e for e in events if e.type in ("error", "rate_limit_error", "auth_error")]


# ── faults (class 9 of the hardening issue), shapes as the real claude 2.1.197 prints them ───────────────────────
def _delta(text: str) -> dict[str, Any]:
    return {
        "type": "stream_event",
        "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
    }


CLOSED_BY_THE_CLI = [  # what 2.1.332 prints after a stream broke off (2.1.197 printed nothing): the blocks, the message
    {"type": "stream_event", "event": {"type": "content_block_stop", "index": 0}},
    {"type": "stream_event", "event": {"type": "message_stop"}},
]


def _streamed_text_block(message_id: str) -> list[dict[str, Any]]:
    """A streamed message's start and its text block's start (its deltas follow)."""
    return [
        {"type": "stream_event", "event": {"type": "message_start", "message": {"id": message_id}}},
        {
            "type": "stream_event",
            "event": {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        },
    ]


def _whole(message_id: str, text: str) -> dict[str, Any]:
    """A message's whole ``assistant`` line."""
    return {
        "type": "assistant",
        "message": {"id": message_id, "role": "assistant", "content": [{"type": "text", "text": text}]},
    }


def _result(text: str) -> dict[str, Any]:
    return {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": text,
        "stop_reason": "end_turn",
        "session_id": SID,
    }


@pytest.mark.parametrize("closed", [[], CLOSED_BY_THE_CLI], ids=["2.1.197", "2.1.332"])
def test_a_stream_that_broke_off_and_was_asked_again_is_not_glued(
    adapter: ClaudeAdapter, closed: list[dict[str, Any]]
) -> None:
    """The stream of msg_0 breaks after two deltas; claude asks again without streaming and prints msg_1 whole."""
    retried = "Alpha one. Alpha two. Alpha three. "
    lines = [INIT, *_streamed_text_block("msg_0"), _delta("Alpha one. "), _delta("Alpha two. "), *closed]
    events = feed(adapter, [*lines, _whole("msg_1", retried), _result(retried)])
    assert [e.text for e in events if e.type == "message_stop"] == ["Alpha one. Alpha two. ", retried]
    retry = next(e for e in events if e.type == "retry")
    assert retry.attempt == 1 and "broke off" in retry.reason


def test_a_streamed_message_that_arrived_whole_is_no_broken_stream_for_the_next(adapter: ClaudeAdapter) -> None:
    """msg_0 streams and then arrives whole (its ``assistant`` line): a later message printed whole (not streamed)
    is no retry of it."""
    lines = [INIT, *_streamed_text_block("msg_0"), _delta("A. "), *CLOSED_BY_THE_CLI, _whole("msg_0", "A. ")]
    events = feed(adapter, [*lines, _whole("msg_1", "B."), _result("B.")])
    assert not [e for e in events if e.type == "retry"]
    assert [e.text for e in events if e.type == "message_stop"] == ["A. ", "B."]


def test_a_retry_claude_calls_unknown_says_what_is_known(adapter: ClaudeAdapter) -> None:
    retry = {
        "type": "system",
        "subtype": "api_retry",
        "attempt": 2,
        "max_retries": 2,
        "retry_delay_ms": 100,
        "error_status": None,
        "error": "unknown",
    }
    assert (
        next(e for e in feed(adapter, [INIT, retry]) if e.type == "retry").reason
        == "the connection to the model failed"
    )
    server = {**retry, "error_status": 500, "error": "server_error"}
    assert next(e for e in feed(adapter, [INIT, server]) if e.type == "retry").reason == "server_error (HTTP 500)"


# ── a session known before its first turn (--session-id) ───────────────────────────────────────────────────────
OWN_ID = "63e7ca41-ab78-46d1-999c-0a4e88747043"  # the id in the 2.1.332 text capture: as if we had given it


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("session_id", "fork", "given"), [(None, False, True), ("old-id", False, False), ("old-id", True, True)]
)
async def test_prepare_gives_a_new_session_or_a_forks_copy_its_id(
    adapter: ClaudeAdapter, session_id: str | None, fork: bool, given: bool
) -> None:
    """A new conversation and a fork's copy are named by us (``--session-id``, a UUID, as claude-agent-acp does);
    a resumed one keeps its own; a second ``prepare`` of the same options keeps the id it chose."""
    options = RunOptions(agent="claude", cwd=CWD, session_id=session_id, fork_session=fork)
    await adapter.prepare(options)
    chosen = options.new_session_id
    assert (chosen is not None) == given
    args = adapter.build_spawn(options).args
    if chosen is None:
        assert "--session-id" not in args
        return
    assert args[args.index("--session-id") + 1] == chosen == str(uuid.UUID(chosen))
    await adapter.prepare(options)
    assert options.new_session_id == chosen


def test_a_session_named_by_us_starts_with_its_commands_before_the_first_prompt(adapter: ClaudeAdapter) -> None:
    """2.1.332's real initialize answer: session_start (our id, not resumed) and the slash commands with their
    descriptions follow at once, while the person types; the first turn's init line (the same id, the same
    commands) adds neither again, and the turn is ordered as any other."""
    lines = capture_lines(FIXTURES / "claude" / "2.1.332" / "text.jsonl")
    ctx = make_ctx("claude", CWD)
    adapter.start(RunOptions(agent="claude", cwd=CWD, new_session_id=OWN_ID), ctx)
    early = feed(adapter, lines[:1], ctx)
    assert brief(unsettled(early)) == [("session_start", OWN_ID, False), ("commands_update",)]
    listed = {c.name: c.description for c in early[1].commands}
    assert listed == dict(adapter.available_commands(ctx)) and listed["deep-research"].startswith("Deep research")
    adapter.send_prompt(Prompt.of_text("Write two hundred numbered lines."), ctx)
    assert sent(ctx)[-1]["session_id"] == OWN_ID
    turn = feed(adapter, lines[1:], ctx, exit_code=0)
    assert "session_start" not in types(turn) and "commands_update" not in types(turn)
    assert_ordering(early + turn)


def test_a_cli_that_names_another_session_is_reported(adapter: ClaudeAdapter) -> None:
    lines = capture_lines(FIXTURES / "claude" / "2.1.332" / "text.jsonl")
    ctx = make_ctx("claude", CWD)
    other = "00000000-0000-4000-8000-000000000000"
    adapter.start(RunOptions(agent="claude", cwd=CWD, new_session_id=other), ctx)
    feed(adapter, lines[:1], ctx)
    turn = feed(adapter, lines[1:3], ctx)
    warnings = [e.message for e in turn if e.type == "debug"]
    assert any(OWN_ID in w and other in w for w in warnings) and ctx.session_id == OWN_ID

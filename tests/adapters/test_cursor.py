"""The cursor adapter's own parts, without a process: authenticate before any session, and every cursor/*
extension request answered whatever its params (an unanswered one stalls Cursor). Shapes from Cursor's docs;
the whole flow is in test_cursor_replay.py (replay tests, not the real CLI)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.adapters.base import get_adapter
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.run.prompt import Prompt, TextPart
from tests.adapters.helpers import AsTheRunDrives, make_ctx, sent

CWD = "/nonexistent/project"
INIT = {
    "protocolVersion": 1,
    "agentCapabilities": {"loadSession": True},
    "authMethods": [{"id": "cursor_login", "name": "Cursor login"}],
}


def started() -> tuple[Any, Any, int]:
    """The adapter with initialize answered: (adapter, ctx, the authenticate request's id)."""
    adapter, ctx = AsTheRunDrives(get_adapter("cursor")), make_ctx("cursor", CWD)
    adapter.start(RunOptions(agent="cursor", cwd=CWD, prompt=Prompt((TextPart("hi"),))), ctx)
    (init,) = sent(ctx)
    assert init["method"] == "initialize"
    list(adapter.parse_line(json.dumps({"jsonrpc": "2.0", "id": init["id"], "result": INIT}), ctx))
    (auth,) = sent(ctx)
    assert auth["method"] == "authenticate" and auth["params"] == {"methodId": "cursor_login"}
    return adapter, ctx, auth["id"]


def in_session() -> tuple[Any, Any]:
    adapter, ctx, auth_id = started()
    list(adapter.parse_line(json.dumps({"jsonrpc": "2.0", "id": auth_id, "result": {}}), ctx))
    (new,) = sent(ctx)
    assert new["method"] == "session/new"
    list(adapter.parse_line(json.dumps({"jsonrpc": "2.0", "id": new["id"], "result": {"sessionId": "c-1"}}), ctx))
    assert [m["method"] for m in sent(ctx)] == ["session/prompt"]
    return adapter, ctx


def test_no_session_before_cursor_login_and_its_failure_is_an_auth_error() -> None:
    adapter, ctx, auth_id = started()
    error = {"code": -32000, "message": "Authentication required"}
    events = list(adapter.parse_line(json.dumps({"jsonrpc": "2.0", "id": auth_id, "error": error}), ctx))
    assert [e.type for e in events if e.type.endswith("error")] == ["auth_error"]
    assert "CURSOR_API_KEY" in next(e for e in events if e.type == "auth_error").guidance
    assert sent(ctx) == []  # no session/new after a failed sign-in


def test_without_cursor_login_offered_the_session_opens_at_once() -> None:
    adapter, ctx = get_adapter("cursor"), make_ctx("cursor", CWD)
    adapter.start(RunOptions(agent="cursor", cwd=CWD), ctx)
    (init,) = sent(ctx)
    list(adapter.parse_line(json.dumps({"jsonrpc": "2.0", "id": init["id"], "result": {"protocolVersion": 1}}), ctx))
    assert [m["method"] for m in sent(ctx)] == ["session/new"]


def test_todos_merge_by_id() -> None:
    adapter, ctx = in_session()
    first = {
        "todos": [
            {"id": "a", "content": "one", "status": "pending"},
            {"id": "b", "content": "two", "status": "pending"},
        ]
    }
    second = {"merge": True, "todos": [{"id": "b", "status": "cancelled"}, {"id": "z", "status": "completed"}]}
    plans = []
    for rpc_id, params in ((50, first), (51, second)):
        line = json.dumps({"jsonrpc": "2.0", "id": rpc_id, "method": "cursor/update_todos", "params": params})
        plans += [e for e in adapter.parse_line(line, ctx) if e.type == "plan_update"]
        assert sent(ctx) == [{"jsonrpc": "2.0", "id": rpc_id, "result": {}}]
    assert [(e.content, e.status) for e in plans[-1].entries] == [("one", "pending"), ("two (cancelled)", "completed")]


def test_two_questions_are_answered_together_once_both_are_picked() -> None:
    adapter, ctx = in_session()
    options = [{"id": "x", "label": "Ex"}, {"id": "y", "label": "Why"}]
    params = {
        "toolCallId": "q",
        "questions": [
            {"id": "q1", "prompt": "First?", "options": options},
            {"id": "q2", "prompt": "Second?", "options": options},
        ],
    }
    events = list(
        adapter.parse_line(
            json.dumps({"jsonrpc": "2.0", "id": 60, "method": "cursor/ask_question", "params": params}), ctx
        )
    )
    asks = [e for e in events if e.type == "approval_request"]
    assert [(a.action, a.choices, a.tool_call_id) for a in asks] == [
        ("First?", options, "q"),
        ("Second?", options, "q"),
    ]
    adapter.respond_approval(asks[0].interaction_id, ApprovalDecision(approve=True, updated_input={"choice": "y"}), ctx)
    assert sent(ctx) == []  # one question still open
    adapter.respond_approval(asks[1].interaction_id, ApprovalDecision(approve=False, reason="skip"), ctx)
    (answer,) = sent(ctx)
    assert answer == {
        "jsonrpc": "2.0",
        "id": 60,
        "result": {"outcome": {"outcome": "answered", "answers": [{"questionId": "q1", "selectedOptionIds": ["y"]}]}},
    }
    closing = list(adapter.parse_line('{"jsonrpc":"2.0","method":"session/update","params":{}}', ctx))
    assert [(e.type, getattr(e, "output", None)) for e in closing if e.type.startswith("tool_")] == [
        ("tool_result", "answered: Why")
    ]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "toolCallId",
                    "questions",
                    "options",
                    "todos",
                    "content",
                    "status",
                    "merge",
                    "prompt",
                    "label",
                    "title",
                    "plan",
                    "name",
                    "overview",
                    "durationMs",
                    "error",
                    "description",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=15,
)


@settings(max_examples=150, deadline=None)
@given(
    method=st.sampled_from(
        ["cursor/ask_question", "cursor/create_plan", "cursor/update_todos", "cursor/task", "cursor/generate_image"]
    ),
    params=json_values,
    as_request=st.booleans(),
)
def test_any_extension_params_never_raise_and_a_request_is_always_answered(
    method: str, params: Any, as_request: bool
) -> None:
    adapter, ctx = in_session()
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if as_request:
        message["id"] = 77
    events = list(adapter.parse_line(json.dumps(message), ctx))
    asks = [e for e in events if e.type == "approval_request"]
    for ask in asks:  # the person answers (or skips) every dialog
        adapter.respond_approval(ask.interaction_id, ApprovalDecision(approve=False, reason="no"), ctx)
    answers = [m for m in sent(ctx) if m.get("id") == 77 and "method" not in m]
    assert len(answers) == (1 if as_request else 0), answers

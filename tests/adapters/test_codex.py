"""Codex adapters against real transcripts (tests/fixtures/codex/shared-captures, codex 0.169.0) and synthetic
protocol messages: app-server JSON-RPC (``adapters/rpc_agents/codex.py``) and the ``exec --json`` fallback (``codex_exec.py``).
"""

from __future__ import annotations

import time

import json
from pathlib import Path
from typing import Any

import pytest

from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.events.union import BaseEvent
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import ExitStatus
from acp_mux.core.run.prompt import ImagePart, Prompt, TextPart
from acp_mux.adapters.base import DiffSpec
from acp_mux.adapters.rpc_agents.codex import CodexAdapter, prompt_input
from acp_mux.adapters.stream_agents.codex_exec import (
    AUTH_GUIDANCE,
    CODEX_TOOLS,
    CodexExecAdapter,
    CodexRun,
    patch_diffs,
)
from tests.adapters.helpers import AsTheRunDrives, FIXTURES, assert_ordering, brief, feed, make_ctx, sent, types

CAPTURES = FIXTURES / "codex" / "shared-captures"
CWD = "/home/user/project"
ACCEPT_THREAD = "01a20016-e219-74c2-a179-c464fbe3474b"
DECLINE_THREAD = "01a20016-ecdb-7c32-9d01-13880cdabd8d"
ECHO = "/bin/bash -lc 'echo hello-from-tool'"
LS = "/bin/bash -lc 'ls /nonexistent-dir && echo never'"
LS_OUT = "ls: cannot access '/nonexistent-dir': No such file or directory\n"
NOTE = f"{CWD}/note.txt"
DONE = "All done: ran echo and created note.txt."
_DECISIONS = {"accept": (True, False), "acceptForSession": (True, True), "approved": (True, False)}


def options(**kw: Any) -> RunOptions:
    kw.setdefault("prompt", Prompt.of_text("hi"))
    return RunOptions(agent="codex", cwd=CWD, **kw)


def conversation(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What we sent minus the side requests under acp-mux's own ids (model/list, skills/list, settings), which
    recordings made before them do not have; ``initialize`` without the capabilities they need."""
    kept = [m for m in out if not str(m.get("id", "")).startswith("acp-mux-")]
    return [
        {**m, "params": {k: v for k, v in m["params"].items() if k != "capabilities"}}
        if m.get("method") == "initialize"
        else m
        for m in kept
    ]


def annotations(path: Path) -> list[dict[str, Any]]:
    """What the recording driver wrote to codex's stdin (``# >>> {...}`` or ``# >>> STDIN {...}``)."""
    out = []
    for line in path.read_text().splitlines():
        if line.startswith("# >>> "):
            out.append(json.loads(line[len("# >>> ") :].removeprefix("STDIN ")))
    return out


def replay(path: Path, opts: RunOptions | None = None) -> tuple[list[BaseEvent], list[dict[str, Any]], ParseContext]:
    """Drive CodexAdapter through an app-server capture the way the runtime does: start(), then each stdout line;
    each recorded approval answer is given back through respond_approval. Returns events, what we sent, ctx."""
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex")
    adapter.start(opts or options(model="gpt-5.5"), ctx)
    out, events = sent(ctx), []
    for line in path.read_text().splitlines():
        if line.startswith("# >>> "):
            msg = json.loads(line[len("# >>> ") :].removeprefix("STDIN "))
            decision = msg.get("result", {}).get("decision") if isinstance(msg.get("result"), dict) else None
            if decision is not None:
                iid = next(q.id for q in ctx.questions if q.agent is not None and q.agent.request_id == msg["id"])
                approve, always = _DECISIONS.get(decision, (False, False))
                adapter.respond_approval(iid, ApprovalDecision(approve=approve, always=always), ctx)
                out += sent(ctx)
            continue
        events += adapter.parse_line(line, ctx)
        out += sent(ctx)
    return events, conversation(out), ctx


def exec_run(name: str, exit_code: int = 0, **opts: Any) -> list[BaseEvent]:
    adapter, ctx = CodexExecAdapter(), make_ctx("codex")
    adapter.start(options(**opts), ctx)
    lines = (CAPTURES / f"codex-{name}.jsonl").read_text().splitlines()
    return feed(adapter, lines, ctx, exit_code=exit_code)


def shell(tool_id: str, command: str) -> list[tuple]:
    return [("tool_call_start", tool_id, "shell"), ("tool_call_ready", tool_id, {"command": command, "cwd": CWD})]


def message(*deltas: str) -> list[tuple]:
    return [("message_start",), *[("text_delta", d) for d in deltas], ("message_stop", "".join(deltas))]


THINK = [
    ("thinking_start",),
    ("thinking_delta", "User said hi; run a command."),
    ("thinking_stop", "User said hi; run a command."),
]
PATCH_INPUT = {"changes": [{"path": NOTE, "kind": "add", "diff": "alpha\nbeta\n"}]}


# ── app-server: real transcripts ───────────────────────────────────────────────────────────────────────────────
def test_appserver_accept_exact_sequence() -> None:
    events, _, _ = replay(CAPTURES / "codex-appserver-untrusted-accept.jsonl")
    assert brief(events) == [
        ("debug",),  # configWarning: bubblewrap not on PATH
        ("session_start", ACCEPT_THREAD, False),
        ("turn_start", 0),
        *THINK,
        *message("Let me run", " a command."),
        *shell("call_fake_0", ECHO),
        ("approval_request", "codex-approval-0", "call_fake_0"),
        ("shell_start", ECHO, CWD),
        ("shell_stdout_delta", "hello-from-tool\n"),
        ("shell_exit", 0),
        ("tool_result", "call_fake_0", "hello-from-tool\n"),
        ("token_usage", 120, 30),
        *message("Now pa", "tching."),
        ("tool_call_start", "call_fake_1", "apply_patch"),
        ("tool_call_ready", "call_fake_1", PATCH_INPUT),
        ("approval_request", "codex-approval-1", "call_fake_1"),
        ("tool_result", "call_fake_1", f"added {NOTE}"),
        ("file_create", NOTE, 11),
        ("token_usage", 120, 30),
        *shell("call_fake_2", LS),
        ("approval_request", "codex-approval-2", "call_fake_2"),
        ("shell_start", LS, CWD),
        ("shell_stdout_delta", LS_OUT),
        ("shell_exit", 2),
        ("tool_error", "call_fake_2", LS_OUT + "(exit code 2)"),
        ("token_usage", 120, 30),
        *message("All done: ran echo a", "nd created note.txt."),
        ("token_usage", 120, 30),
        ("turn_end", 0),
    ]
    assert_ordering(events)


def test_appserver_accept_event_details() -> None:
    events, _, ctx = replay(CAPTURES / "codex-appserver-untrusted-accept.jsonl")
    approvals = [e for e in events if e.type == "approval_request"]
    cmd, patch = approvals[0], approvals[1]
    assert (cmd.action, cmd.detail, cmd.tool_name, cmd.risk_level) == ("Run command", ECHO, "shell", "medium")
    assert cmd.input == {"command": ECHO, "cwd": CWD}
    assert (patch.action, patch.detail, patch.tool_name) == ("Apply file changes", f"add {NOTE}", "apply_patch")
    assert patch.input == PATCH_INPUT
    usage = [e for e in events if e.type == "token_usage"][0]
    assert (usage.thinking_tokens, usage.cached_tokens) == (5, 20)
    assert [e.exit_code for e in events if e.type == "shell_exit"] == [0, 2]
    assert CodexRun.of(ctx).diff.startswith("diff --git a/note.txt b/note.txt")
    assert len(ctx.questions) == 0 and ctx.tools == {}


def test_appserver_outbox_matches_the_recorded_driver() -> None:
    path = CAPTURES / "codex-appserver-untrusted-accept.jsonl"
    _, out, _ = replay(path)
    recorded = annotations(path)
    assert [(m.get("id"), m.get("method")) for m in out[:4]] == [(m.get("id"), m.get("method")) for m in recorded[:4]]
    assert out[0]["params"]["clientInfo"]["name"] == "acp-mux"
    # the default mode asks: codex's "untrusted" policy, as in the capture
    assert out[2]["params"] == {
        "cwd": CWD,
        "approvalPolicy": "untrusted",
        "sandbox": "workspace-write",
        "model": "gpt-5.5",
    }
    assert out[3]["params"] == {"threadId": ACCEPT_THREAD, "input": [{"type": "text", "text": "hi"}]}
    assert (
        out[4:] == recorded[4:]
    )  # the three approval answers, byte for byte: {"id": n, "result": {"decision": "accept"}}


def test_appserver_decline_sequence() -> None:
    path = CAPTURES / "codex-appserver-untrusted-decline.jsonl"
    events, out, _ = replay(path)
    assert brief(events) == [
        ("debug",),
        ("session_start", DECLINE_THREAD, False),
        ("turn_start", 0),
        *THINK,
        *message("Let me run", " a command."),
        *shell("call_fake_0", ECHO),
        ("approval_request", "codex-approval-0", "call_fake_0"),
        ("tool_error", "call_fake_0", "declined by user"),
        ("token_usage", 120, 30),
        *message("Now pa", "tching."),
        ("tool_call_start", "call_fake_1", "apply_patch"),
        ("tool_call_ready", "call_fake_1", PATCH_INPUT),
        ("approval_request", "codex-approval-1", "call_fake_1"),
        ("tool_error", "call_fake_1", "declined by user"),
        ("token_usage", 120, 30),
        *shell("call_fake_2", LS),
        ("approval_request", "codex-approval-2", "call_fake_2"),
        ("tool_error", "call_fake_2", "declined by user"),
        ("token_usage", 120, 30),
        *message("All done: ran echo a", "nd created note.txt."),
        ("token_usage", 120, 30),
        ("turn_end", 0),
    ]
    assert "shell_start" not in types(events)  # a declined command never ran
    assert out[4:] == annotations(path)[4:]  # {"decision": "decline"} ×3
    assert_ordering(events)


# ── exec --json: real transcripts ──────────────────────────────────────────────────────────────────────────────
def _exec_shell(tool_id: str, command: str, output: str, code: int) -> list[tuple]:
    end = ("tool_result", tool_id, output) if code == 0 else ("tool_error", tool_id, f"{output}(exit code {code})")
    return [
        *shell(tool_id, command),
        ("shell_start", command, CWD),
        ("shell_stdout_delta", output),
        ("shell_exit", code),
        end,
    ]


def test_exec_workspace_write() -> None:
    events = exec_run("exec-workspace-write")
    assert brief(events) == [
        ("session_start", "01a20016-81b6-79c0-b8ec-184e8b5f5a34", False),
        ("turn_start", 0),
        *THINK,
        *message("Let me run a command."),
        *_exec_shell("item_2", ECHO, "hello-from-tool\n", 0),
        *message("Now patching."),
        ("tool_call_start", "item_4", "apply_patch"),
        ("tool_call_ready", "item_4", {"changes": [{"path": NOTE, "kind": "add"}]}),
        ("tool_result", "item_4", f"added {NOTE}"),
        ("file_create", NOTE, 0),  # exec carries no file content
        *_exec_shell("item_5", LS, LS_OUT, 2),
        *message(DONE),
        ("token_usage", 480, 120),
        ("turn_end", 0),
    ]
    usage = events[-2]
    assert (usage.cached_tokens, usage.thinking_tokens) == (80, 20)
    assert_ordering(events)


def test_exec_read_only_has_no_patch_and_reports_the_rejection_from_stderr() -> None:
    events = exec_run("exec-readonly")
    assert brief(events) == [
        ("session_start", "01a20016-77e6-7d72-aee7-17f6ec8143f8", False),
        ("turn_start", 0),
        *THINK,
        *message("Let me run a command."),
        *_exec_shell("item_2", ECHO, "hello-from-tool\n", 0),
        *message("Now patching."),
        *_exec_shell("item_4", LS, LS_OUT, 2),
        *message(DONE),
        ("token_usage", 480, 120),
        ("turn_end", 0),
    ]
    adapter, ctx = CodexExecAdapter(), make_ctx("codex")
    stderr = (CAPTURES / "codex-exec-readonly.stderr").read_text().splitlines()
    warnings = [e for line in stderr for e in adapter.stderr_events(line, ctx)]
    assert [e.message for e in warnings] == [
        "codex: patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings"
    ]


def test_exec_default_surfaces_non_fatal_error_items_as_warnings() -> None:
    events = exec_run("exec-default")
    assert brief(events) == [
        ("session_start", "01a20016-3350-7e01-a7db-8b30dfa74f50", False),
        ("debug",),
        ("turn_start", 0),
        *THINK,
        *message("Let me run a command."),
        *_exec_shell("item_3", ECHO, "hello-from-tool\n", 0),
        *message("Now patching."),
        *message(DONE),
        ("token_usage", 360, 90),
        ("turn_end", 0),
    ]
    assert events[1].level == "warn" and "Model metadata for `fake-model` not found" in events[1].message


def test_exec_resume() -> None:
    events = exec_run("resume", session_id="01a20016-81b6-79c0-b8ec-184e8b5f5a34")
    assert brief(events) == [
        ("session_start", "01a20016-81b6-79c0-b8ec-184e8b5f5a34", True),
        ("turn_start", 0),
        *message(DONE),
        ("token_usage", 600, 150),
        ("turn_end", 0),
    ]


def test_exec_auth_error_is_terminal_with_guidance_and_exit_1_is_not_a_crash() -> None:
    events = exec_run("auth-error", exit_code=1)
    message_ = "unexpected status 401 Unauthorized: Incorrect API key provided: sk-fake, url: http://127.0.0.1:18002/v1/responses"
    assert brief(events) == [
        ("session_start", "01a20016-a195-7110-8f9d-37509506fcc1", False),
        ("turn_start", 0),
        ("auth_error", message_),
    ]
    assert events[-1].guidance == AUTH_GUIDANCE == "Set OPENAI_API_KEY or run `codex login`"
    assert_ordering(events)


def test_exec_reconnect_notices_are_retries_and_a_killed_run_crashes() -> None:
    events = exec_run("env-openai-base-url", exit_code=124)
    retries = [(e.attempt, e.max_attempts) for e in events if e.type == "retry"]
    assert retries[:4] == [(2, 5), (3, 5), (4, 5), (5, 5)]
    assert len(retries) == 8 and types(events)[-1] == "crash"
    assert "turn_end" not in types(events)


def test_exec_rate_limit_and_generic_failures() -> None:
    adapter = CodexExecAdapter()
    lines = [
        {"type": "thread.started", "thread_id": "t"},
        {"type": "turn.started"},
        {"type": "error", "message": "exceeded retry limit, last status: 429 Too Many Requests"},
        {"type": "turn.failed", "error": {"message": "exceeded retry limit, last status: 429 Too Many Requests"}},
    ]
    events = feed(adapter, lines, exit_code=1)
    assert brief(events)[2:] == [
        ("rate_limit_error", "exceeded retry limit, last status: 429 Too Many Requests"),
        ("turn_end", 0),
    ]
    # an error line and then a dead process, no turn.failed: the error still tells the story
    events = feed(adapter, lines[:2] + [{"type": "error", "message": "something broke"}], exit_code=1)
    assert brief(events)[2:] == [("error", "AGENT_ERROR", True), ("turn_end", 0)]


def test_exec_other_items() -> None:
    lines = [
        {"type": "thread.started", "thread_id": "t"},
        {"type": "turn.started"},
        {
            "type": "item.started",
            "item": {
                "id": "i1",
                "type": "todo_list",
                "items": [{"text": "a", "completed": True}, {"text": "b", "completed": False}],
            },
        },
        {
            "type": "item.started",
            "item": {
                "id": "i2",
                "type": "mcp_tool_call",
                "server": "s",
                "tool": "t",
                "arguments": {"x": 1},
                "status": "in_progress",
            },
        },
        {
            "type": "item.completed",
            "item": {
                "id": "i2",
                "type": "mcp_tool_call",
                "server": "s",
                "tool": "t",
                "arguments": {"x": 1},
                "result": {"content": []},
                "status": "completed",
            },
        },
        {"type": "item.completed", "item": {"id": "i3", "type": "web_search", "query": "acp"}},
        {
            "type": "item.completed",
            "item": {
                "id": "i4",
                "type": "file_change",
                "changes": [{"path": "/a", "kind": "update"}, {"path": "/b", "kind": "delete"}],
                "status": "completed",
            },
        },
        {"type": "turn.completed", "usage": {}},
    ]
    events = feed(CodexExecAdapter(), lines)
    plan = {"plan": [{"step": "a", "status": "completed"}, {"step": "b", "status": "pending"}]}
    assert brief(events)[2:] == [
        ("tool_call_start", "i1-plan-1", "update_plan"),
        ("tool_call_ready", "i1-plan-1", plan),
        ("tool_result", "i1-plan-1", "Plan updated"),
        ("tool_call_start", "i2", "mcp__s__t"),
        ("tool_call_ready", "i2", {"x": 1}),
        ("tool_result", "i2", {"content": []}),
        ("tool_call_start", "i3", "web_search"),
        ("tool_call_ready", "i3", {"query": "acp"}),
        ("tool_result", "i3", "acp"),
        ("tool_call_start", "i4", "apply_patch"),
        ("tool_call_ready", "i4", {"changes": [{"path": "/a", "kind": "update"}, {"path": "/b", "kind": "delete"}]}),
        ("tool_result", "i4", "updated /a\ndeleted /b"),
        ("file_write", "/a", 0),
        ("file_delete",),
        ("turn_end", 0),
    ]
    assert_ordering(events)


def test_exec_build_spawn_new_and_resume() -> None:
    adapter = CodexExecAdapter()
    spec = adapter.build_spawn(
        options(binary="/opt/codex", model="gpt-5.5", mode="read-only", extra_args=["--ephemeral"])
    )
    assert spec.command == "/bin/sh" and spec.cwd == CWD
    assert spec.args == [
        "-c", 'exec "$0" "$@" </dev/null', "/opt/codex",
        "-c", 'sandbox_mode="read-only"', "exec", "--json", "--skip-git-repo-check",
        "-m", "gpt-5.5", "--ephemeral", "--", "hi",
    ]  # fmt: skip
    spec = adapter.build_spawn(options(binary="/opt/codex", session_id="T1", prompt=Prompt.of_text("-next")))
    assert spec.args[3:] == [
        "-c", 'sandbox_mode="workspace-write"', "exec", "--json", "--skip-git-repo-check", "resume", "--", "T1", "-next",
    ]  # fmt: skip
    full = adapter.build_spawn(options(binary="/opt/codex", mode="full-access"))
    assert 'sandbox_mode="danger-full-access"' in full.args
    assert adapter.capabilities.persistent_process is False and not adapter.capabilities.supports_images


# ── app-server: handshake and what we send ────────────────────────────────────────────────────────────────────
def _started(opts: RunOptions | None = None, thread: str = "T1") -> tuple[CodexAdapter, ParseContext, list[BaseEvent]]:
    """Adapter + context after the handshake (initialize → initialized → thread/start answered)."""
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex")
    adapter.start(opts or options(prompt=None), ctx)
    sent(ctx)
    events = feed(adapter, [{"id": 1, "result": {"userAgent": "x"}}], ctx)
    sent(ctx)
    events += feed(adapter, [{"id": 2, "result": {"thread": {"id": thread}}}], ctx)
    return adapter, ctx, events


def test_build_spawn_app_server() -> None:
    spec = CodexAdapter().build_spawn(
        options(binary="/opt/codex", extra_args=["-c", 'model_provider="fake"'], env={"A": "1"})
    )
    assert (spec.command, spec.args, spec.env, spec.cwd) == (
        "/opt/codex",
        ["-c", 'model_provider="fake"', "app-server"],
        {"A": "1"},
        CWD,
    )


def test_start_runs_the_handshake_step_by_step() -> None:
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex")
    adapter.start(options(mode="read-only", model="gpt-5.5"), ctx)
    assert sent(ctx) == [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "clientInfo": {"name": "acp-mux", "title": "acp-mux", "version": "0.1.0"},
                "capabilities": {"experimentalApi": True},
            },
        }
    ]
    assert feed(adapter, [{"id": 1, "result": {}}], ctx) == []
    assert conversation(sent(ctx)) == [
        {"jsonrpc": "2.0", "method": "initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "thread/start",
            "params": {"cwd": CWD, "approvalPolicy": "on-request", "sandbox": "read-only", "model": "gpt-5.5"},
        },
    ]
    events = feed(adapter, [{"id": 2, "result": {"thread": {"id": "T1"}}}], ctx)
    assert brief(events) == [("session_start", "T1", False)]
    assert sent(ctx) == [
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "turn/start",
            "params": {"threadId": "T1", "input": [{"type": "text", "text": "hi"}]},
        }
    ]
    # the later thread/started notification does not repeat session_start
    assert feed(adapter, [{"method": "thread/started", "params": {"thread": {"id": "T1"}}}], ctx) == []


def test_resume_uses_thread_resume_and_marks_the_session_resumed() -> None:
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex")
    adapter.start(options(session_id="T-old", mode="full-access", prompt=None), ctx)
    sent(ctx)
    feed(adapter, [{"id": 1, "result": {}}], ctx)
    assert sent(ctx)[1] == {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "thread/resume",
        "params": {"cwd": CWD, "approvalPolicy": "never", "sandbox": "danger-full-access", "threadId": "T-old"},
    }
    events = feed(adapter, [{"id": 2, "result": {"thread": {"id": "T-old"}}}], ctx)
    assert brief(events) == [("session_start", "T-old", True)]
    assert sent(ctx) == []  # no prompt, no turn


def test_a_fork_uses_thread_fork_and_its_failure_is_an_error_never_a_fresh_thread() -> None:
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex")
    adapter.start(options(session_id="T-old", mode="full-access", prompt=None, fork_session=True), ctx)
    sent(ctx)
    feed(adapter, [{"id": 1, "result": {}}], ctx)
    assert sent(ctx)[1]["method"] == "thread/fork"  # ThreadForkParams: threadId and thread/resume's settings
    assert sent(ctx) == []
    events = feed(adapter, [{"id": 2, "result": {"thread": {"id": "T-new"}}}], ctx)
    assert brief(events) == [("session_start", "T-new", False)]
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex")
    adapter.start(options(session_id="T-old", prompt=None, fork_session=True), ctx)
    feed(adapter, [{"id": 1, "result": {}}], ctx)
    sent(ctx)
    events = feed(adapter, [{"id": 2, "error": {"code": -32600, "message": "no rollout found for thread"}}], ctx)
    assert brief(events) == [("error", "PROTOCOL_ERROR", False)] and "could not fork" in events[0].message
    assert sent(ctx) == []  # no thread/start in its place: the bridge hands the conversation over instead


def test_handshake_failures() -> None:
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex")
    adapter.start(options(session_id="gone"), ctx)
    feed(adapter, [{"id": 1, "result": {}}], ctx)
    events = feed(adapter, [{"id": 2, "error": {"code": -32600, "message": "thread not found"}}], ctx)
    assert brief(events) == [("error", "PROTOCOL_ERROR", False)]
    assert "thread not found" in events[0].message
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex")
    adapter.start(options(), ctx)
    assert brief(feed(adapter, [{"id": 1, "error": {"code": -32000, "message": "Already initialized"}}], ctx)) == [
        ("error", "PROTOCOL_ERROR", False)
    ]


def test_send_prompt_before_the_thread_exists_is_deferred() -> None:
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex")
    adapter.start(options(prompt=None), ctx)
    adapter.send_prompt(Prompt.of_text("early"), ctx)
    assert [m["method"] for m in sent(ctx)] == ["initialize"]
    feed(adapter, [{"id": 1, "result": {}}, {"id": 2, "result": {"thread": {"id": "T1"}}}], ctx)
    assert [m.get("method") for m in sent(ctx)] == [
        "initialized",
        "thread/start",
        "model/list",
        "skills/list",
        "turn/start",
    ]


def test_send_prompt_with_images() -> None:
    adapter, ctx, _ = _started()
    prompt = Prompt(
        (
            TextPart("look"),
            ImagePart(data="QUJD", mime_type="image/png"),
            ImagePart(data="", mime_type="image/png", uri="file:///tmp/s.png"),
        )
    )
    adapter.send_prompt(prompt, ctx)
    assert sent(ctx) == [{"jsonrpc": "2.0", "id": 3, "method": "turn/start", "params": {"threadId": "T1", "input": [
        {"type": "text", "text": "look"},
        {"type": "image", "url": "data:image/png;base64,QUJD"},
        {"type": "localImage", "path": "/tmp/s.png"},
    ]}}]  # fmt: skip
    assert prompt_input(Prompt(())) == [{"type": "text", "text": ""}]


def test_set_mode_applies_on_the_next_turn() -> None:
    adapter, ctx, _ = _started()
    assert adapter.set_mode("nonsense", ctx) is False
    assert adapter.set_mode("default", ctx) is True  # already the mode (ask): nothing to override
    adapter.send_prompt(Prompt.of_text("a"), ctx)
    assert "approvalPolicy" not in sent(ctx)[0]["params"]
    assert adapter.set_mode("auto", ctx) is True  # codex-acp's auto: asks nothing inside the workspace
    adapter.send_prompt(Prompt.of_text("a2"), ctx)
    params = sent(ctx)[0]["params"]
    assert (params["approvalPolicy"], params["sandboxPolicy"]) == ("on-request", {"type": "workspaceWrite"})
    assert adapter.set_mode("full-access", ctx) is True
    adapter.send_prompt(Prompt.of_text("b"), ctx)
    params = sent(ctx)[0]["params"]
    assert (params["approvalPolicy"], params["sandboxPolicy"]) == ("never", {"type": "dangerFullAccess"})
    adapter.set_mode("read-only", ctx)
    adapter.send_prompt(Prompt.of_text("c"), ctx)
    params = sent(ctx)[0]["params"]
    assert (params["approvalPolicy"], params["sandboxPolicy"]) == ("on-request", {"type": "readOnly"})
    adapter.send_prompt(Prompt.of_text("d"), ctx)
    assert "sandboxPolicy" not in sent(ctx)[0]["params"]  # codex keeps per-turn overrides for later turns


def test_interrupt_sends_turn_interrupt() -> None:
    adapter, ctx, _ = _started()
    assert adapter.interrupt(ctx) is True and sent(ctx) == []  # idle: nothing to interrupt, and no SIGINT either
    adapter.send_prompt(Prompt.of_text("go"), ctx)
    sent(ctx)
    assert adapter.interrupt(ctx) is True and sent(ctx) == []  # turn id not known yet
    feed(adapter, [{"id": 3, "result": {"turn": {"id": "U1", "status": "inProgress"}}}], ctx)
    assert sent(ctx) == [
        {"jsonrpc": "2.0", "id": 4, "method": "turn/interrupt", "params": {"threadId": "T1", "turnId": "U1"}}
    ]
    feed(
        adapter,
        [{"id": 4, "result": {}}, {"method": "turn/started", "params": {"threadId": "T1", "turn": {"id": "U1"}}}],
        ctx,
    )
    assert adapter.interrupt(ctx) is True
    assert sent(ctx)[0]["params"] == {"threadId": "T1", "turnId": "U1"}
    events = feed(adapter, [
        {"method": "item/started", "params": {"threadId": "T1", "item": {"type": "commandExecution", "id": "c1", "command": "sleep 9", "cwd": CWD}}},
        {"method": "turn/completed", "params": {"threadId": "T1", "turn": {"id": "U1", "status": "interrupted", "error": None}}},
    ], ctx)  # fmt: skip
    assert brief(events)[-3:-1] == [("tool_error", "c1", "interrupted"), ("interrupted",)]
    assert brief(events)[-1] == ("turn_end", 0)
    adapter.send_prompt(Prompt.of_text("next"), ctx)
    assert [m["method"] for m in sent(ctx)] == ["turn/start"]  # a finished interrupt is not replayed


# ── app-server: approvals ──────────────────────────────────────────────────────────────────────────────────────
def _cmd_request(rpc_id: int, item: str = "c1", **extra: Any) -> dict[str, Any]:
    params = {"threadId": "T1", "turnId": "U1", "itemId": item, "command": "git status", "cwd": CWD, **extra}
    return {"method": "item/commandExecution/requestApproval", "id": rpc_id, "params": params}


def test_command_approval_announces_an_unannounced_tool_and_rates_risk() -> None:
    adapter, ctx, _ = _started()
    events = feed(
        adapter, [_cmd_request(0, commandActions=[{"type": "read", "command": "cat x", "name": "x", "path": "x"}])], ctx
    )
    assert brief(events) == [
        ("turn_start", 0),
        ("tool_call_start", "c1", "shell"),
        ("tool_call_ready", "c1", {"command": "git status", "cwd": CWD}),
        ("approval_request", "codex-approval-0", "c1"),
    ]
    assert events[-1].risk_level == "low"
    events = feed(
        adapter, [_cmd_request(1, "c2", reason="needs network", networkApprovalContext={"host": "x.org"})], ctx
    )
    assert (events[-1].action, events[-1].risk_level) == ("Run command (needs network)", "high")


@pytest.mark.parametrize(
    ("available", "decision", "expected"),
    [
        (None, ApprovalDecision(approve=True), "accept"),
        # "always" is answered once: the bridge keeps the rule, as wide as its label, and answers the next ask
        (None, ApprovalDecision(approve=True, always=True), "accept"),
        (["accept", "acceptForSession", "decline"], ApprovalDecision(approve=True, always=True), "accept"),
        (
            ["accept", {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["git", "status"]}}, "cancel"],
            ApprovalDecision(approve=True, always=True),
            "accept",  # never codex's own prefix rule
        ),
        (["accept", "cancel"], ApprovalDecision(approve=True, always=True), "accept"),
        (None, ApprovalDecision(approve=False, reason="no"), "decline"),
    ],
)
def test_command_approval_decisions(available, decision, expected) -> None:
    adapter, ctx, _ = _started()
    extra = {"availableDecisions": available} if available is not None else {}
    feed(adapter, [_cmd_request(7, **extra)], ctx)
    adapter.respond_approval("codex-approval-7", decision, ctx)
    assert sent(ctx) == [{"jsonrpc": "2.0", "id": 7, "result": {"decision": expected}}]
    adapter.respond_approval("codex-approval-7", decision, ctx)  # answered once only
    adapter.respond_approval("unknown", decision, ctx)
    assert sent(ctx) == []


def test_file_change_approval_always_is_answered_once_never_granting_the_root() -> None:
    """codex's session approval would also grant ``grantRoot`` (writes under /): wider than "changes to /a, /b"."""
    adapter, ctx, _ = _started()
    feed(adapter, [
        {"method": "item/started", "params": {"threadId": "T1", "item": {"type": "fileChange", "id": "p1", "changes": [{"path": "/a", "kind": {"type": "update", "move_path": "/b"}, "diff": "@@ -1 +1 @@\n-x\n+y\n"}], "status": "inProgress"}}},
        {"method": "item/fileChange/requestApproval", "id": 3, "params": {"threadId": "T1", "itemId": "p1", "reason": None, "grantRoot": "/"}},
    ], ctx)  # fmt: skip
    request = list(ctx.questions)
    assert request and request[0].agent is not None and request[0].agent.method == "patch"
    adapter.respond_approval("codex-approval-3", ApprovalDecision(approve=True, always=True), ctx)
    assert sent(ctx) == [{"jsonrpc": "2.0", "id": 3, "result": {"decision": "accept"}}]


def test_file_change_approval_event() -> None:
    adapter, ctx, _ = _started()
    events = feed(adapter, [
        {"method": "item/started", "params": {"threadId": "T1", "item": {"type": "fileChange", "id": "p1", "changes": [{"path": "/a", "kind": {"type": "update", "move_path": "/b"}, "diff": "@@ -1 +1 @@\n-x\n+y\n"}], "status": "inProgress"}}},
        {"method": "item/fileChange/requestApproval", "id": 3, "params": {"threadId": "T1", "itemId": "p1", "reason": "outside the workspace", "grantRoot": "/"}},
    ], ctx)  # fmt: skip
    approval = events[-1]
    assert (approval.action, approval.risk_level, approval.tool_call_id) == (
        "Apply file changes (outside the workspace)",
        "high",
        "p1",
    )
    assert approval.detail == "update /b\nand allow writes under / for this session"


def test_legacy_approvals() -> None:
    adapter, ctx, _ = _started()
    events = feed(adapter, [
        {"method": "execCommandApproval", "id": 0, "params": {"conversationId": "T1", "callId": "x1", "command": ["rm", "-rf", "my dir"], "cwd": CWD, "reason": None}},
        {"method": "applyPatchApproval", "id": 1, "params": {"conversationId": "T1", "callId": "x2", "fileChanges": {"/n.txt": {"type": "add", "content": "hi"}}}},
    ], ctx)  # fmt: skip
    assert brief(events) == [
        ("turn_start", 0),
        ("tool_call_start", "x1", "shell"),
        ("tool_call_ready", "x1", {"command": "rm -rf 'my dir'", "cwd": CWD}),
        ("approval_request", "codex-approval-0", "x1"),
        ("tool_call_start", "x2", "apply_patch"),
        ("tool_call_ready", "x2", {"changes": [{"path": "/n.txt", "kind": "add", "diff": "hi"}]}),
        ("approval_request", "codex-approval-1", "x2"),
    ]
    adapter.respond_approval("codex-approval-0", ApprovalDecision(approve=True, always=True), ctx)
    adapter.respond_approval("codex-approval-1", ApprovalDecision(approve=False), ctx)
    assert [m["result"] for m in sent(ctx)] == [{"decision": "approved"}, {"decision": "denied"}]


def test_permissions_and_mcp_elicitation_approvals() -> None:
    adapter, ctx, _ = _started()
    perms = {"fileSystem": {"write": ["/x"]}}
    events = feed(adapter, [
        {"method": "item/permissions/requestApproval", "id": 5, "params": {"threadId": "T1", "itemId": "i9", "reason": "Select a root", "permissions": perms}},
        {"method": "mcpServer/elicitation/request", "id": 6, "params": {"threadId": "T1", "serverName": "gh", "mode": "form", "message": "Allow gh/create_issue?", "_meta": {"codex_approval_kind": "mcp_tool_call"}}},
    ], ctx)  # fmt: skip
    assert [(e.action, e.tool_name) for e in events] == [
        ("Select a root", "request_permissions"),
        ("Allow gh/create_issue?", "mcp"),
    ]
    assert [e.tool_call_id for e in events] == [None, None]  # never point at a tool call that was not announced
    adapter.respond_approval("codex-approval-5", ApprovalDecision(approve=True, always=True), ctx)
    adapter.respond_approval("codex-approval-6", ApprovalDecision(approve=False), ctx)
    assert [m["result"] for m in sent(ctx)] == [
        {"permissions": perms, "scope": "turn"},  # "always" is the bridge's rule, never a session-wide grant
        {"action": "decline", "content": None},
    ]


def test_unsupported_server_requests_are_answered_not_left_hanging() -> None:
    adapter, ctx, _ = _started()
    events = feed(adapter, [
        {"method": "item/tool/requestUserInput", "id": 8, "params": {"threadId": "T1", "questions": []}},
        {"method": "mcpServer/elicitation/request", "id": 9, "params": {"threadId": "T1", "mode": "url", "url": "https://x"}},
    ], ctx)  # fmt: skip
    assert types(events) == ["debug", "debug"] and len(ctx.questions) == 0
    assert sent(ctx) == [
        {
            "jsonrpc": "2.0",
            "id": 8,
            "error": {"code": -32601, "message": "acp-mux does not support item/tool/requestUserInput"},
        },
        {"jsonrpc": "2.0", "id": 9, "result": {"action": "decline", "content": None}},
    ]


def test_server_resolved_request_is_forgotten() -> None:
    adapter, ctx, _ = _started()
    feed(
        adapter,
        [_cmd_request(4), {"method": "serverRequest/resolved", "params": {"threadId": "T1", "requestId": 4}}],
        ctx,
    )
    # The question stays the person's (their dialog may be open) but codex no longer waits for its answer.
    assert [(q.id, q.agent) for q in ctx.questions] == [("codex-approval-4", None)]
    adapter.respond_approval("codex-approval-4", ApprovalDecision(approve=True), ctx)
    assert (
        sent(ctx) == [] and len(ctx.questions) == 0
    )  # codex already cleared it (turn ended): answering now would be an error


# ── app-server: turn outcomes and errors ───────────────────────────────────────────────────────────────────────
def _turn(*messages: dict[str, Any], status: str = "completed", error: dict | None = None) -> list[BaseEvent]:
    adapter, ctx, _ = _started()
    lines = [{"method": "turn/started", "params": {"threadId": "T1", "turn": {"id": "U1"}}}, *messages]
    lines.append(
        {
            "method": "turn/completed",
            "params": {"threadId": "T1", "turn": {"id": "U1", "status": status, "error": error}},
        }
    )
    events = feed(adapter, lines, ctx)
    assert_ordering(events)
    return events


def test_failed_turn_unauthorized_is_an_auth_error_without_turn_end() -> None:
    events = _turn(
        status="failed", error={"message": "unexpected status 401 Unauthorized", "codexErrorInfo": "unauthorized"}
    )
    assert brief(events) == [("turn_start", 0), ("auth_error", "unexpected status 401 Unauthorized")]
    assert events[-1].guidance == AUTH_GUIDANCE


def test_failed_turn_rate_limit_is_recoverable_and_closes_the_turn() -> None:
    error = {
        "message": "exceeded retry limit, last status: 429",
        "codexErrorInfo": {"responseTooManyFailedAttempts": {"httpStatusCode": 429}},
    }
    events = _turn(status="failed", error=error)
    assert brief(events) == [
        ("turn_start", 0),
        ("rate_limit_error", "exceeded retry limit, last status: 429"),
        ("turn_end", 0),
    ]
    events = _turn(status="failed", error={"message": "quota", "codexErrorInfo": "usageLimitExceeded"})
    assert types(events) == ["turn_start", "rate_limit_error", "turn_end"]


def _limits(used: float, resets: int) -> dict[str, Any]:
    """``account/rateLimits/updated`` as codex-rs app-server-protocol v2 (RateLimitSnapshot/RateLimitWindow)."""
    window = {"usedPercent": used, "windowDurationMins": 300, "resetsAt": resets}
    return {"method": "account/rateLimits/updated", "params": {"rateLimits": {"limitId": "codex", "primary": window}}}


@pytest.mark.parametrize("kind", ["usageLimitExceeded", "rateLimitExceeded"])
def test_a_usage_limit_is_a_quota_with_the_reset_time_of_the_used_up_window(kind: str) -> None:
    """codex will not retry past these (a retried one comes as ``willRetry: true``): a ``quota`` limit, its reset
    time from the rate-limit snapshot's ``resetsAt``, never from the message's words."""
    error = {"message": "You've hit your usage limit. Try again at 3:04 PM.", "codexErrorInfo": kind}
    notice = {"method": "error", "params": {"threadId": "T1", "turnId": "U1", "willRetry": False, "error": error}}
    resets = int(time.time()) + 3 * 3600
    events = _turn(_limits(100.0, resets), notice, status="failed", error=error)
    limit = next(e for e in events if e.type == "rate_limit_error")
    assert (limit.kind, limit.resets_at) == ("quota", resets)
    below = next(e for e in _turn(_limits(42.0, resets), status="failed", error=error) if e.type == "rate_limit_error")
    assert (below.kind, below.resets_at) == ("quota", None)  # no window used up: no reset time to tell


def test_a_429_codex_gave_up_on_is_a_rate_limit_not_a_quota() -> None:
    error = {
        "message": "exceeded retry limit, last status: 429",
        "codexErrorInfo": {"responseTooManyFailedAttempts": {"httpStatusCode": 429}},
    }
    limit = next(
        e for e in _turn(_limits(100.0, 1_900_000_000), status="failed", error=error) if e.type == "rate_limit_error"
    )
    assert (limit.kind, limit.resets_at) == ("rate", None)


def test_a_limit_codex_retries_is_shown_and_never_ends_the_turn() -> None:
    error = {"message": "Reconnecting... 1/5", "codexErrorInfo": "rateLimitExceeded"}
    notice = {"method": "error", "params": {"threadId": "T1", "turnId": "U1", "willRetry": True, "error": error}}
    assert types(_turn(notice)) == ["turn_start", "rate_limited", "retry", "turn_end"]


def test_failed_turn_context_window_uses_the_last_usage() -> None:
    usage = {"method": "thread/tokenUsage/updated", "params": {"threadId": "T1", "tokenUsage": {
        "total": {"totalTokens": 250000}, "last": {"totalTokens": 250000, "inputTokens": 249000, "outputTokens": 1000},
        "modelContextWindow": 258400}}}  # fmt: skip
    events = _turn(usage, status="failed", error={"message": "context", "codexErrorInfo": "contextWindowExceeded"})
    assert brief(events) == [
        ("turn_start", 0),
        ("token_usage", 249000, 1000),
        ("context_limit_warning",),
        ("context_exceeded", 250000, 258400),
    ]
    assert events[2].pct_used == 96.7


def test_failed_turn_generic_error_is_reported_once() -> None:
    err = {"message": "stream disconnected", "codexErrorInfo": {"responseStreamDisconnected": {"httpStatusCode": None}}}
    notice = {"method": "error", "params": {"threadId": "T1", "turnId": "U1", "willRetry": False, "error": err}}
    text = {"method": "item/agentMessage/delta", "params": {"threadId": "T1", "itemId": "m", "delta": "par"}}
    events = _turn(text, notice, status="failed", error=None)
    assert brief(events) == [
        ("turn_start", 0),
        ("message_start",),
        ("text_delta", "par"),
        ("message_stop", "par"),
        ("error", "AGENT_ERROR", True),
        ("turn_end", 0),
    ]
    assert events[-2].message == "stream disconnected"


def test_retrying_errors_are_retry_events() -> None:
    err = {
        "message": "Reconnecting... 2/5 (429 Too Many Requests)",
        "codexErrorInfo": {"responseStreamConnectionFailed": {"httpStatusCode": 429}},
    }
    notice = {"method": "error", "params": {"threadId": "T1", "turnId": "U1", "willRetry": True, "error": err}}
    events = _turn(notice)
    assert brief(events) == [
        ("turn_start", 0),
        ("rate_limited",),
        ("retry", 2, "429 Too Many Requests"),
        ("turn_end", 0),
    ]
    assert events[2].max_attempts == 5


def test_error_outside_a_turn_is_reported_at_once() -> None:
    adapter, ctx, _ = _started()
    events = feed(
        adapter,
        [
            {
                "method": "error",
                "params": {"threadId": "T1", "willRetry": False, "error": {"message": "401 Unauthorized"}},
            }
        ],
        ctx,
    )
    assert types(events) == ["auth_error"]


def test_turn_start_rejected_still_gives_the_prompt_a_turn_end() -> None:
    adapter, ctx, _ = _started()
    adapter.send_prompt(Prompt.of_text("x"), ctx)
    sent(ctx)
    events = feed(adapter, [{"id": 3, "error": {"code": -32600, "message": "turn already active"}}], ctx)
    assert brief(events) == [("turn_start", 0), ("error", "AGENT_ERROR", True), ("turn_end", 0)]


# ── app-server: streaming details ──────────────────────────────────────────────────────────────────────────────
def _n(method: str, **params: Any) -> dict[str, Any]:
    return {"method": method, "params": {"threadId": "T1", "turnId": "U1", **params}}


def test_reasoning_deltas_sections_and_whole_items() -> None:
    events = _turn(
        _n("item/reasoning/summaryPartAdded", itemId="r1", summaryIndex=0),
        _n("item/reasoning/summaryTextDelta", itemId="r1", delta="one", summaryIndex=0),
        _n("item/reasoning/summaryPartAdded", itemId="r1", summaryIndex=1),
        _n("item/reasoning/summaryTextDelta", itemId="r1", delta="two", summaryIndex=1),
        _n("item/completed", item={"type": "reasoning", "id": "r1", "summary": ["one", "two"], "content": []}),
        _n("item/completed", item={"type": "reasoning", "id": "r2", "summary": [], "content": ["raw"]}),  # no deltas
        _n("item/reasoning/textDelta", itemId="r3", delta="oss", contentIndex=0),
        _n("item/completed", item={"type": "agentMessage", "id": "m1", "text": "whole"}),  # no deltas
    )
    assert brief(events) == [
        ("turn_start", 0),
        ("thinking_start",),
        ("thinking_delta", "one"),
        ("thinking_delta", "\n\n"),
        ("thinking_delta", "two"),
        ("thinking_stop", "one\n\ntwo"),
        ("thinking_start",),
        ("thinking_delta", "raw"),
        ("thinking_stop", "raw"),
        ("thinking_start",),
        ("thinking_delta", "oss"),
        ("thinking_stop", "oss"),
        ("message_start",),
        ("text_delta", "whole"),
        ("message_stop", "whole"),
        ("turn_end", 0),
    ]


def test_streamed_command_output() -> None:
    item = {"type": "commandExecution", "id": "c1", "command": "make", "cwd": "/w", "status": "inProgress"}
    done = {**item, "status": "completed", "aggregatedOutput": "a\nb\n", "exitCode": 0, "durationMs": 1200}
    events = _turn(
        _n("item/started", item=item),
        _n("item/commandExecution/outputDelta", itemId="c1", delta="a\n"),
        _n("item/commandExecution/outputDelta", itemId="c1", delta="b\n"),
        _n("item/completed", item=done),
    )
    assert brief(events) == [
        ("turn_start", 0),
        ("tool_call_start", "c1", "shell"),
        ("tool_call_ready", "c1", {"command": "make", "cwd": "/w"}),
        ("shell_start", "make", "/w"),
        ("shell_stdout_delta", "a\n"),
        ("shell_stdout_delta", "b\n"),
        ("shell_exit", 0),  # the aggregated output is not repeated
        ("tool_result", "c1", "a\nb\n"),
        ("turn_end", 0),
    ]
    assert events[6].duration_ms == 1200


def test_plan_updates_become_update_plan_tool_calls() -> None:
    plan = [
        {"step": "read", "status": "completed"},
        {"step": "edit", "status": "inProgress"},
        {"step": "test", "status": "pending"},
    ]
    events = _turn(
        _n("turn/plan/updated", explanation="first", plan=plan),
        _n("turn/plan/updated", explanation=None, plan=plan[:1]),
    )
    expected = {
        "plan": [
            {"step": "read", "status": "completed"},
            {"step": "edit", "status": "in_progress"},
            {"step": "test", "status": "pending"},
        ],
        "explanation": "first",
    }
    assert brief(events) == [
        ("turn_start", 0),
        ("tool_call_start", "plan-1", "update_plan"),
        ("tool_call_ready", "plan-1", expected),
        ("tool_result", "plan-1", "Plan updated"),
        ("tool_call_start", "plan-2", "update_plan"),
        ("tool_call_ready", "plan-2", {"plan": [{"step": "read", "status": "completed"}]}),
        ("tool_result", "plan-2", "Plan updated"),
        ("turn_end", 0),
    ]
    spec = CODEX_TOOLS.lookup("update_plan")
    assert (spec.kind, spec.is_plan, spec.render_title("update_plan", expected)) == ("think", True, "Update plan")


def test_token_usage_skips_repeated_snapshots() -> None:
    snap = {
        "total": {"totalTokens": 150},
        "last": {"totalTokens": 150, "inputTokens": 120, "outputTokens": 30},
        "modelContextWindow": 258400,
    }
    events = _turn(_n("thread/tokenUsage/updated", tokenUsage=snap), _n("thread/tokenUsage/updated", tokenUsage=snap))
    assert types(events) == ["turn_start", "token_usage", "turn_end"]


def test_file_change_update_with_unified_diff_and_failures() -> None:
    diff = "@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"
    change = {"path": "/a.py", "kind": {"type": "update", "move_path": None}, "diff": diff}
    ok = {"type": "fileChange", "id": "p1", "changes": [change], "status": "completed"}
    bad = {"type": "fileChange", "id": "p2", "changes": [change], "status": "failed"}
    events = _turn(
        _n("item/started", item={**ok, "status": "inProgress"}),
        _n("item/completed", item=ok),
        _n("item/fileChange/outputDelta", itemId="p2", delta="hunk did not apply"),
        _n("item/completed", item=bad),  # never announced: announced now
        _n("turn/diff/updated", diff="diff --git a/a.py b/a.py"),
    )
    assert brief(events) == [
        ("turn_start", 0),
        ("tool_call_start", "p1", "apply_patch"),
        ("tool_call_ready", "p1", {"changes": [{"path": "/a.py", "kind": "update", "diff": diff}]}),
        ("tool_result", "p1", "updated /a.py"),
        ("file_patch", "/a.py", diff),
        ("tool_call_start", "p2", "apply_patch"),
        ("tool_call_ready", "p2", {"changes": [{"path": "/a.py", "kind": "update", "diff": diff}]}),
        ("tool_error", "p2", "hunk did not apply"),
        ("turn_end", 0),
    ]


def test_patch_tool_spec_diffs_and_titles() -> None:
    spec = CODEX_TOOLS.lookup("apply_patch")
    args = {"changes": [
        {"path": "/n.txt", "kind": "add", "diff": "alpha\nbeta\n"},
        {"path": "/d.txt", "kind": "delete", "diff": "gone\n"},
        {"path": "/u.py", "kind": {"type": "update", "move_path": "/v.py"}, "diff": "@@ -1,2 +1,2 @@\n keep\n-old\n+new\n@@ -9 +9 @@\n-x\n+y\n\\ No newline at end of file\n"},
        {"path": "/raw", "kind": "update", "diff": "not a unified diff"},
        {"path": "/exec-mode", "kind": "update"},
    ]}  # fmt: skip
    assert spec.kind == "edit" and spec.diff is patch_diffs
    assert patch_diffs(args) == [
        DiffSpec(path="/n.txt", new_text="alpha\nbeta\n", old_text=None),
        DiffSpec(path="/d.txt", new_text="", old_text="gone\n"),
        DiffSpec(path="/v.py", new_text="keep\nnew\n", old_text="keep\nold\n"),
        DiffSpec(path="/v.py", new_text="y\n", old_text="x\n"),
    ]  # "/raw" has no hunks: no diff rather than the patch text shown as the whole new file
    assert spec.render_title("apply_patch", args) == "Edit /n.txt, /d.txt, /v.py, /raw, /exec-mode"
    assert CODEX_TOOLS.lookup("shell").render_title("shell", {"command": "ls -la"}) == "ls -la"
    assert CODEX_TOOLS.lookup("shell").kind == "execute"
    assert CODEX_TOOLS.lookup("web_search").render_title("web_search", {"query": "acp"}) == "Search the web: acp"
    assert CODEX_TOOLS.lookup("mcp__gh__create_issue").kind == "other"


def test_mcp_web_search_image_and_compaction_items() -> None:
    mcp = {
        "type": "mcpToolCall",
        "id": "m1",
        "server": "gh",
        "tool": "issue",
        "arguments": {"n": 1},
        "status": "inProgress",
    }
    events = _turn(
        _n("item/started", item=mcp),
        _n(
            "item/completed",
            item={**mcp, "status": "completed", "result": {"content": [{"type": "text", "text": "ok"}]}},
        ),
        _n("item/completed", item={**mcp, "id": "m2", "status": "failed", "error": {"message": "denied"}}),
        _n("item/started", item={"type": "webSearch", "id": "w1", "query": "acp spec"}),
        _n(
            "item/completed",
            item={
                "type": "webSearch",
                "id": "w1",
                "query": "acp spec",
                "action": {"type": "search", "query": "acp spec"},
            },
        ),
        _n("item/completed", item={"type": "imageView", "id": "v1", "path": "/s.png"}),
        _n("item/completed", item={"type": "contextCompaction", "id": "k1"}),
    )
    assert brief(events) == [
        ("turn_start", 0),
        ("tool_call_start", "m1", "mcp__gh__issue"),
        ("tool_call_ready", "m1", {"n": 1}),
        ("mcp_tool_call_start", "m1", "gh", "issue"),
        ("tool_result", "m1", {"content": [{"type": "text", "text": "ok"}]}),
        ("mcp_tool_result", "m1", {"content": [{"type": "text", "text": "ok"}]}),
        ("tool_call_start", "m2", "mcp__gh__issue"),
        ("tool_call_ready", "m2", {"n": 1}),
        ("mcp_tool_call_start", "m2", "gh", "issue"),
        ("tool_error", "m2", "denied"),
        ("mcp_tool_error", "m2", "denied"),
        ("tool_call_start", "w1", "web_search"),
        ("tool_call_ready", "w1", {"query": "acp spec"}),
        ("tool_result", "w1", {"type": "search", "query": "acp spec"}),
        ("tool_call_start", "v1", "view_image"),
        ("tool_call_ready", "v1", {"path": "/s.png"}),
        ("tool_result", "v1", "/s.png"),
        ("file_read", "/s.png"),
        ("context_compacted",),
        ("turn_end", 0),
    ]


def test_other_threads_are_ignored() -> None:
    adapter, ctx, _ = _started()
    events = feed(adapter, [
        {"method": "turn/started", "params": {"threadId": "SUB", "turn": {"id": "X"}}},
        {"method": "item/agentMessage/delta", "params": {"threadId": "SUB", "itemId": "m", "delta": "sub-agent chatter"}},
    ], ctx)  # fmt: skip
    assert events == [] and CodexRun.of(ctx).turn is None


def test_process_exit_mid_turn_crashes_and_closes_tools() -> None:
    adapter, ctx, _ = _started()
    events = feed(adapter, [
        {"method": "turn/started", "params": {"threadId": "T1", "turn": {"id": "U1"}}},
        {"method": "item/started", "params": {"threadId": "T1", "item": {"type": "commandExecution", "id": "c1", "command": "x", "cwd": CWD}}},
    ], ctx, exit_code=137)  # fmt: skip
    assert brief(events)[-2:] == [("tool_error", "c1", "the agent exited"), ("crash",)]


# ── robustness ─────────────────────────────────────────────────────────────────────────────────────────────────
GARBAGE = [
    "",
    "not json at all",
    "{broken json",
    "[1, 2, 3]",
    '"a string"',
    "null",
    "{}",
    '{"method": 5}',
    '{"method": "item/started", "params": "oops"}',
    '{"method": "item/started", "params": {"item": "oops"}}',
    '{"method": "item/completed", "params": {"item": {"type": "commandExecution"}}}',
    '{"method": "item/completed", "params": {"item": {"type": "fileChange", "id": "z", "changes": "bad"}}}',
    '{"method": "turn/completed", "params": {"turn": null}}',
    '{"method": "turn/plan/updated", "params": {"plan": [1, null, {"step": 3}]}}',
    '{"method": "thread/tokenUsage/updated", "params": {"tokenUsage": {"last": "x", "modelContextWindow": 0}}}',
    '{"method": "error", "params": {"error": "x", "willRetry": true}}',
    '{"method": "item/commandExecution/requestApproval", "id": 1, "params": null}',
    '{"method": "execCommandApproval", "id": 2, "params": {"command": "not-a-list"}}',
    '{"method": "applyPatchApproval", "id": 3, "params": {"fileChanges": [1]}}',
    '{"method": "some/unknown", "params": {}}',
    '{"method": "some/unknown/request", "id": 9}',
    '{"id": 12345, "result": {}}',
    '{"id": 1, "error": "bad"}',
    '{"type": "item.completed", "item": null}',
    '{"type": "item.completed", "item": {"type": "todo_list", "items": "x"}}',
    '{"type": "turn.failed", "error": null}',
    '{"type": "turn.completed", "usage": "x"}',
    '{"type": "thread.started"}',
    "Reading additional input from stdin...",
]


@pytest.mark.parametrize("adapter_cls", [CodexAdapter, CodexExecAdapter])
def test_garbage_never_raises(adapter_cls) -> None:
    adapter, ctx = adapter_cls(), make_ctx("codex")
    adapter.start(options(), ctx)
    for line in GARBAGE:
        events = list(adapter.parse_line(line, ctx))
        assert all(isinstance(e, BaseEvent) for e in events)
    list(adapter.finish(ExitStatus(code=0, signal=None), ctx))


def test_capabilities_and_metadata() -> None:
    a = CodexAdapter()
    assert (a.name, a.binary, a.package, a.login_args) == ("codex", "codex", "@openai/codex", ("login",))
    caps = a.capabilities
    assert caps.persistent_process and caps.supports_images and caps.supports_mcp_http and not caps.supports_mcp_sse
    assert [m.id for m in a.modes] == ["ask", "read-only", "auto", "full-access"] and a.default_mode == "ask"
    assert "gpt-5.5" in a.models
    assert CodexExecAdapter().entry is a.entry  # both transports read codex's one registry row


# ── fresh recordings (tests/fixtures/codex/<name>.jsonl + <name>.stdin.jsonl, recorded by the capture script) ────
FRESH_DIR = FIXTURES / "codex"
FRESH = sorted(p for p in FRESH_DIR.glob("*.jsonl") if not p.name.endswith(".stdin.jsonl"))
needs_fresh = pytest.mark.skipif(not (FRESH_DIR / "manifest.json").exists(), reason="no fresh codex recordings yet")
FRESH_CWD = "/work/project"
TASK = "Create notes.txt containing alpha and beta, then change beta to gamma."
GAMMA = "Done: notes.txt now contains alpha and gamma."


def replay_fresh(name: str, *, interrupt_at: str | None = None) -> tuple[list[BaseEvent], list[dict], list[dict]]:
    """Replay ``<name>.jsonl`` (stdout) with the prompt/resume/approval answers its ``<name>.stdin.jsonl`` recorded.
    ``interrupt_at``: call interrupt() right after the first notification with that method. Returns events, what
    we sent, and what the recorder sent."""
    recorded = [json.loads(line) for line in (FRESH_DIR / f"{name}.stdin.jsonl").read_text().splitlines() if line]
    requests = {m["method"]: m for m in recorded if "method" in m}
    answers = {m["id"]: m["result"] for m in recorded if "result" in m}
    thread = requests.get("thread/resume", {}).get("params", {}).get("threadId")
    text = requests["turn/start"]["params"]["input"][0]["text"]
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex", cwd=FRESH_CWD)
    adapter.start(
        RunOptions(agent="codex", cwd=FRESH_CWD, prompt=Prompt.of_text(text), model="gpt-5.5", session_id=thread), ctx
    )
    out, events, interrupted = sent(ctx), [], False
    for line in (FRESH_DIR / f"{name}.jsonl").read_text().splitlines():
        msg = json.loads(line)
        events += adapter.parse_line(line, ctx)
        if "method" in msg and "id" in msg:  # a server request: answer as the recorder did
            iid = next(q.id for q in ctx.questions if q.agent is not None and q.agent.request_id == msg["id"])
            approve, always = _DECISIONS.get(answers[msg["id"]]["decision"], (False, False))
            adapter.respond_approval(iid, ApprovalDecision(approve=approve, always=always), ctx)
        if interrupt_at is not None and interrupt_at == msg.get("method") and not interrupted:
            interrupted = adapter.interrupt(ctx)
        out += sent(ctx)
    assert_ordering(events)
    return events, conversation(out), recorded


def _thread(recorded: list[dict]) -> str:
    """The thread id of a recording (re-recording changes it, so tests read it instead of hardcoding it)."""
    return next(m["params"]["threadId"] for m in recorded if m.get("method") == "turn/start")


def _same_wire(ours: list[dict], recorded: list[dict]) -> None:
    """Same requests (ids and methods) in the same order; approval answers and interrupts byte for byte."""
    assert [(m.get("id"), m.get("method")) for m in ours] == [(m.get("id"), m.get("method")) for m in recorded]
    for mine, theirs in zip(ours, recorded):
        if "result" in theirs or theirs.get("method") == "turn/interrupt":
            assert {k: v for k, v in mine.items() if k != "jsonrpc"} == theirs


PATCH_UPDATE = "@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n"
NOTES = f"{FRESH_CWD}/notes.txt"
FRESH_THINK = [
    ("thinking_start",),
    ("thinking_delta", "First look around with"),
    ("thinking_delta", " a harmless command, t"),
    ("thinking_delta", "hen write notes.txt."),
    ("thinking_stop", "First look around with a harmless command, then write notes.txt."),
]
FRESH_ECHO = "/bin/bash -lc 'echo hello-from-codex'"


def _fresh_shell() -> list[tuple]:
    return [
        ("tool_call_start", "call_fake_0_2", "shell"),
        ("tool_call_ready", "call_fake_0_2", {"command": FRESH_ECHO, "cwd": FRESH_CWD}),
        ("approval_request", "codex-approval-0", "call_fake_0_2"),
    ]


def _fresh_add() -> list[tuple]:
    return [
        ("tool_call_start", "call_fake_1_1", "apply_patch"),
        ("tool_call_ready", "call_fake_1_1", {"changes": [{"path": NOTES, "kind": "add", "diff": "alpha\nbeta\n"}]}),
        ("approval_request", "codex-approval-1", "call_fake_1_1"),
    ]


@needs_fresh
def test_fresh_write_edit_allow() -> None:
    events, out, recorded = replay_fresh("write_edit_allow")
    update = {"changes": [{"path": NOTES, "kind": "update", "diff": PATCH_UPDATE}]}
    assert brief(events) == [
        ("debug",),
        ("session_start", _thread(recorded), False),
        ("turn_start", 0),
        *FRESH_THINK,
        *message("Let me che", "ck the she", "ll works."),
        *_fresh_shell(),
        ("shell_start", FRESH_ECHO, FRESH_CWD),
        ("shell_stdout_delta", "hello-from-codex\n"),
        ("shell_exit", 0),
        ("tool_result", "call_fake_0_2", "hello-from-codex\n"),
        ("token_usage", 120, 30),
        *message("Creating n", "otes.txt."),
        *_fresh_add(),
        ("tool_result", "call_fake_1_1", f"added {NOTES}"),
        ("file_create", NOTES, 11),
        ("token_usage", 120, 30),
        ("tool_call_start", "call_fake_2_0", "apply_patch"),
        ("tool_call_ready", "call_fake_2_0", update),
        ("approval_request", "codex-approval-2", "call_fake_2_0"),
        ("tool_result", "call_fake_2_0", f"updated {NOTES}"),
        ("file_patch", NOTES, PATCH_UPDATE),
        ("token_usage", 120, 30),
        *message("Done: notes.", "txt now cont", "ains alpha a", "nd gamma."),
        ("token_usage", 120, 30),
        ("turn_end", 0),
    ]
    _same_wire(out, recorded)
    assert patch_diffs(update) == [DiffSpec(path=NOTES, new_text="alpha\ngamma\n", old_text="alpha\nbeta\n")]


@needs_fresh
def test_fresh_write_edit_deny() -> None:
    events, out, recorded = replay_fresh("write_edit_deny")
    assert brief(events) == [
        ("debug",),
        ("session_start", _thread(recorded), False),
        ("turn_start", 0),
        *FRESH_THINK,
        *message("Let me che", "ck the she", "ll works."),
        *_fresh_shell(),
        ("tool_error", "call_fake_0_2", "declined by user"),
        ("token_usage", 120, 30),
        *message("Creating n", "otes.txt."),
        *_fresh_add(),
        ("tool_error", "call_fake_1_1", "declined by user"),
        ("token_usage", 120, 30),
        ("token_usage", 120, 30),
        *message("Done: notes.", "txt now cont", "ains alpha a", "nd gamma."),
        ("token_usage", 120, 30),
        ("turn_end", 0),
    ]
    _same_wire(out, recorded)


@needs_fresh
def test_fresh_cancel_sends_the_recorded_turn_interrupt() -> None:
    events, out, recorded = replay_fresh("cancel", interrupt_at="item/agentMessage/delta")
    line = "Line 001 of a long streamed answer.\n"
    assert brief(events) == [
        ("debug",),
        ("session_start", _thread(recorded), False),
        ("turn_start", 0),
        *message(line),
        ("interrupted",),
        ("turn_end", 0),
    ]
    _same_wire(out, recorded)  # includes {"id": 4, "method": "turn/interrupt", "params": {threadId, turnId}}


@needs_fresh
def test_fresh_resume_does_not_recount_restored_usage() -> None:
    events, out, recorded = replay_fresh("resume")
    assert brief(events) == [
        ("debug",),  # configWarning
        ("debug",),  # deprecationNotice about full-history hydration on thread/resume
        ("session_start", _thread(recorded), True),
        ("turn_start", 0),
        *message("Done: notes.", "txt now cont", "ains alpha a", "nd gamma."),
        ("token_usage", 120, 30),  # the restored 600-token total before the turn is not spent again
        ("turn_end", 0),
    ]
    _same_wire(out, recorded)
    assert out[2]["params"]["threadId"] == recorded[2]["params"]["threadId"]
    first, _, _ = replay_fresh("resume.first")
    assert first[1].session_id == _thread(recorded) and types(first)[-1] == "turn_end"  # the thread resumed above


@needs_fresh
def test_fresh_auth_error() -> None:
    events, out, recorded = replay_fresh("auth_error")
    msg = "unexpected status 401 Unauthorized: Incorrect API key provided: sk-fake., url: http://127.0.0.1:PORT/v1/responses"
    assert brief(events) == [
        ("debug",),
        ("session_start", _thread(recorded), False),
        ("turn_start", 0),
        ("auth_error", msg),  # terminal: the error notification and turn/completed{failed} give one event
    ]
    assert events[-1].guidance == AUTH_GUIDANCE
    _same_wire(out, recorded)


@needs_fresh
def test_fresh_rate_limit() -> None:
    events, out, recorded = replay_fresh("rate_limit")
    assert brief(events) == [
        ("debug",),
        ("session_start", _thread(recorded), False),
        ("turn_start", 0),
        ("rate_limit_error", "exceeded retry limit, last status: 429 Too Many Requests"),
        ("turn_end", 0),  # recoverable: the thread takes the next prompt
    ]
    _same_wire(out, recorded)


@needs_fresh
def test_fresh_long_text_streams_every_delta() -> None:
    events, out, recorded = replay_fresh("text")
    deltas = [e.delta for e in events if e.type == "text_delta"]
    assert len(deltas) == 200 and deltas[0] == "Line 001 of a long streamed answer.\n"
    stop = next(e for e in events if e.type == "message_stop")
    assert stop.text == "".join(deltas) and stop.text.endswith("Line 200 of a long streamed answer.\n")
    assert types(events)[:3] == ["debug", "session_start", "turn_start"] and types(events)[-2:] == [
        "token_usage",
        "turn_end",
    ]
    _same_wire(out, recorded)


@pytest.mark.skipif(not FRESH, reason="no fresh codex recordings in tests/fixtures/codex yet")
@pytest.mark.parametrize("path", FRESH, ids=[p.name for p in FRESH])
def test_every_fresh_recording_replays_cleanly(path: Path) -> None:
    """Any recording the capture script adds later is at least parsed cleanly and in contract order."""
    name = path.name.removesuffix(".jsonl")
    if (FRESH_DIR / f"{name}.stdin.jsonl").exists():
        events, _, _ = replay_fresh(name)
    else:
        events = feed(CodexExecAdapter(), path.read_text().splitlines())
        assert_ordering(events)
    assert events, "a recording should produce events"
    assert not [e for e in events if e.type == "debug" and "could not handle" in e.message]


# ── faults (class 9 of the hardening issue), shapes as the real codex 0.169.0 sends them ─────────────────────────
def test_a_retried_stream_closes_the_partial_text_and_names_the_real_reason() -> None:
    """codex never completes the failed attempt's message item and starts a new one for the retry."""

    def delta(item: str, text: str) -> dict[str, object]:
        return {
            "method": "item/agentMessage/delta",
            "params": {"threadId": "T1", "turnId": "U1", "itemId": item, "delta": text},
        }

    retry = {
        "method": "error",
        "params": {
            "threadId": "T1",
            "turnId": "U1",
            "willRetry": True,
            "error": {
                "message": "Reconnecting... 1/2",
                "codexErrorInfo": {"responseStreamDisconnected": {"httpStatusCode": None}},
                "additionalDetails": "stream disconnected before completion: stream closed before response.completed",
            },
        },
    }
    done = {
        "method": "item/completed",
        "params": {"threadId": "T1", "item": {"type": "agentMessage", "id": "msg_1", "text": "Alpha one. Alpha two."}},
    }
    events = _turn(
        delta("msg_0", "Alpha one. "), retry, delta("msg_1", "Alpha one. "), delta("msg_1", "Alpha two."), done
    )
    stops = [e.text for e in events if e.type == "message_stop"]
    assert stops == ["Alpha one. ", "Alpha one. Alpha two."]  # two blocks, never "Alpha one. Alpha one. Alpha two."
    retry_event = next(e for e in events if e.type == "retry")
    assert (retry_event.attempt, retry_event.max_attempts) == (1, 2)
    assert retry_event.reason == "stream disconnected before completion: stream closed before response.completed"


def test_a_retry_without_details_says_what_kind_of_failure() -> None:
    retry = {
        "method": "error",
        "params": {
            "threadId": "T1",
            "turnId": "U1",
            "willRetry": True,
            "error": {
                "message": "Reconnecting... 2/5",
                "codexErrorInfo": {"responseStreamConnectionFailed": {"httpStatusCode": 502}},
            },
        },
    }
    assert next(e for e in _turn(retry) if e.type == "retry").reason == "response stream connection failed (HTTP 502)"


def test_a_prompt_cancelled_before_the_thread_exists_ends_its_turn_when_it_does() -> None:
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex")
    adapter.start(options(), ctx)  # the prompt waits for the handshake
    sent(ctx)
    assert adapter.interrupt(ctx)
    events = feed(adapter, [{"id": 1, "result": {"userAgent": "x"}}], ctx)
    sent(ctx)
    events += feed(adapter, [{"id": 2, "result": {"thread": {"id": "T1"}}}], ctx)
    assert [m for m in sent(ctx) if m.get("method") == "turn/start"] == []  # the cancelled prompt never starts
    assert types(events) == ["session_start", "turn_start", "turn_end"]


def test_a_thread_codex_has_no_rollout_for_is_started_afresh() -> None:
    """A thread stopped before its first turn was written cannot be resumed: every later prompt used to fail."""
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex")
    adapter.start(options(session_id="OLD"), ctx)
    sent(ctx)
    feed(adapter, [{"id": 1, "result": {"userAgent": "x"}}], ctx)
    resume = [m for m in sent(ctx) if m.get("method") == "thread/resume"][0]
    error = {"code": -32600, "message": "no rollout found for thread id OLD"}
    events = feed(adapter, [{"id": resume["id"], "error": error}], ctx)
    assert [e.type for e in events] == ["debug"] and "OLD" in events[0].message
    start = [m for m in sent(ctx) if m.get("method") == "thread/start"][0]
    assert "threadId" not in start["params"] and start["params"]["cwd"] == CWD
    events = feed(adapter, [{"id": start["id"], "result": {"thread": {"id": "NEW"}}}], ctx)
    assert brief(events)[0][0] == "session_start" and events[0].session_id == "NEW"
    assert [m["method"] for m in sent(ctx)] == ["turn/start"]  # the prompt runs in the new thread


@pytest.mark.parametrize(
    "request_line",
    [
        {
            "method": "item/commandExecution/requestApproval",
            "id": 41,
            "params": {"threadId": "T1", "itemId": "c", "command": ["ls", 3]},
        },
        {"method": "item/commandExecution/requestApproval", "id": 42, "params": ["not", "an", "object"]},
        {"method": "item/fileChange/requestApproval", "id": 43, "params": "x"},
    ],
)
def test_a_request_codex_sends_that_cannot_be_handled_is_answered_at_once(request_line: dict[str, Any]) -> None:
    adapter, ctx, _ = _started()
    sent(ctx)
    feed(adapter, [request_line], ctx)
    answers = [m for m in sent(ctx) if m.get("id") == request_line["id"]]
    assert len(answers) == 1 and "error" in answers[0]

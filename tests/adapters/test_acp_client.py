"""The ACP-client family over ACP traffic shaped like the real captures (gemini --acp, ../shared/captures): the
handshake, updates → events with display hints, permissions (announced first, mapped onto the agent's option ids,
"always" never forwarded), cancel, client requests (relayed or confined to the cwd), errors typed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_mux.adapters.acp_agents.acp_client import choose_option, local_read, rule_input, session_options
from acp_mux.adapters.acp_agents.gemini import GeminiAdapter
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import ExitStatus
from acp_mux.core.run.prompt import Prompt
from acp_mux.translation.updates import UpdateTranslator
from tests.adapters.helpers import AsTheRunDrives, assert_ordering, sent, types

SID = "257a8a7b-3f7f-4366-9990-a10b42267c22"
GEMINI_OPTIONS = [
    {"optionId": "proceed_always", "name": "Allow for this session", "kind": "allow_always"},
    {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "cancel", "name": "Reject", "kind": "reject_once"},
]


def line(obj: dict[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", **obj})


def update(update_kind: str, **fields: Any) -> str:
    return line(
        {"method": "session/update", "params": {"sessionId": SID, "update": {"sessionUpdate": update_kind, **fields}}}
    )


class Agent:
    """One run of the gemini adapter: feed it lines, read what it sent."""

    def __init__(
        self,
        cwd: str,
        *,
        prompt: str | None = "hi",
        client_capabilities: dict[str, Any] | None = None,
        session_id: str | None = None,
        load: bool = True,
    ) -> None:
        self.adapter = AsTheRunDrives(GeminiAdapter())
        self.ctx = ParseContext(run_id="r1", agent="gemini", cwd=cwd)
        self.options = RunOptions(
            agent="gemini",
            cwd=cwd,
            prompt=Prompt.of_text(prompt) if prompt else None,
            client_capabilities=client_capabilities or {},
            session_id=session_id,
            mode="default",
        )
        self.events: list[Any] = []
        self.adapter.start(self.options, self.ctx)
        self.feed(line({"id": 1, "result": {"protocolVersion": 1, "agentCapabilities": {"loadSession": load}}}))

    def feed(self, *lines: str) -> list[Any]:
        out: list[Any] = []
        for text in lines:
            out += list(self.adapter.parse_line(text, self.ctx))
        self.events += out
        return out

    def sent(self) -> list[dict[str, Any]]:
        return sent(self.ctx)

    def open_session(self) -> list[Any]:
        return self.feed(
            line(
                {
                    "id": 2,
                    "result": {
                        "sessionId": SID,
                        "modes": {
                            "currentModeId": "default",
                            "availableModes": [
                                {"id": "default", "name": "Default"},
                                {"id": "autoEdit", "name": "Auto Edit"},
                                {"id": "yolo", "name": "YOLO"},
                            ],
                        },
                        "models": {
                            "currentModelId": "gemini-2.5-pro",
                            "availableModels": [{"modelId": "gemini-2.5-pro", "name": "2.5 Pro"}],
                        },
                    },
                }
            )
        )


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    return Agent(str(tmp_path))


def test_handshake_offers_only_what_the_editor_has_then_opens_a_session_and_prompts(tmp_path: Path) -> None:
    agent = Agent(str(tmp_path), client_capabilities={"fs": {"readTextFile": True}})
    init, new = agent.sent()
    assert init["method"] == "initialize"
    assert init["params"]["clientCapabilities"] == {
        "fs": {"readTextFile": True, "writeTextFile": False},
        "terminal": False,
    }
    assert new["method"] == "session/new" and new["params"]["cwd"] == str(tmp_path)
    events = agent.open_session()
    assert types(events) == ["session_start", "session_options"]
    options = events[1]
    assert [m.id for m in options.modes] == [
        "default",
        "autoEdit",
        "yolo",
    ] and options.current_model == "gemini-2.5-pro"
    (prompt,) = agent.sent()
    assert prompt["method"] == "session/prompt" and prompt["params"] == {
        "sessionId": SID,
        "prompt": [{"type": "text", "text": "hi"}],
    }


def test_the_editors_mcp_servers_reach_the_agents_session(tmp_path: Path) -> None:
    server = {
        "name": "files",
        "command": "/usr/bin/mcp-files",
        "args": ["--root", "/p"],
        "env": [{"name": "TOKEN", "value": "s3cret"}],
    }
    agent = Agent(str(tmp_path), prompt=None)
    agent.options.mcp_servers = [server]
    agent.ctx.take_outbox()
    agent.adapter.start(agent.options, agent.ctx)  # a fresh start with the servers set
    agent.feed(line({"id": 1, "result": {"protocolVersion": 1, "agentCapabilities": {}}}))
    new = [m for m in agent.sent() if m.get("method") == "session/new"][-1]
    assert new["params"]["mcpServers"] == [server]  # over the agent's stdin, never on its command line
    assert "s3cret" not in " ".join(agent.adapter.build_spawn(agent.options).args)


def test_a_prompt_sent_before_the_session_is_ready_waits_for_it(tmp_path: Path) -> None:
    agent = Agent(str(tmp_path), prompt=None)
    agent.sent()
    agent.adapter.send_prompt(Prompt.of_text("first"), agent.ctx)
    assert agent.sent() == []
    agent.open_session()
    assert [m["method"] for m in agent.sent()] == ["session/prompt"]


def test_a_native_session_is_loaded_and_its_replay_is_not_shown_again(tmp_path: Path) -> None:
    agent = Agent(str(tmp_path), session_id=SID)
    init, load = agent.sent()
    assert load["method"] == "session/load" and load["params"]["sessionId"] == SID
    assert agent.feed(update("agent_message_chunk", content={"type": "text", "text": "old answer"})) == []
    events = agent.feed(line({"id": 2, "result": {}}))
    assert types(events) == ["session_start"] and events[0].resumed and events[0].session_id == SID


def test_a_session_the_agent_cannot_reopen_becomes_a_new_one_and_says_so(tmp_path: Path) -> None:
    agent = Agent(str(tmp_path), session_id="gone")
    agent.sent()
    events = agent.feed(line({"id": 2, "error": {"code": -32002, "message": "session not found"}}))
    assert "could not resume" in "".join(e.delta for e in events if e.type == "text_delta")
    (new,) = agent.sent()
    assert new["method"] == "session/new"


def test_text_thoughts_tools_with_their_own_display_and_the_end_of_the_turn(agent: Agent, tmp_path: Path) -> None:
    agent.open_session()
    path = str(tmp_path / "note.txt")
    events = agent.feed(
        update("agent_thought_chunk", content={"type": "text", "text": "thinking"}),
        update("agent_message_chunk", content={"type": "text", "text": "Writing."}),
        update(
            "tool_call",
            toolCallId="write_file__write_file_1_0",
            status="in_progress",
            title="Writing to note.txt",
            kind="edit",
            locations=[{"path": path}],
            content=[{"type": "diff", "path": path, "oldText": "", "newText": "alpha\n"}],
        ),
        update("tool_call_update", toolCallId="write_file__write_file_1_0", status="completed"),
        update("plan", entries=[{"content": "edit", "status": "in_progress", "priority": "high"}]),
        update("available_commands_update", availableCommands=[{"name": "memory", "description": "Manage memory"}]),
        update("current_mode_update", currentModeId="autoEdit"),
        line({"id": 3, "result": {"stopReason": "end_turn"}}),
    )
    assert_ordering(events)
    start = next(e for e in events if e.type == "tool_call_start")
    assert (
        start.tool_name == "write_file"
        and start.display.kind == "edit"
        and start.display.diffs[0].new_text == "alpha\n"
    )
    assert {"plan_update", "commands_update", "mode_change", "tool_update", "tool_result", "turn_end"} <= set(
        types(events)
    )

    translator = UpdateTranslator(agent.adapter.tool_table, str(tmp_path))
    shown = [u for e in events for u in translator.translate(e)]
    call = next(u for u in shown if u["sessionUpdate"] == "tool_call")
    assert call["kind"] == "edit" and call["title"] == "Writing to note.txt"
    assert call["locations"] == [{"path": path}]
    assert call["content"] == [{"type": "diff", "path": path, "oldText": "", "newText": "alpha\n"}]
    assert [u["status"] for u in shown if u.get("toolCallId") == "write_file__write_file_1_0" and "status" in u] == [
        "pending",
        "in_progress",
        "completed",
    ]
    assert any(u["sessionUpdate"] == "plan" for u in shown)


def test_the_stray_mode_marker_is_a_mode_change_and_never_reaches_the_conversation(agent: Agent) -> None:
    agent.open_session()
    events = agent.feed(
        update("agent_message_chunk", content={"type": "text", "text": "[MODE_UPDATE] autoEdit\n"}),
        update("agent_message_chunk", content={"type": "text", "text": "Done."}),
    )
    assert "".join(e.delta for e in events if e.type == "text_delta") == "Done."
    assert [e.mode_id for e in events if e.type == "mode_change"] == ["autoEdit"]


def test_a_permission_before_its_tool_call_announces_the_call_first(agent: Agent, tmp_path: Path) -> None:
    agent.open_session()
    agent.sent()
    path = str(tmp_path / "a.py")
    events = agent.feed(
        line(
            {
                "id": 0,
                "method": "session/request_permission",
                "params": {
                    "sessionId": SID,
                    "options": GEMINI_OPTIONS,
                    "toolCall": {
                        "toolCallId": "replace__replace_2_0",
                        "title": "a.py: x => y",
                        "kind": "edit",
                        "locations": [{"path": path}],
                        "content": [{"type": "diff", "path": path, "oldText": "x", "newText": "y"}],
                    },
                },
            }
        )
    )
    assert types(events)[:3] == ["turn_start", "tool_call_start", "tool_call_ready"]
    request = events[-1]
    assert request.type == "approval_request" and request.tool_call_id == "replace__replace_2_0"
    assert request.tool_name == "replace" and request.input == {"path": path}


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        (ApprovalDecision(approve=True), {"outcome": "selected", "optionId": "proceed_once"}),
        # "always" is the bridge's rule: the agent hears a one-time allow, so its own "always" never widens it
        (ApprovalDecision(approve=True, always=True), {"outcome": "selected", "optionId": "proceed_once"}),
        (ApprovalDecision(approve=False), {"outcome": "selected", "optionId": "cancel"}),
        (ApprovalDecision(approve=False, always=True), {"outcome": "selected", "optionId": "cancel"}),
    ],
)
def test_answers_map_onto_the_agents_own_option_ids(
    agent: Agent, decision: ApprovalDecision, expected: dict[str, Any]
) -> None:
    agent.open_session()
    agent.sent()
    (request,) = [
        e
        for e in agent.feed(
            line(
                {
                    "id": "p-7",
                    "method": "session/request_permission",
                    "params": {
                        "sessionId": SID,
                        "options": GEMINI_OPTIONS,
                        "toolCall": {"toolCallId": "t1", "kind": "execute", "title": "rm -rf build"},
                    },
                }
            )
        )
        if e.type == "approval_request"
    ]
    assert request.input == {"command": "rm -rf build"}
    agent.adapter.respond_approval(request.interaction_id, decision, agent.ctx)
    (answer,) = agent.sent()
    assert answer == {"jsonrpc": "2.0", "id": "p-7", "result": {"outcome": expected}}


def test_an_agent_that_offers_no_reject_hears_cancelled_never_an_allow() -> None:
    only_allow = [{"optionId": "ok", "name": "OK", "kind": "allow_once"}]
    assert choose_option(only_allow, "reject") is None
    assert choose_option(GEMINI_OPTIONS, "allow") == "proceed_once"
    assert choose_option([{"optionId": "always", "kind": "allow_always"}], "allow") == "always"


def test_cancel_answers_open_questions_cancelled_and_the_turn_ends_cancelled(agent: Agent) -> None:
    agent.open_session()
    agent.sent()
    agent.feed(
        line(
            {
                "id": 5,
                "method": "session/request_permission",
                "params": {
                    "sessionId": SID,
                    "options": GEMINI_OPTIONS,
                    "toolCall": {"toolCallId": "t1", "kind": "edit"},
                },
            }
        )
    )
    assert agent.adapter.interrupt(agent.ctx)
    answer, cancel = agent.sent()
    assert answer["id"] == 5 and answer["result"] == {"outcome": {"outcome": "cancelled"}}
    assert cancel == {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SID}}
    events = agent.feed(line({"id": 3, "result": {"stopReason": "cancelled"}}))
    assert types(events)[-2:] == ["interrupted", "turn_end"]
    assert any(e.type == "tool_error" for e in events)  # the call the turn left open ends failed


def test_auth_and_rate_limit_failures_are_typed_never_end_turn(agent: Agent) -> None:
    agent.open_session()
    events = agent.feed(
        line(
            {
                "id": 3,
                "error": {"code": -32603, "message": "Internal error", "data": "[API Error: 429 Too Many Requests]"},
            }
        )
    )
    assert "rate_limit_error" in types(events) and types(events)[-1] == "turn_end"
    agent.adapter.send_prompt(Prompt.of_text("again"), agent.ctx)
    events = agent.feed(line({"id": 4, "error": {"code": -32000, "message": "Authentication required"}}))
    assert types(events)[-1] == "auth_error"


def test_fs_requests_are_relayed_when_the_editor_offers_them(tmp_path: Path) -> None:
    agent = Agent(str(tmp_path), client_capabilities={"fs": {"readTextFile": True, "writeTextFile": True}})
    agent.open_session()
    agent.sent()
    (event,) = agent.feed(
        line({"id": 9, "method": "fs/read_text_file", "params": {"sessionId": SID, "path": "/x/a.py"}})
    )
    assert (
        event.type == "client_request" and event.method == "fs/read_text_file" and event.params == {"path": "/x/a.py"}
    )
    agent.adapter.respond_client_request(event.request_id, {"content": "hello"}, None, agent.ctx)
    assert agent.sent() == [{"jsonrpc": "2.0", "id": 9, "result": {"content": "hello"}}]


def test_without_editor_fs_the_bridge_answers_inside_the_cwd_only(agent: Agent, tmp_path: Path) -> None:
    agent.open_session()
    agent.sent()
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    agent.feed(
        line(
            {
                "id": 1001,
                "method": "fs/read_text_file",
                "params": {"sessionId": SID, "path": str(tmp_path / "a.txt"), "line": 2, "limit": 1},
            }
        ),
        line({"id": 1002, "method": "fs/read_text_file", "params": {"sessionId": SID, "path": "/etc/passwd"}}),
        line(
            {
                "id": 1003,
                "method": "fs/write_text_file",
                "params": {"sessionId": SID, "path": str(tmp_path / "new/b.txt"), "content": "b"},
            }
        ),
        line({"id": 1004, "method": "terminal/create", "params": {"sessionId": SID, "command": "ls"}}),
        line(
            {
                "id": 1005,
                "method": "fs/read_text_file",
                "params": {"sessionId": SID, "path": str(tmp_path / "missing.txt")},
            }
        ),
    )
    answers = {m["id"]: m for m in agent.sent()}
    assert answers[1001]["result"] == {"content": "two\n"}
    assert "outside" in answers[1002]["error"]["message"]
    assert answers[1003]["result"] == {} and (tmp_path / "new" / "b.txt").read_text() == "b"
    assert answers[1004]["error"]["code"] == -32601
    assert answers[1005]["result"] == {"content": ""}


def test_a_symlink_out_of_the_cwd_is_outside(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to("/etc")
    with pytest.raises(PermissionError):
        local_read({"path": str(tmp_path / "link" / "passwd")}, str(tmp_path))


def test_unknown_requests_and_junk_are_answered_or_ignored_never_raised(agent: Agent) -> None:
    agent.open_session()
    agent.sent()
    assert (
        agent.feed(
            "not json",
            "[1,2]",
            line({"id": 44, "method": "x/unknown"}),
            line({"method": "session/update", "params": "junk"}),
        )
        == []
    )
    (answer,) = agent.sent()
    assert answer["id"] == 44 and answer["error"]["code"] == -32601


def test_an_exit_mid_prompt_is_a_crash_not_a_silent_end(agent: Agent) -> None:
    agent.open_session()
    agent.feed(update("agent_message_chunk", content={"type": "text", "text": "partial"}))
    events = list(agent.adapter.finish(ExitStatus(code=1, signal=None), agent.ctx))
    assert types(events)[-1] == "crash"


def test_config_options_of_category_mode_and_model_fill_modes_and_models() -> None:
    event = session_options(
        None,
        None,
        [
            {
                "id": "m",
                "name": "Mode",
                "category": "mode",
                "type": "select",
                "currentValue": "ask",
                "options": [{"value": "ask", "name": "Ask"}],
            },
            {
                "id": "effort",
                "name": "Effort",
                "type": "select",
                "currentValue": "low",
                "options": [{"value": "low", "name": "Low"}],
            },
        ],
    )
    assert [m.id for m in event.modes] == ["ask"] and event.current_mode == "ask"
    assert [o["id"] for o in event.config_options] == ["effort"]


def test_rule_input_names_the_path_of_an_edit_from_its_diff() -> None:
    call = {"kind": "edit", "content": [{"type": "diff", "path": "/p/a.py", "newText": "x"}]}
    assert rule_input(call) == {"path": "/p/a.py"}


def _forking(cwd: str, capabilities: dict[str, Any]) -> tuple[Any, ParseContext, list[Any]]:
    """A run asked to fork the agent's session SID (RunOptions.fork_session), after the agent's initialize."""
    adapter = AsTheRunDrives(GeminiAdapter())
    ctx = ParseContext(run_id="r1", agent="gemini", cwd=cwd)
    options = RunOptions(agent="gemini", cwd=cwd, prompt=None, session_id=SID, fork_session=True)
    adapter.start(options, ctx)
    sent(ctx)
    initialized = {"id": 1, "result": {"protocolVersion": 1, "agentCapabilities": capabilities}}
    return adapter, ctx, list(adapter.parse_line(line(initialized), ctx))


def test_a_fork_is_forwarded_to_an_agent_that_offers_it_and_the_new_session_is_the_runs(tmp_path: Path) -> None:
    adapter, ctx, opened = _forking(
        str(tmp_path), {"loadSession": True, "sessionCapabilities": {"fork": {}, "resume": {}}}
    )
    assert opened == []
    (fork,) = sent(ctx)
    assert fork["method"] == "session/fork" and fork["params"]["sessionId"] == SID
    assert list(adapter.parse_line(update("agent_message_chunk", content={"type": "text", "text": "old"}), ctx)) == []
    events = list(adapter.parse_line(line({"id": 2, "result": {"sessionId": "forked-1"}}), ctx))
    assert types(events) == ["session_start"] and events[0].session_id == "forked-1" and not events[0].resumed


@pytest.mark.parametrize(
    "capabilities, answer",
    [
        ({"loadSession": True, "sessionCapabilities": {"resume": {}}}, None),  # no fork offered: never sent
        ({"sessionCapabilities": {"fork": {}}}, {"id": 2, "error": {"code": -32603, "message": "cannot fork"}}),
    ],
)
def test_a_fork_the_agent_cannot_make_fails_the_run_never_a_fresh_session(
    tmp_path: Path, capabilities: dict[str, Any], answer: dict[str, Any] | None
) -> None:
    adapter, ctx, events = _forking(str(tmp_path), capabilities)
    if answer is not None:
        assert events == []
        events = list(adapter.parse_line(line(answer), ctx))
    methods = [m["method"] for m in sent(ctx)]
    assert "session/new" not in methods and "session/load" not in methods and "session/resume" not in methods
    if answer is None:
        assert methods == []  # refused before asking
    else:
        assert types(events) and types(events)[-1] == "error"

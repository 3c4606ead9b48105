"""A subagent's own tool calls and permission questions name the real call: its kind, title, path and diff.

Recorded through acp-mux with the real pinned CLIs against the scripted model (``tests/fakes/scenarios``
``claude_subagent`` and ``codex_subagent``, the subagent's first step a file write), each run twice:

* ``subagent_write``: every tool call id unique, as the real model APIs give them;
* ``subagent_write_same_id``: the subagent's write carries the id of the call that started it (claude's Agent call
  ``toolu_fake_0_1``, codex's ``spawn_agent`` call ``call_same``), as a model endpoint that numbers calls per
  conversation gives them. Before the fix the subagent's write was never shown and its question was asked about
  the Agent/spawn call (kind ``think``, content "Subagent here.", no path, no diff), in the parent session;
* ``subagents_two_writes_same_id`` (claude): two subagents started in one message, both writes under that id.

claude 2.1.332 lines: ``tests/fixtures/claude/2.1.332/subagent_write*.jsonl``; codex 0.169.0 app-server:
``tests/fixtures/codex/subagent_write*.jsonl`` (what acp-mux wrote to each: the ``.stdin.jsonl`` beside them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_mux.adapters.rpc_agents.codex import CodexAdapter
from acp_mux.adapters.stream_agents.claude import ClaudeAdapter
from acp_mux.core.events import union as ev
from acp_mux.core.events.union import BaseEvent
from acp_mux.translation.child_sessions import ChildSessions, child_session_id
from acp_mux.translation.updates import PARENT_META, UpdateTranslator
from tests.adapters.helpers import FIXTURES, capture_lines, feed, make_ctx
from tests.adapters.test_codex import replay_fresh
from tests.translation.helpers import acp_valid

CLAUDE_CWD = "/tmp/sacap/run/project"  # where the claude recordings ran (paths made canonical)
CODEX_CWD = "/work/project"  # where the codex recordings ran, as ``replay_fresh`` replays them
PARENT = "sess-1"
WRITTEN = "made by the subagent\n"


def claude_events(name: str) -> list[BaseEvent]:
    lines = capture_lines(FIXTURES / "claude" / "2.1.332" / f"{name}.jsonl")
    return feed(ClaudeAdapter(), lines, make_ctx("claude", CLAUDE_CWD), exit_code=0)


def codex_events(name: str) -> list[BaseEvent]:
    return replay_fresh(name)[0]


def asked(events: list[BaseEvent], table: Any, cwd: str) -> tuple[ev.ApprovalRequestEvent, dict[str, Any], str]:
    """The one permission question of a run as the editor is asked it: the approval event, the ``toolCall`` of
    ``session/request_permission`` and, for an editor that declared ``subagents``, the session it is asked in.
    The translator and the child sessions see every update before the question, as a live session's do."""
    translator, children = UpdateTranslator(table, cwd), ChildSessions(PARENT, cwd, True)
    for event in events:
        if isinstance(event, ev.ApprovalRequestEvent):
            assert event.tool_call_id is not None
            tool_call = translator.permission_call(event.tool_call_id)
            return event, tool_call, children.session_of(event.tool_call_id)
        for update in translator.translate(event):
            children.route(update)  # type: ignore[arg-type]
    raise AssertionError("no question in the run")


def spawn_of(events: list[BaseEvent]) -> str:
    return next(e.subagent_id for e in events if isinstance(e, ev.SubagentSpawnEvent))


def spawn_and_write(events: list[BaseEvent], tool: str) -> tuple[str, ev.ToolCallStartEvent]:
    """The call that started the subagent, and the subagent's one ``tool`` call: a call of its own (never the
    starting call, whatever id the model gave it), linked to the starting call."""
    spawn, (write,) = spawn_of(events), calls(events, tool)
    assert write.tool_call_id != spawn and write.parent_tool_call_id == spawn
    return spawn, write


def asked_about_the_write(
    events: list[BaseEvent], tool: str, table: Any, cwd: str
) -> tuple[str, ev.ToolCallStartEvent, ev.ApprovalRequestEvent, dict[str, Any]]:
    """The subagent's one ``tool`` call (:func:`spawn_and_write`) and the run's one question: about that call as
    the editor sees it (an edit, valid ACP), asked in the subagent's child session."""
    spawn, write = spawn_and_write(events, tool)
    question, tool_call, session = asked(events, table, cwd)
    assert question.tool_call_id == tool_call["toolCallId"] == write.tool_call_id and tool_call["kind"] == "edit"
    acp_valid([{"sessionUpdate": "tool_call_update", **tool_call}])
    assert session == child_session_id(PARENT, spawn)  # asked in the subagent's child session
    return spawn, write, question, tool_call


def calls(events: list[BaseEvent], name: str) -> list[ev.ToolCallStartEvent]:
    return [e for e in events if isinstance(e, ev.ToolCallStartEvent) and e.tool_name == name]


def ends(events: list[BaseEvent], tool_id: str) -> list[tuple[str, Any]]:
    """How a call ended, each time it did: (event type, output or error)."""
    return [
        (e.type, getattr(e, "output", None) or getattr(e, "error", None))
        for e in events
        if isinstance(e, (ev.ToolResultEvent, ev.ToolErrorEvent)) and e.tool_call_id == tool_id
    ]


# ── claude ─────────────────────────────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("name", ["subagent_write", "subagent_write_same_id"])
def test_claudes_subagent_write_is_its_own_call_linked_to_the_agent_call(name: str) -> None:
    events = claude_events(name)
    agent, write = spawn_and_write(events, "Write")
    assert ends(events, agent) and ends(events, agent)[0][0] == "tool_result"  # once, with the subagent's report
    assert "Subagent hand-back" in str(ends(events, agent)[0][1])
    assert [end[0] for end in ends(events, write.tool_call_id)] == ["tool_result"]  # the write ended, completed


@pytest.mark.parametrize("name", ["subagent_write", "subagent_write_same_id"])
def test_claudes_subagent_question_names_the_write_its_path_and_diff_in_its_child_session(name: str) -> None:
    events = claude_events(name)
    agent, write, question, tool_call = asked_about_the_write(events, "Write", ClaudeAdapter.tool_table, CLAUDE_CWD)
    path = f"{CLAUDE_CWD}/made.txt"
    assert question.parent_tool_call_id == agent
    assert (question.tool_name, question.input) == ("Write", {"file_path": path, "content": WRITTEN})
    assert tool_call == {
        "toolCallId": write.tool_call_id,
        "status": "pending",
        "title": "Write made.txt",
        "kind": "edit",
        "content": [{"type": "diff", "path": path, "newText": WRITTEN, "oldText": None}],
        "locations": [{"path": path}],
        "rawInput": {"file_path": path, "content": WRITTEN},
        "_meta": {"claudeCode": {"parentToolUseId": agent}, PARENT_META: {"tool_call_id": agent}},
    }


def test_claudes_repeated_id_leaves_the_agent_call_whole_and_the_write_named_apart() -> None:
    """The Agent call keeps claude's id and its own face (the editor's nested view): the write is a call of its
    own under it, and the Agent call is asked nothing."""
    events = claude_events("subagent_write_same_id")
    translator = UpdateTranslator(ClaudeAdapter.tool_table, CLAUDE_CWD)
    updates = acp_valid([u for e in events for u in translator.translate(e)])  # type: ignore[arg-type]
    shown = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    assert [(u["toolCallId"], u["kind"]) for u in shown] == [("toolu_fake_0_1", "think"), ("toolu_fake_0_1-2", "edit")]
    assert shown[1]["_meta"][PARENT_META] == {"tool_call_id": "toolu_fake_0_1"}
    assert statuses(updates, "toolu_fake_0_1") == ["pending", "in_progress", "completed"]  # the write did not end it
    assert statuses(updates, "toolu_fake_0_1-2") == ["pending", "in_progress", "completed"]  # ends with its subagent


def statuses(updates: list[dict[str, Any]], tool_id: str) -> list[str]:
    return [u["status"] for u in updates if u.get("toolCallId") == tool_id and u.get("status")]


# ── codex ──────────────────────────────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("name", ["subagent_write", "subagent_write_same_id"])
def test_codexs_subagent_patch_is_its_own_call_and_its_question_names_it(name: str) -> None:
    events = codex_events(name)
    spawn, patch, question, tool_call = asked_about_the_write(events, "apply_patch", CodexAdapter.tool_table, CODEX_CWD)
    path = f"{CODEX_CWD}/made.txt"
    assert question.parent_tool_call_id == spawn
    assert tool_call["content"] == [{"type": "diff", "path": path, "newText": WRITTEN, "oldText": None}]
    assert tool_call["locations"] == [{"path": path}]
    assert tool_call["_meta"][PARENT_META] == {"tool_call_id": spawn}
    assert ends(events, patch.tool_call_id) == [("tool_result", f"added {path}")]
    assert ends(events, spawn) == [("tool_result", "The notes hold hello.")]  # the child's words end it, once


def test_codexs_repeated_id_names_the_childs_patch_apart_from_the_spawn_call() -> None:
    events = codex_events("subagent_write_same_id")
    assert spawn_of(events) == "call_same"
    assert [c.tool_call_id for c in calls(events, "apply_patch")] == ["call_same-2"]


def test_a_main_agent_call_is_asked_without_a_parent_link() -> None:
    """The session's own calls keep the question they had: no ``_meta`` link, their files and diff."""
    lines = capture_lines(FIXTURES / "claude" / "2.1.332" / "write_edit_allow.jsonl")
    events = feed(ClaudeAdapter(), lines, make_ctx("claude", "/tmp/sacap/run/project"))
    _, tool_call, session = asked(events, ClaudeAdapter.tool_table, "/tmp/sacap/run/project")
    assert "_meta" not in tool_call and tool_call["kind"] == "edit" and tool_call["locations"]
    assert session == PARENT


def recorded_paths() -> list[Path]:
    return [FIXTURES / "claude" / "2.1.332" / "subagent_write_same_id.jsonl", FIXTURES / "codex" / "subagent_write_same_id.jsonl"]  # fmt: skip


@pytest.mark.parametrize("path", recorded_paths(), ids=lambda p: p.parent.name)
def test_the_recordings_really_repeat_the_id(path: Path) -> None:
    """What the fixtures are about: the CLI itself gave the subagent's write the starting call's id."""
    text = path.read_text()
    same = "toolu_fake_0_1" if "claude" in str(path) else "call_same"
    assert text.count(f'"id":"{same}"') + text.count(f'"itemId":"{same}"') >= 2


@pytest.mark.parametrize("name", ["subagent_write", "subagent_write_same_id"])
def test_claudes_question_before_the_subagents_own_line_names_the_same_write(name: str) -> None:
    """claude may ask (``can_use_tool``, naming the subagent by ``agent_id`` only) before the subagent's assistant
    line with the Write arrives: the recording with those two lines swapped shows one Write, asked about."""
    lines = capture_lines(FIXTURES / "claude" / "2.1.332" / f"{name}.jsonl")
    ask = next(i for i, line in enumerate(lines) if '"subtype":"can_use_tool"' in line)
    use = next(i for i, line in enumerate(lines) if '"name":"Write"' in line and '"type":"assistant"' in line)
    assert use < ask
    lines.insert(use, lines.pop(ask))
    events = feed(ClaudeAdapter(), lines, make_ctx("claude", CLAUDE_CWD), exit_code=0)
    _, write, _, tool_call = asked_about_the_write(events, "Write", ClaudeAdapter.tool_table, CLAUDE_CWD)
    assert tool_call["locations"] == [{"path": f"{CLAUDE_CWD}/made.txt"}]
    assert [end[0] for end in ends(events, write.tool_call_id)] == ["tool_result"]


@pytest.mark.parametrize("name", ["subagent_write", "subagent_write_same_id"])
def test_claudes_question_from_a_subagent_never_named_before_goes_to_the_one_running(name: str) -> None:
    """The question comes first and its ``agent_id`` was never seen (no ``task_started``, no line of the subagent
    naming it): the one subagent running is the one asking, and the Write is its call, shown once."""
    lines = capture_lines(FIXTURES / "claude" / "2.1.332" / f"{name}.jsonl")
    lines = [line for line in lines if '"subtype":"task_started"' not in line]
    lines = [json.dumps({k: v for k, v in json.loads(line).items() if k != "agent_id"}) if '"type":"assistant"' in line or '"type":"user"' in line else line for line in lines]  # fmt: skip
    ask = next(i for i, line in enumerate(lines) if '"subtype":"can_use_tool"' in line)
    first_sub = next(i for i, line in enumerate(lines) if '"parent_tool_use_id": "toolu_fake_0_1"' in line)
    lines.insert(first_sub, lines.pop(ask))
    events = feed(ClaudeAdapter(), lines, make_ctx("claude", CLAUDE_CWD), exit_code=0)
    asked_about_the_write(events, "Write", ClaudeAdapter.tool_table, CLAUDE_CWD)


def test_two_claude_subagents_writing_under_one_repeated_id_each_ask_about_their_own_write() -> None:
    """``subagents_two_writes_same_id``: the parent starts two subagents in one message (Agent calls
    ``toolu_fake_0_1`` and ``toolu_fake_0_2``), each writes its own file under the id ``toolu_fake_0_1``."""
    events = claude_events("subagents_two_writes_same_id")
    writes = {str(json.loads(w.input_accumulated)["file_path"]).rsplit("/", 1)[-1]: w for w in calls(events, "Write")}
    assert {name: w.parent_tool_call_id for name, w in writes.items()} == {
        "made.txt": "toolu_fake_0_1",
        "other.txt": "toolu_fake_0_2",
    }
    assert len({w.tool_call_id for w in writes.values()} | {"toolu_fake_0_1", "toolu_fake_0_2"}) == 4
    translator, children = (
        UpdateTranslator(ClaudeAdapter.tool_table, CLAUDE_CWD),
        ChildSessions(PARENT, CLAUDE_CWD, True),
    )
    questions = []
    for event in events:
        if isinstance(event, ev.ApprovalRequestEvent) and event.tool_call_id is not None:
            call = translator.permission_call(event.tool_call_id)
            questions.append((children.session_of(event.tool_call_id), call["title"], call["_meta"][PARENT_META]))
        for update in translator.translate(event):
            children.route(update)  # type: ignore[arg-type]
    assert sorted(questions) == [
        (child_session_id(PARENT, "toolu_fake_0_1"), "Write made.txt", {"tool_call_id": "toolu_fake_0_1"}),
        (child_session_id(PARENT, "toolu_fake_0_2"), "Write other.txt", {"tool_call_id": "toolu_fake_0_2"}),
    ]
    for write in writes.values():
        assert [end[0] for end in ends(events, write.tool_call_id)] == ["tool_result"]

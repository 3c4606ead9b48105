"""Subagents: native lines → linked events → ACP updates, nested (every editor) and as child sessions (an editor
that declared ``subagents``).

The recorded run (``tests/fixtures/claude/subagent.jsonl``) is claude 2.1.197 (pinned when recorded; the pinned
2.1.332 runs live in ``tests/e2e/test_subagents_real.py``) in stream-json, its initialize carrying
``forwardSubagentText: true``, against ``tests/fakes/scenarios/claude_subagent.json`` (the main script calls Agent,
the sub-script answers the subagent: a text, a Read, a final text). The properties below build
claude lines of the same shapes and interleave a parent's and two subagents' lines in any order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.adapters.stream_agents.claude import ClaudeAdapter
from acp_mux.core.events import union as ev
from acp_mux.core.events.union import BaseEvent
from acp_mux.translation.child_sessions import (
    ChildSessions,
    child_session_id,
    split_child_id,
    wants_child_sessions,
)
from acp_mux.translation.updates import PARENT_META, UpdateTranslator
from tests.adapters.helpers import capture_lines, feed, make_ctx, sent
from tests.translation.helpers import acp_valid

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "claude" / "subagent.jsonl"
CWD = "/tmp/sacap/run/project"  # where the recording ran
TASK = "toolu_fake_0_1"  # the Agent call of the recording
READ = "toolu_fake_1_1"  # the subagent's Read
SUB_TEXTS = ["Subagent here, reading the notes.", "The notes hold a greeting: hello."]
PARENT = "sess-1"


def recorded() -> tuple[list[BaseEvent], Any]:
    ctx = make_ctx("claude", CWD)
    return feed(ClaudeAdapter(), capture_lines(FIXTURE), ctx), ctx


def nested(events: list[BaseEvent]) -> list[dict[str, Any]]:
    translator = UpdateTranslator(ClaudeAdapter.tool_table, CWD)
    return [u for e in events for u in translator.translate(e)]


def routed(updates: list[dict[str, Any]], can_cancel: bool = True) -> list[tuple[str, dict[str, Any]]]:
    children = ChildSessions(PARENT, CWD, can_cancel)
    return [pair for u in updates for pair in children.route(u)]  # type: ignore[arg-type]


def message_text(updates: list[dict[str, Any]]) -> str:
    return "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")


# ── the recorded run ───────────────────────────────────────────────────────────────────────────────────────────
def test_recorded_subagent_lines_become_linked_events() -> None:
    events, ctx = recorded()
    spawn = next(e for e in events if isinstance(e, ev.SubagentSpawnEvent))
    assert (spawn.subagent_id, spawn.agent_name, spawn.description) == (TASK, "general-purpose", "Inspect notes")
    texts = [e for e in events if isinstance(e, ev.SubagentTextEvent)]
    assert [(e.subagent_id, e.text, e.parent_tool_call_id) for e in texts] == [(TASK, t, TASK) for t in SUB_TEXTS]
    read = [e for e in events if getattr(e, "tool_call_id", None) == READ]
    assert {e.type for e in read} >= {"tool_call_start", "tool_result"}
    assert all(e.parent_tool_call_id == TASK for e in read)
    main = "".join(e.delta for e in events if isinstance(e, ev.TextDeltaEvent))
    assert main == "I will ask a subagent.The subagent says the notes hold a greeting."
    assert all(e.parent_tool_call_id is None for e in events if getattr(e, "tool_call_id", None) == TASK)
    # task_started named the subagent's task: stop_task can stop it alone
    assert ClaudeAdapter().stop_subagent(TASK, ctx) is True
    assert sent(ctx)[-1]["request"] == {"subtype": "stop_task", "task_id": "a43baa32db877f96d"}
    assert ClaudeAdapter().stop_subagent("toolu_unknown", ctx) is False


def test_nested_the_subagents_calls_hang_under_the_task_and_its_text_is_the_tasks_content() -> None:
    updates = acp_valid(nested(recorded()[0]))
    read_call = next(u for u in updates if u["sessionUpdate"] == "tool_call" and u["toolCallId"] == READ)
    nested_meta = {"claudeCode": {"toolName": "Read", "parentToolUseId": TASK}, PARENT_META: {"tool_call_id": TASK}}
    assert read_call["_meta"] == nested_meta
    task_call = next(u for u in updates if u["sessionUpdate"] == "tool_call" and u["toolCallId"] == TASK)
    assert task_call["_meta"] == {"claudeCode": {"toolName": "Agent"}}  # its own name only: it hangs under nothing
    assert not any(t in message_text(updates) for t in SUB_TEXTS)
    task_contents = [u["content"] for u in updates if u.get("toolCallId") == TASK and "content" in u]
    assert SUB_TEXTS[0] in task_contents[0][0]["content"]["text"]
    final = [u for u in updates if u.get("toolCallId") == TASK and u.get("status") == "completed"][-1]
    assert all(t in final["content"][0]["content"]["text"] for t in SUB_TEXTS)  # what it wrote stays shown
    assert final["_meta"]["subagent"]["state"] == "idle"


def test_as_child_sessions_the_subagent_is_announced_then_speaks_in_its_own_session() -> None:
    pairs = routed(nested(recorded()[0]))
    child = child_session_id(PARENT, TASK)
    announce = next(i for i, (sid, u) in enumerate(pairs) if u["sessionUpdate"] == "subagent_update")
    assert pairs[announce] == (
        PARENT,
        {
            "sessionUpdate": "subagent_update",
            "sessionId": child,
            "title": "Inspect notes",
            "cwd": CWD,
            "capabilities": {"cancel": True},
            "state": {"state": "running"},
            "description": "[[subagent:inspect]] Read notes.txt and say what it holds.",
            "_meta": {"subagent": {"agent": "general-purpose", "tool_call_id": TASK}},
        },
    )
    assert all(i > announce for i, (sid, _) in enumerate(pairs) if sid == child)  # announced before any of it
    in_child = [u for sid, u in pairs if sid == child]
    acp_valid(in_child)
    assert message_text(in_child) == "".join(SUB_TEXTS)
    assert {u["toolCallId"] for u in in_child if u["sessionUpdate"] == "tool_call"} == {READ}
    in_parent = [u for sid, u in pairs if sid == PARENT]
    assert not any(t in message_text(in_parent) for t in SUB_TEXTS)
    assert READ not in {u.get("toolCallId") for u in in_parent}
    idle = (PARENT, {"sessionUpdate": "subagent_update", "sessionId": child, "state": {"state": "idle"}})
    assert pairs.count(idle) == 1 and pairs.index(idle) > max(i for i, (sid, _) in enumerate(pairs) if sid == child)
    assert {sid for sid, _ in pairs} == {PARENT, child}
    children = ChildSessions(PARENT, CWD, True)
    for u in nested(recorded()[0]):
        children.route(u)  # type: ignore[arg-type]
    assert (children.session_of(READ), children.session_of(TASK)) == (child, PARENT)  # where a question is asked


def test_child_ids_and_the_capability() -> None:
    assert split_child_id(child_session_id("a/b", "toolu_1")) == ("a/b", "toolu_1")
    assert split_child_id("plain-session") is None
    assert wants_child_sessions({"subagents": {}}) and wants_child_sessions({"subagents": True})
    assert wants_child_sessions({"subagents": {"future": 1}})
    assert not wants_child_sessions({}) and not wants_child_sessions({"subagents": None})
    assert not wants_child_sessions({"subagents": False})


# ── properties over constructed lines ──────────────────────────────────────────────────────────────────────────
SID = "s-1"


def _assistant(block: dict[str, Any], msg_id: str, parent: str | None) -> dict[str, Any]:
    message = {"id": msg_id, "role": "assistant", "content": [block]}
    return {"type": "assistant", "message": message, "parent_tool_use_id": parent, "session_id": SID}


def _result(tool_id: str, text: str, parent: str | None) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": text}
    return {"type": "user", "message": {"role": "user", "content": [block]}, "parent_tool_use_id": parent}


def subagent_lines(task: str, n: int, marked_results: bool, ask_first: bool) -> list[dict[str, Any]]:
    """What one subagent writes: per step a text, a Read, claude's permission question for it (never marked, but
    naming the subagent's task as ``agent_id``; before or after the call's own line) and its result (marked or
    not: the link must come from the call, not from the line)."""
    lines: list[dict[str, Any]] = [
        {"type": "system", "subtype": "task_started", "task_id": f"task-{task}", "tool_use_id": task}
    ]
    for i in range(n):
        tool = f"{task}-read-{i}"
        lines.append(_assistant({"type": "text", "text": f"SUBTEXT {task} {i}"}, f"m-{task}-{i}", task))
        call = _assistant({"type": "tool_use", "id": tool, "name": "Read", "input": {"file_path": "a"}}, f"m-{task}-{i}", task)  # fmt: skip
        ask = {"subtype": "can_use_tool", "tool_name": "Read", "input": {"file_path": "a"}, "tool_use_id": tool,
               "agent_id": f"task-{task}"}  # fmt: skip
        question = {"type": "control_request", "request_id": f"ask-{tool}", "request": ask}
        lines += [question, call] if ask_first else [call, question]
        lines.append(_result(tool, f"content {i}", task if marked_results else None))
    return lines


@st.composite
def interleaved_run(draw: st.DrawFn) -> list[dict[str, Any]]:
    """The main agent starts two Agent calls, the two subagents' lines (and main-agent text) interleave in any
    order that keeps each one's own order, then both calls end and the turn ends."""
    tasks = ["toolu_A", "toolu_B"]
    streams = [subagent_lines(t, draw(st.integers(0, 3)), draw(st.booleans()), draw(st.booleans())) for t in tasks]
    streams.append([_assistant({"type": "text", "text": f"MAIN {i}"}, f"main-{i}", None) for i in range(draw(st.integers(0, 3)))])  # fmt: skip
    head = [{"type": "system", "subtype": "init", "session_id": SID, "cwd": "/w", "tools": [], "slash_commands": []}]
    for t in tasks:
        agent_input = {"description": f"job {t}", "prompt": f"do {t}", "subagent_type": "general-purpose"}
        head.append(
            _assistant({"type": "tool_use", "id": t, "name": "Agent", "input": agent_input}, "main-calls", None)
        )
    order = draw(st.permutations([i for i, s in enumerate(streams) for _ in s]))
    positions = [0] * len(streams)
    body = []
    for i in order:
        body.append(streams[i][positions[i]])
        positions[i] += 1
    tail = [_result(t, f"done {t}", None) for t in draw(st.permutations(tasks))]
    end = {"type": "result", "subtype": "success", "is_error": False, "result": "", "session_id": SID,
           "total_cost_usd": 0.0, "usage": {"input_tokens": 0, "output_tokens": 0}}  # fmt: skip
    return head + body + tail + [end]


@settings(max_examples=60, deadline=None)
@given(interleaved_run(), st.booleans())
def test_any_interleaving_keeps_every_link_and_no_child_text_reaches_the_main_reply(
    lines: list[dict[str, Any]], as_children: bool
) -> None:
    events = feed(ClaudeAdapter(), lines, make_ctx("claude", "/w"))
    # the events: each subagent's tool call linked to the Agent call whose lines started it
    assert any(isinstance(e, ev.ApprovalRequestEvent) for e in events) == any("-read-" in json.dumps(x) for x in lines)
    for e in events:
        tool_id = getattr(e, "tool_call_id", None)
        if isinstance(tool_id, str) and "-read-" in tool_id:
            assert e.parent_tool_call_id == tool_id.split("-read-")[0], e
        if isinstance(e, ev.TextDeltaEvent):
            assert "SUBTEXT" not in e.delta
    updates = nested(events)
    acp_valid(updates)
    announced: set[str] = set()
    for u in updates:  # nested: a child's call names a parent the editor was already shown
        if u["sessionUpdate"] == "tool_call":
            link = u.get("_meta", {}).get(PARENT_META, {}).get("tool_call_id")
            assert link is None or link in announced, u
            assert (link is not None) == ("-read-" in u["toolCallId"])
            announced.add(u["toolCallId"])
    assert "SUBTEXT" not in message_text(updates)
    if not as_children:
        return
    pairs = routed(updates)
    known: set[str] = set()
    for sid, u in pairs:
        if u["sessionUpdate"] == "subagent_update" and sid == PARENT:
            known.add(u["sessionId"])
        if sid != PARENT:  # every child update comes after its announcement, in the session of its own subagent
            assert sid in known
            tool_id = u.get("toolCallId")
            assert tool_id is None or split_child_id(sid) == (PARENT, tool_id.split("-read-")[0])
            if u["sessionUpdate"] == "agent_message_chunk":
                assert u["content"]["text"].startswith(f"SUBTEXT {split_child_id(sid)[1]} ")  # type: ignore[index]
    assert "SUBTEXT" not in message_text([u for sid, u in pairs if sid == PARENT])
    states = [u["state"]["state"] for sid, u in pairs if u["sessionUpdate"] == "subagent_update" and "state" in u]
    assert states.count("idle") == len(known)  # every announced child ends idle


def test_the_event_log_keeps_the_tree(tmp_path: Path) -> None:
    """Stored and read back, the events replay the same nesting (session/load shows what the live turn did)."""
    from acp_mux.server.records.event_log import EventLogWriter, read_envelopes
    from acp_mux.server.records.replay import replay_updates

    events, _ = recorded()
    for i, e in enumerate(events):
        e.run_id, e.timestamp = "r1", 1700000000000 + i
    writer = EventLogWriter(tmp_path / "log.jsonl", PARENT)
    writer.record("r1", "user.message", {"content": [{"type": "text", "text": "go"}]}, 1700000000000)
    for e in events:
        writer.event(e)
    writer.flush()
    stored = list(read_envelopes(tmp_path / "log.jsonl"))
    assert any(s["data"].get("parentToolCallId") == TASK for s in stored)
    replayed = list(replay_updates(stored, UpdateTranslator(ClaudeAdapter.tool_table, CWD)))
    live = [u for u in nested(events) if u["sessionUpdate"] not in ("usage_update", "available_commands_update")]

    def shape(updates: list[dict[str, Any]]) -> list[str]:
        return [json.dumps(u, sort_keys=True) for u in updates if u.get("toolCallId") in (TASK, READ)]

    assert shape(replayed) == shape(live)

    def tree(pairs: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
        return [(sid, u) for sid, u in pairs if sid != PARENT or u["sessionUpdate"] == "subagent_update"]

    assert tree(routed(replayed)) == tree(routed(live)) and len(tree(routed(live))) > 4


def _nested_update(kind: str, task: str, n: int) -> dict[str, Any]:
    """One update of the nested form, of any kind the translator makes about a subagent (or not)."""
    child_call = f"{task}-call-{n}"
    if kind == "spawn":
        return {"sessionUpdate": "tool_call_update", "toolCallId": task,
                "_meta": {"subagent": {"tool_call_id": task, "state": "running", "title": task}}}  # fmt: skip
    if kind == "idle":
        return {"sessionUpdate": "tool_call_update", "toolCallId": task, "status": "completed",
                "_meta": {"subagent": {"tool_call_id": task, "state": "idle"}}}  # fmt: skip
    if kind == "text":
        return {"sessionUpdate": "tool_call_update", "toolCallId": task,
                "_meta": {"subagent_text": {"tool_call_id": task, "text": f"SUBTEXT {n}", "thinking": n % 2 == 0}}}  # fmt: skip
    if kind == "child_call":
        return {"sessionUpdate": "tool_call", "toolCallId": child_call, "title": "t",
                "_meta": {PARENT_META: {"tool_call_id": task}}}  # fmt: skip
    if kind == "child_update":
        return {"sessionUpdate": "tool_call_update", "toolCallId": child_call, "status": "completed"}
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"main {n}"}}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["spawn", "idle", "text", "child_call", "child_update", "main"]),
            st.sampled_from(["toolu_A", "toolu_B"]),
            st.integers(0, 2),
        ),
        max_size=30,
    )
)
def test_whatever_the_order_a_child_is_announced_before_anything_bears_its_id(
    steps: list[tuple[str, str, int]],
) -> None:
    """Updates in any order (a child's call before its spawn, text after its end, an end never announced): every
    update sent to a child session comes after that child's announcement, the parent never gets the child's words,
    and a child ends (idle) at most once per time it was announced running."""
    children = ChildSessions(PARENT, CWD, False)
    pairs = [pair for kind, task, n in steps for pair in children.route(_nested_update(kind, task, n))]  # type: ignore[arg-type]
    known: set[str] = set()
    running: set[str] = set()
    for sid, u in pairs:
        if sid == PARENT and u["sessionUpdate"] == "subagent_update":
            if "title" in u:  # an announcement (later ones only patch the state)
                assert u["sessionId"] not in known and u["capabilities"] == {"cancel": False}
                known.add(u["sessionId"])
                running.add(u["sessionId"])
            else:
                assert u["sessionId"] in running and u["state"] == {"state": "idle"}
                running.discard(u["sessionId"])
        elif sid != PARENT:
            assert sid in known and split_child_id(sid) is not None
    assert "SUBTEXT" not in json.dumps([u for sid, u in pairs if sid == PARENT])

"""codex subagents (multi-agent v2 child threads): app-server lines → the same linked events as claude's → ACP.

The recorded run (``tests/fixtures/codex/subagent.jsonl``, what was sent in ``subagent.stdin.jsonl``) is the pinned codex 0.169.0 app-server with
``-c features.multi_agent_v2=true`` against ``tests/fakes/scenarios/codex_subagent.json``: the parent calls
``collaboration.spawn_agent`` then ``wait_agent``; the subagent (its own thread) writes a text, runs ``cat notes.txt``
(asked and accepted) and answers. The properties build lines of the same shapes and interleave a parent's and two
children's in any order, the parent's turn possibly ending before a child does.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.adapters.rpc_agents.codex import CodexAdapter
from acp_mux.core.events import union as ev
from acp_mux.core.events.union import BaseEvent
from acp_mux.translation.child_sessions import ChildSessions, child_session_id, split_child_id
from acp_mux.translation.updates import PARENT_META, UpdateTranslator
from tests.adapters.helpers import feed, sent
from tests.adapters.test_codex import _started, replay_fresh

SPAWN = "call_fake_0_1"  # the spawn_agent call of the recording
WAIT = "call_fake_1_0"  # its wait_agent call
CAT = "call_fake_2_1"  # the subagent's command
CHILD_THREAD = "01a21651-87a6-74c2-b00d-908606644528"
SUB_TEXTS = ["Subagent here.", "The notes hold hello."]
PARENT, CWD = "sess-1", "/work/project"


def recorded() -> list[BaseEvent]:
    return replay_fresh("subagent")[0]  # (its stdin half: tests/fixtures/codex/subagent.stdin.jsonl)


def nested(events: list[BaseEvent]) -> list[dict[str, Any]]:
    translator = UpdateTranslator(CodexAdapter.tool_table, CWD)
    return [u for e in events for u in translator.translate(e)]


def message_text(updates: list[dict[str, Any]]) -> str:
    return "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")


# ── the recorded run ───────────────────────────────────────────────────────────────────────────────────────────
def test_recorded_child_thread_becomes_linked_subagent_events() -> None:
    events = recorded()
    spawn = next(e for e in events if isinstance(e, ev.SubagentSpawnEvent))
    assert (spawn.subagent_id, spawn.description, spawn.agent_name) == (SPAWN, "inspect", "gpt-5.5")
    assert spawn.parent_tool_call_id is None
    texts = [(e.subagent_id, e.text, e.parent_tool_call_id) for e in events if isinstance(e, ev.SubagentTextEvent)]
    assert texts == [(SPAWN, t, SPAWN) for t in SUB_TEXTS]
    cat = [e for e in events if getattr(e, "tool_call_id", None) == CAT]
    assert {e.type for e in cat} >= {"tool_call_start", "approval_request", "tool_result"}
    assert all(e.parent_tool_call_id == SPAWN for e in cat)
    assert [e.delta for e in events if isinstance(e, ev.ShellStdoutDeltaEvent)] == ["hello\n"]  # once
    main = "".join(e.delta for e in events if isinstance(e, ev.TextDeltaEvent))
    assert main == "Spawning.Parent done."
    ends = [e for e in events if isinstance(e, (ev.SubagentResultEvent, ev.SubagentErrorEvent))]
    assert [(type(e), e.subagent_id, getattr(e, "summary", None)) for e in ends] == [
        (ev.SubagentResultEvent, SPAWN, SUB_TEXTS[-1])
    ]
    spawn_results = [e for e in events if isinstance(e, ev.ToolResultEvent) and e.tool_call_id == SPAWN]
    assert len(spawn_results) == 1  # kept open while the child ran, closed at its end
    assert events.index(spawn_results[0]) > max(events.index(e) for e in cat)
    assert all(e.parent_tool_call_id is None for e in events if getattr(e, "tool_call_id", None) in (SPAWN, WAIT))
    usage = [(e.parent_tool_call_id, e.input_tokens) for e in events if isinstance(e, ev.TokenUsageEvent)]
    assert usage.count((SPAWN, 120)) == 2 and usage.count((None, 120)) == 3  # the subagent's two requests count too


def test_recorded_nested_and_as_a_child_session() -> None:
    updates = nested(recorded())
    cat_call = next(u for u in updates if u["sessionUpdate"] == "tool_call" and u["toolCallId"] == CAT)
    assert cat_call["_meta"][PARENT_META] == {"tool_call_id": SPAWN}
    assert not any(t in message_text(updates) for t in SUB_TEXTS)
    final = [u for u in updates if u.get("toolCallId") == SPAWN and u.get("status") == "completed"][-1]
    assert final["_meta"]["subagent"]["state"] == "idle"
    children = ChildSessions(PARENT, CWD, True)
    pairs = [pair for u in updates for pair in children.route(u)]  # type: ignore[arg-type]
    child = child_session_id(PARENT, SPAWN)
    announce = next(i for i, (_, u) in enumerate(pairs) if u["sessionUpdate"] == "subagent_update")
    assert pairs[announce][1]["sessionId"] == child and pairs[announce][1]["title"] == "inspect"
    in_child = [u for sid, u in pairs if sid == child]
    assert message_text(in_child) == "".join(SUB_TEXTS)
    assert all(i > announce for i, (sid, _) in enumerate(pairs) if sid == child)
    assert children.session_of(CAT) == child  # its approval is asked in the child session


def test_recorded_interrupt_of_the_child_thread_ends_the_subagent_and_the_parent_goes_on() -> None:
    """``subagent_interrupt.jsonl``: the subagent's model request stalls, the recorder sent ``turn/interrupt`` on
    the child thread: codex ended that turn ``interrupted``, the parent's wait returned and the parent answered."""
    events = replay_fresh("subagent_interrupt")[0]
    ends = [(e.type, e.subagent_id, getattr(e, "error", None)) for e in events if e.type in ("subagent_result", "subagent_error")]  # fmt: skip
    assert ends == [("subagent_error", SPAWN, "interrupted")]
    main = "".join(e.delta for e in events if isinstance(e, ev.TextDeltaEvent))
    assert main == "Spawning.Parent done." and events[-1].type == "turn_end"
    assert CodexAdapter.capabilities.stops_subagents  # so a child session offers cancel


def test_the_older_collab_spawn_call_links_its_child_once_codex_names_the_thread() -> None:
    """``collabAgentToolCall`` (codex's first multi-agent tools): ``spawnAgent`` is the spawn call, its child
    known from ``receiverThreadIds`` when it completes; a failed spawn ends at once; ``wait`` is a plain call."""
    adapter, ctx, _ = _started()
    spawn = {"type": "collabAgentToolCall", "id": "sp", "tool": "spawnAgent", "status": "inProgress", "prompt": "look",
             "senderThreadId": "T1", "receiverThreadIds": [], "agentsStates": {}}  # fmt: skip
    done = {**spawn, "status": "completed", "receiverThreadIds": ["C1"]}
    failed = {**spawn, "id": "sp2", "status": "failed"}
    wait = {**spawn, "id": "w", "tool": "wait", "status": "completed", "agentsStates": {"C1": {"status": "completed"}}}
    said = {"type": "agentMessage", "id": "m", "text": "child words"}
    events = feed(adapter, [
        _n("turn/started", "T1", turn={"id": "U1"}), _n("item/started", "T1", item=spawn),
        _n("item/completed", "C1", item=said),  # before codex named the thread: not ours yet
        _n("item/completed", "T1", item=done), _n("turn/started", "C1", turn={"id": "UC"}),
        _n("item/completed", "C1", item=said), _n("item/completed", "T1", item=failed),
        _n("turn/completed", "C1", turn={"id": "UC", "status": "completed"}), _n("item/completed", "T1", item=wait),
    ], ctx)  # fmt: skip
    sub = [(e.type, getattr(e, "subagent_id", None)) for e in events if e.type.startswith("subagent")]
    assert sub == [("subagent_spawn", "sp"), ("subagent_text", "sp"), ("subagent_error", "sp2"), ("subagent_result", "sp")]  # fmt: skip
    spawned = next(e for e in events if isinstance(e, ev.SubagentSpawnEvent))
    assert spawned.prompt == "look"
    result = next(e for e in events if isinstance(e, ev.SubagentResultEvent))
    assert result.summary == "child words"
    assert [(e.type, e.tool_call_id) for e in events if e.type in ("tool_result", "tool_error")] == [
        ("tool_error", "sp2"), ("tool_result", "sp"), ("tool_result", "w")
    ]  # fmt: skip


def test_stop_subagent_interrupts_the_child_thread_only_while_it_runs() -> None:
    adapter, ctx, _ = _started()
    feed(adapter, [_n("turn/started", "T1", turn={"id": "U1"}), *_spawned("A")], ctx)
    assert adapter.stop_subagent("spawn-A", ctx) is False  # its turn has not started: nothing to interrupt
    feed(adapter, [_n("turn/started", "thread-A", turn={"id": "UA"})], ctx)
    sent(ctx)
    assert adapter.stop_subagent("spawn-A", ctx) is True
    assert [m["params"] for m in sent(ctx)] == [{"threadId": "thread-A", "turnId": "UA"}]
    assert adapter.stop_subagent("spawn-unknown", ctx) is False
    events = feed(adapter, [_n("turn/completed", "thread-A", turn={"id": "UA", "status": "interrupted"})], ctx)
    assert [(e.type, getattr(e, "subagent_id", None)) for e in events if e.type.startswith("subagent")] == [
        ("subagent_error", "spawn-A")
    ]
    assert adapter.stop_subagent("spawn-A", ctx) is False  # over


def test_cancel_of_the_parent_interrupts_the_running_children_too() -> None:
    adapter, ctx, _ = _started()
    feed(adapter, [_n("turn/started", "T1", turn={"id": "U1"})], ctx)
    feed(adapter, [*_spawned("A"), *_spawned("B"), _n("turn/started", "thread-A", turn={"id": "UA"})], ctx)
    feed(adapter, [_n("turn/started", "thread-B", turn={"id": "UB"})], ctx)
    feed(adapter, [_n("turn/completed", "thread-B", turn={"id": "UB", "status": "completed"})], ctx)
    sent(ctx)
    assert adapter.interrupt(ctx) is True
    assert sorted((m["params"]["threadId"], m["params"]["turnId"]) for m in sent(ctx)) == [
        ("T1", "U1"),
        ("thread-A", "UA"),
    ]


# ── properties over constructed lines ──────────────────────────────────────────────────────────────────────────
def _n(method: str, thread: str, **params: Any) -> dict[str, Any]:
    return {"method": method, "params": {"threadId": thread, **params}}


def _spawned(name: str) -> list[dict[str, Any]]:
    item = {"type": "subAgentActivity", "id": f"spawn-{name}", "kind": "started", "agentThreadId": f"thread-{name}",
            "agentPath": f"/root/{name}", "model": "gpt-5.5"}  # fmt: skip
    return [_n("item/started", "T1", item=item), _n("item/completed", "T1", item=item)]


def child_lines(name: str, steps: int, asks: bool, rpc_base: int) -> list[dict[str, Any]]:
    """One child thread's run: per step its words, a command (asked or not) with streamed output, then its end."""
    thread = f"thread-{name}"
    lines = [_n("turn/started", thread, turn={"id": f"U{name}"})]
    for i in range(steps):
        cmd_id = f"{name}-cmd-{i}"
        cmd = {"type": "commandExecution", "id": cmd_id, "command": "ls", "cwd": "/w", "status": "inProgress"}
        said = {"type": "agentMessage", "id": f"{name}-msg-{i}", "text": f"SUBTEXT {name} {i}"}
        lines += [_n("item/started", thread, item=said), _n("item/completed", thread, item=said)]
        lines.append(_n("item/started", thread, item=cmd))
        if asks:
            ask = {"threadId": thread, "turnId": f"U{name}", "itemId": cmd_id, "command": "ls", "cwd": "/w"}
            lines.append({"id": rpc_base + i, "method": "item/commandExecution/requestApproval", "params": ask})
        lines.append(_n("item/commandExecution/outputDelta", thread, itemId=cmd_id, delta="out"))
        done = {**cmd, "status": "completed", "aggregatedOutput": "out", "exitCode": 0}
        lines.append(_n("item/completed", thread, item=done))
    lines.append(_n("turn/completed", thread, turn={"id": f"U{name}", "status": "completed"}))
    end = {"type": "subAgentActivity", "id": f"done-{name}", "kind": "completed", "agentThreadId": thread,
           "agentPath": f"/root/{name}"}  # fmt: skip
    return lines + [_n("item/started", "T1", item=end), _n("item/completed", "T1", item=end)]  # in the parent


@st.composite
def interleaved_run(draw: st.DrawFn) -> tuple[list[dict[str, Any]], int]:
    """The parent spawns two children, their lines and the parent's own words interleave in any order that keeps
    each one's own, and the parent's turn ends at the end or anywhere after the spawns (its index is returned)."""
    names = ["A", "B"]
    streams = [child_lines(n, draw(st.integers(0, 3)), draw(st.booleans()), 100 * (k + 1)) for k, n in enumerate(names)]  # fmt: skip
    words = [{"type": "agentMessage", "id": f"main-{i}", "text": f"MAIN {i}"} for i in range(draw(st.integers(0, 2)))]
    streams.append([_n("item/completed", "T1", item=w) for w in words])
    head = [_n("turn/started", "T1", turn={"id": "U1"}), *_spawned("A"), *_spawned("B")]
    order = draw(st.permutations([i for i, s in enumerate(streams) for _ in s]))
    positions, body = [0] * len(streams), []
    for i in order:
        body.append(streams[i][positions[i]])
        positions[i] += 1
    end_at = draw(st.integers(0, len(body)))
    end = _n("turn/completed", "T1", turn={"id": "U1", "status": "completed"})
    late = body[end_at:]
    speaks = [x for x in late if x["params"].get("item", {}).get("id", "").startswith("main-")]
    before = body[:end_at] + speaks  # the parent speaks in its turn; its children's ends may come after it
    after = [x for x in late if x not in speaks]
    return head + before + [end] + after, len(head) + len(before)


@settings(max_examples=60, deadline=None)
@given(interleaved_run(), st.booleans())
def test_any_interleaving_links_every_child_event_and_keeps_child_words_out_of_the_reply(
    run: tuple[list[dict[str, Any]], int], as_children: bool
) -> None:
    lines, end_at = run
    adapter, ctx, _ = _started()
    before = feed(adapter, lines[: end_at + 1], ctx)
    sent(ctx)
    after = feed(adapter, lines[end_at + 1 :], ctx)
    assert [e for e in after if e.type != "debug"] == []  # nothing of a child shows once the parent's turn is over
    late_asks = [x["id"] for x in lines[end_at + 1 :] if "id" in x]  # ... and codex is never left waiting
    assert [(m["id"], m["result"]) for m in sent(ctx)] == [(i, {"decision": "decline"}) for i in late_asks]
    events = before
    assert [e.type for e in events].count("turn_end") == 1 and events[-1].type == "turn_end"
    for e in events:
        tool_id = getattr(e, "tool_call_id", None)
        if isinstance(tool_id, str) and "-cmd-" in tool_id:
            assert e.parent_tool_call_id == f"spawn-{tool_id.split('-cmd-')[0]}", e
        if isinstance(e, ev.SubagentTextEvent):
            assert e.text.startswith(f"SUBTEXT {e.subagent_id.removeprefix('spawn-')} ")
            assert e.parent_tool_call_id == e.subagent_id
        if isinstance(e, ev.TextDeltaEvent):
            assert "SUBTEXT" not in e.delta
    for name in ("A", "B"):  # each spawn call is ended exactly once, by its child's end or by the parent's
        ends = [e for e in events if getattr(e, "tool_call_id", None) == f"spawn-{name}" and e.type in ("tool_result", "tool_error")]  # fmt: skip
        assert len(ends) == 1
    updates = nested(events)
    assert "SUBTEXT" not in message_text(updates)
    if not as_children:
        return
    children = ChildSessions(PARENT, CWD, True)
    pairs = [pair for u in updates for pair in children.route(u)]  # type: ignore[arg-type]
    known: set[str] = set()
    for sid, u in pairs:
        if u["sessionUpdate"] == "subagent_update" and sid == PARENT:
            known.add(u["sessionId"])
        if sid != PARENT:
            assert sid in known
            tool_id = u.get("toolCallId")
            owner = split_child_id(sid)[1]  # type: ignore[index]
            assert tool_id is None or tool_id.startswith(owner.removeprefix("spawn-") + "-cmd-")
    states = [u["state"]["state"] for sid, u in pairs if u["sessionUpdate"] == "subagent_update" and "state" in u]
    assert states.count("idle") == len(known)

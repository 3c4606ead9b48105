"""``import acp_mux`` driving the bundled scripted agent: text, questions answered by callback, rules and by hand,
cancel, a second prompt, resume (also of a session an editor started), typed failures, and no process left behind.

The scripted agent is a real subprocess (adapters/stream_agents/scripted_agent.py) that writes and edits files in
its folder only when allowed, so every answer is checked by what is on disk, not by what the API says it did.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import acp
import pytest

import acp_mux
from tests.procs import pids, read_proc
from tests.server.client import RecordingClient, bridge


def agents_in(folder: str) -> list[int]:
    """Live processes whose working folder is ``folder``: the agent and anything it started there."""
    found = []
    for pid in pids():
        try:
            if os.readlink(f"/proc/{pid}/cwd") == folder:
                found.append(pid)
        except OSError:
            continue
    return found


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


async def test_a_one_shot_query_streams_typed_text_and_leaves_nothing_running(work):
    events = [e async for e in acp_mux.query("demo", "hello there", **work)]
    assert all(isinstance(e, acp_mux.BaseEvent) for e in events)
    text = "".join(e.delta for e in events if isinstance(e, acp_mux.events.TextDeltaEvent))
    assert text.strip() == "You said: hello there"
    assert events[-1].type == "turn_end"
    assert agents_in(work["cwd"]) == []


async def test_a_callback_allows_each_edit_and_the_files_change(work):
    asked: list[acp_mux.ApprovalRequest] = []

    async def approve(request: acp_mux.ApprovalRequest) -> acp_mux.Approve:
        asked.append(request)
        return acp_mux.Approve()

    async with acp_mux.run("demo", "write the notes", approvals=acp_mux.ask(approve), **work) as run:
        events = [e async for e in run]
        assert run.result is not None and run.result.stop_reason == "end_turn" and run.result.error is None
    assert [(r.tool_name, r.kind) for r in asked] == [("Write", "edit"), ("Edit", "edit"), ("Bash", "execute")]
    assert asked[0].always_covers == f"changes to {Path(work['cwd'], 'notes.txt')}"
    assert Path(work["cwd"], "notes.txt").read_text() == "alpha\ngamma\n"
    assert types(events).count("approval_granted") == 3 and "approval_denied" not in types(events)


async def test_a_callback_that_rejects_keeps_the_folder_untouched(work):
    def reject(request: acp_mux.ApprovalRequest) -> bool:  # a plain function and a bool answer work too
        return False

    async with acp_mux.run("demo", "write the notes", approvals=acp_mux.ask(reject), **work) as run:
        result = await run.wait()
    assert result.stop_reason == "end_turn" and "will not write" in result.text
    assert not Path(work["cwd"], "notes.txt").exists()


async def test_a_callback_that_raises_is_a_denial(work):
    def broken(request: acp_mux.ApprovalRequest) -> bool:
        raise RuntimeError("boom")

    async with acp_mux.run("demo", "write the notes", approvals=acp_mux.ask(broken), **work) as run:
        events = [e async for e in run]
    denied = [e for e in events if e.type == "approval_denied"]
    assert denied and "boom" in (denied[0].reason or "")
    assert not Path(work["cwd"], "notes.txt").exists()


async def test_rules_allow_what_they_name_and_nothing_else(work):
    policy = acp_mux.allow("edit:notes.txt")  # the write and the edit; the `cat` command is not named
    async with acp_mux.run("demo", "write the notes", approvals=policy, **work) as run:
        events = [e async for e in run]
    assert Path(work["cwd"], "notes.txt").read_text() == "alpha\ngamma\n"
    assert types(events).count("approval_granted") == 2 and types(events).count("approval_denied") == 1
    assert not any(e.type == "shell_start" for e in events)


async def test_a_deny_rule_beats_an_allow_rule_and_always_answers_are_remembered(work):
    calls: list[str] = []

    def once_always(request: acp_mux.ApprovalRequest) -> acp_mux.Approve:
        calls.append(request.tool_name or "")
        return acp_mux.Approve(always=True)  # "changes to notes.txt": the Edit is then allowed without asking

    policy = acp_mux.ask(once_always, allow=["execute:cat"], deny=["execute:cat"])
    async with acp_mux.run("demo", "write the notes", approvals=policy, **work) as run:
        events = [e async for e in run]
    assert calls == ["Write"]
    assert Path(work["cwd"], "notes.txt").read_text() == "alpha\ngamma\n"
    assert not any(e.type == "shell_start" for e in events)


def test_a_rule_that_names_nothing_is_refused_before_anything_runs(work):
    with pytest.raises(ValueError, match="KIND:TARGET"):
        acp_mux.run("demo", "hi", approvals=acp_mux.allow("everything"), **work)


async def test_the_default_policy_denies(work):
    async with acp_mux.run("demo", "write the notes", **work) as run:
        events = [e async for e in run]
    assert types(events).count("approval_denied") == 1 and not Path(work["cwd"], "notes.txt").exists()


async def test_manual_questions_wait_for_answer(work):
    async with acp_mux.run("demo", "write the notes", approvals=acp_mux.manual(), **work) as run:
        async for event in run:
            if isinstance(event, acp_mux.events.ApprovalRequestEvent):
                assert run.pending == [event.interaction_id]
                await run.answer(event.interaction_id, event.tool_name != "Bash")
        with pytest.raises(acp_mux.AgentMuxError):
            await run.answer("no-such-question", True)
    assert Path(work["cwd"], "notes.txt").read_text() == "alpha\ngamma\n"


async def test_cancel_ends_the_turn_cancelled_and_the_conversation_goes_on(work):
    async with acp_mux.run("demo", "hang", **work) as run:
        async for event in run:
            if event.type == "text_delta":
                await run.cancel()
        assert run.result is not None and run.result.stop_reason == "cancelled"
        await run.continue_("hello again")
        result = await run.wait()
    assert result.stop_reason == "end_turn" and result.text.strip() == "You said: hello again"


async def test_a_time_limit_ends_the_turn_with_the_typed_timeout_and_stops_the_agent(work):
    """``time_limit``: the agent process's budget (the runtime's run timeout); a turn that outlives it fails typed,
    never end_turn, and nothing of the agent is left."""
    async with acp_mux.run("demo", "slow", time_limit=1.0, **work) as run:
        events = [e async for e in run]
        assert run.result is not None and run.result.stop_reason == "error"
        assert run.result.error is not None and "ran past its time limit" in run.result.error.message
    assert "timeout" in types(events) and "text_delta" in types(events)
    assert agents_in(work["cwd"]) == []


async def test_a_second_prompt_goes_to_the_same_live_agent(work):
    async with acp_mux.run("demo", "first", **work) as run:
        first = await run.wait()
        pid_before = agents_in(work["cwd"])
        await run.continue_("second")
        second = await run.wait()
        assert agents_in(work["cwd"]) == pid_before != []
    assert first.native_session_id == second.native_session_id is not None
    assert second.text.strip() == "You said: second"


async def test_a_prompt_while_a_turn_runs_is_refused(work):
    async with acp_mux.run("demo", "slow", **work) as run:
        with pytest.raises(acp_mux.AgentMuxError, match="turn is running"):
            await run.continue_("again")
        await run.cancel()
        await run.wait()


async def test_a_stored_session_is_resumed_with_the_agents_own_session(work):
    async with acp_mux.run("demo", "first", **work) as run:
        first = await run.wait()
    async with acp_mux.run(None, "second", resume=first.session_id[:10], state_dir=work["state_dir"]) as again:
        events = [e async for e in again]
        assert again.session_id == first.session_id and again.cwd == work["cwd"]
    started = [e for e in events if isinstance(e, acp_mux.events.SessionStartEvent)]
    assert started and started[0].resumed and started[0].session_id == first.native_session_id
    listed = {r["sessionId"] for r in await sessions_listed(work["state_dir"])}
    assert first.session_id in listed


async def sessions_listed(state_dir: str) -> list[dict[str, Any]]:
    """``acp-mux sessions list --json``: the editor's own view of the store."""
    import json
    import sys

    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "acp_mux",
        "sessions",
        "list",
        "--json",
        env=dict(os.environ, ACP_MUX_STATE_DIR=state_dir),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    return [json.loads(line) for line in out.splitlines() if line.strip()]


async def test_a_session_an_editor_started_is_resumed_from_python(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=work["cwd"], mcp_servers=[])).session_id
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("from the editor")]), 30)
        assert result.stop_reason == "end_turn"
    async with acp_mux.run(None, "from python", resume=sid, state_dir=work["state_dir"]) as run:
        events = [e async for e in run]
        assert run.agent == "demo" and run.result is not None and run.result.stop_reason == "end_turn"
    assert any(isinstance(e, acp_mux.events.SessionStartEvent) and e.resumed for e in events)


async def test_typed_failures_are_results_not_end_turn(work):
    async with acp_mux.run("demo", "auth", **work) as run:
        auth = await run.wait()
    async with acp_mux.run("demo", "crash", **work) as run:
        crash = await run.wait()
    assert auth.stop_reason == "error" and auth.error is not None and auth.error.code == -32000
    assert "acp-mux --agent demo --login" in auth.error.message
    assert crash.stop_reason == "error" and crash.error is not None and "exit code 3" in crash.error.message


def test_an_agent_that_cannot_run_is_refused_with_the_fix(work, monkeypatch):
    with pytest.raises(acp_mux.AgentMuxError) as unknown:
        acp_mux.run("no-such-agent", "hi", **work)
    assert unknown.value.code == "SPAWN_ERROR"
    monkeypatch.setenv("ACP_MUX_DEMO_BIN", "/nonexistent/python")
    with pytest.raises(acp_mux.AgentMuxError, match="ACP_MUX_DEMO_BIN"):
        acp_mux.run("demo", "hi", **work)


async def test_an_exception_in_the_block_leaves_no_agent(work):
    with pytest.raises(KeyError):
        async with acp_mux.run("demo", "hang", **work) as run:
            async for event in run:
                if event.type == "text_delta":
                    assert agents_in(work["cwd"]) != []
                    raise KeyError("stop here")
    assert agents_in(work["cwd"]) == []


async def test_a_cancelled_task_leaves_no_agent_even_with_a_shell_running(work):
    started = asyncio.Event()

    async def converse() -> None:
        async with acp_mux.run("demo", "shell", approvals=acp_mux.allow("execute:count to 5"), **work) as run:
            async for event in run:
                if event.type == "shell_start":
                    started.set()

    task = asyncio.ensure_future(converse())
    await asyncio.wait_for(started.wait(), 30)
    assert len(agents_in(work["cwd"])) >= 2  # the agent and the command it runs
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert agents_in(work["cwd"]) == []


async def test_leaving_a_turn_half_read_stops_the_agent(work):
    async with acp_mux.run("demo", "slow", **work) as run:
        async for _event in run:
            break
        pids_during = agents_in(work["cwd"])
    assert pids_during and agents_in(work["cwd"]) == []
    assert not any(b"scripted_agent" in read_proc(pid, "cmdline") for pid in pids_during)


def test_every_public_name_is_listed_and_resolves() -> None:
    for name in acp_mux.__all__:
        assert getattr(acp_mux, name) is not None
    # two lists because mypy needs a static one where the names are defined: they must not drift apart
    assert sorted(acp_mux.api.__all__) == sorted(n for n in acp_mux.__all__ if n != "__version__")
    with pytest.raises(AttributeError):
        acp_mux.no_such_name  # noqa: B018


async def test_leaving_a_query_early_stops_its_agent(work):
    """``break`` out of ``query()``: the generator is closed as soon as it is dropped (asyncio's finalizer hook), and
    with it the agent; ``contextlib.aclosing`` makes that immediate."""
    from contextlib import aclosing

    async with aclosing(acp_mux.query("demo", "slow", **work)) as events:
        async for event in events:
            if event.type == "text_delta":
                assert agents_in(work["cwd"]) != []
                break
    assert agents_in(work["cwd"]) == []
    async for event in acp_mux.query("demo", "slow", **work):
        if event.type == "text_delta":
            break
    for _ in range(100):  # closed by the finalizer on the loop's next rounds
        if not agents_in(work["cwd"]):
            break
        await asyncio.sleep(0.05)
    assert agents_in(work["cwd"]) == []

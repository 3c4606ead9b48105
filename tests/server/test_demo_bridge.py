"""acp-mux driven end to end by the SDK's client side, with the bundled scripted agent behind it."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import acp
import pytest

from tests.procs import parent_of, pid_alive, pids
from tests.server.client import RecordingClient, bridge

pytestmark = pytest.mark.asyncio


async def start(conn: object, cwd: str, **caps: object) -> str:
    init = await conn.initialize(protocol_version=1, client_capabilities=caps or None)
    assert init.protocol_version == 1
    session = await conn.new_session(cwd=cwd, mcp_servers=[])
    return session.session_id


async def test_write_edit_turn_streams_text_thoughts_diffs_and_shell(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        result = await conn.prompt(session_id=sid, prompt=[acp.text_block("write the demo")])
    assert result.stop_reason == "end_turn"
    assert Path(work["cwd"], "notes.txt").read_text() == "alpha\ngamma\n"
    assert "I'll create notes.txt" in client.text()
    assert "notes file" in client.text("agent_thought_chunk")
    starts = client.of("tool_call")
    assert [s.kind for s in starts] == ["edit", "edit", "execute"]
    diffs = [c for u in client.of("tool_call_update") for c in (u.content or []) if c.type == "diff"]
    write, edit = diffs[0], diffs[1]
    assert write.path.endswith("notes.txt") and write.old_text is None and write.new_text == "alpha\nbeta\n"
    assert (edit.old_text, edit.new_text) == ("alpha\nbeta\n", "alpha\ngamma\n")  # the whole file, not a fragment
    statuses = {}
    for u in client.of("tool_call_update"):
        if u.status:
            statuses.setdefault(u.tool_call_id, []).append(u.status)
    assert all(s == ["in_progress", "completed"] for s in statuses.values()), statuses
    shell_text = [
        c.content.text for u in client.of("tool_call_update") for c in (u.content or []) if c.type == "content"
    ]
    assert any("alpha" in t and "gamma" in t for t in shell_text)
    assert client.of("plan")[-1].entries[0].status == "completed"
    usage = client.of("usage_update")
    assert usage and usage[-1].cost.amount == pytest.approx(0.0042)
    # each permission asked about a tool call the editor had already been shown, with all four option kinds
    shown = {s.tool_call_id for s in starts}
    assert len(client.permissions) == 3
    for call, options in client.permissions:
        assert call.tool_call_id in shown
        assert sorted(o.kind for o in options) == ["allow_always", "allow_once", "reject_always", "reject_once"]
    # each question is complete on its own (an editor may build its dialog from it alone): kind, title, the file as
    # an absolute location, and the change's whole-file diff first
    notes = str(Path(work["cwd"], "notes.txt"))
    (write_call, _), (edit_call, _) = client.permissions[:2]
    for call, before, after in ((write_call, None, "alpha\nbeta\n"), (edit_call, "alpha\nbeta\n", "alpha\ngamma\n")):
        assert call.kind == "edit" and call.title and "notes.txt" in call.title
        assert [loc.path for loc in call.locations] == [notes]
        first = call.content[0]
        assert first.type == "diff" and first.path == notes and (first.old_text, first.new_text) == (before, after)


@pytest.mark.parametrize("option", ["reject_once", "reject_always"])
async def test_rejected_permission_writes_nothing_and_fails_the_tool(work, option):
    client = RecordingClient(choose=lambda options, call: option)
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        result = await conn.prompt(session_id=sid, prompt=[acp.text_block("write the demo")])
    assert result.stop_reason == "end_turn"
    assert not Path(work["cwd"], "notes.txt").exists()
    final = [u for u in client.of("tool_call_update") if u.status in ("completed", "failed")]
    assert [u.status for u in final] == ["failed"]
    assert "will not write" in client.text()


async def test_allow_always_is_remembered_and_answered_by_the_bridge(work):
    client = RecordingClient(choose=lambda options, call: "allow_always")
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        assert (await conn.prompt(session_id=sid, prompt=[acp.text_block("write")])).stop_reason == "end_turn"
        asked_first = len(client.permissions)
        Path(work["cwd"], "notes.txt").unlink()
        assert (await conn.prompt(session_id=sid, prompt=[acp.text_block("write again")])).stop_reason == "end_turn"
    assert asked_first == 2  # Write and the command: "always allow changes to notes.txt" covered the Edit too
    assert len(client.permissions) == 2  # second turn: same file, same command — nobody was asked
    assert Path(work["cwd"], "notes.txt").read_text() == "alpha\ngamma\n"


async def test_reject_always_is_remembered(work):
    client = RecordingClient(choose=lambda options, call: "reject_always")
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        await conn.prompt(session_id=sid, prompt=[acp.text_block("write")])
        await conn.prompt(session_id=sid, prompt=[acp.text_block("write")])
    assert len(client.permissions) == 1
    assert not Path(work["cwd"], "notes.txt").exists()


async def test_cancel_mid_stream_answers_cancelled_and_next_prompt_works(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("slow please")]))
        while "word5" not in client.text():
            await asyncio.sleep(0.02)
        started = time.monotonic()
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 5)
        assert result.stop_reason == "cancelled"
        assert time.monotonic() - started < 5
        assert "word399" not in client.text()
        again = await conn.prompt(session_id=sid, prompt=[acp.text_block("hello there")])
        assert again.stop_reason == "end_turn"
        assert "You said: hello there" in client.text()


async def test_a_prompt_sent_right_after_a_cancel_is_not_taken_for_the_ignored_interrupt(work):
    """The cancelled turn ends, the editor at once sends a long prompt: the cancel's escalation (terminate an agent
    that ignores the interrupt) must not hit the new turn (seen with openclaw, whose next turn was killed)."""
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("slow please")]))
        while "word5" not in client.text():
            await asyncio.sleep(0.02)
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 5)).stop_reason == "cancelled"
        before = len(client.text())
        again = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("slow again")]), 60)
        assert again.stop_reason == "end_turn"
        assert "word399" in client.text()[before:]  # the whole answer: the agent was not terminated mid-turn


async def test_cancel_during_pending_permission(work):
    client = RecordingClient(hold_permissions=True)
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("write")]))
        await asyncio.wait_for(client.permission_event.wait(), 10)
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 5)
        assert result.stop_reason == "cancelled"
        assert not Path(work["cwd"], "notes.txt").exists()
        tool_updates = [u for u in client.of("tool_call_update") if u.status in ("completed", "failed")]
        assert [u.status for u in tool_updates] == ["failed"]  # nothing left dangling


async def test_cancel_escalates_when_the_agent_ignores_interrupts(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", "--", "--ignore-sigterm", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("hang")]))
        while "Thinking" not in client.text():
            await asyncio.sleep(0.02)
        started = time.monotonic()
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 8)).stop_reason == "cancelled"
        assert time.monotonic() - started < 8


@pytest.mark.parametrize(
    ("prompt", "stop_reason", "visible"),
    [
        ("please refuse", "refusal", "declined"),
        ("overflow", "max_tokens", None),
        ("maxturns", "max_turn_requests", "Stopped after"),
    ],
)
async def test_stop_reasons(work, prompt, stop_reason, visible):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(prompt)]), 20)
        assert result.stop_reason == stop_reason
        if visible:
            assert visible in client.text()
        again = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hi")]), 20)
        assert again.stop_reason == "end_turn"


async def test_a_rate_limit_fails_the_turn_with_a_typed_error_and_the_session_goes_on(work):
    """The agent gave up on its limit: a failed turn (never end_turn), shown once: by the error, not as text too."""
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        with pytest.raises(acp.RequestError) as err:
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("rate")]), 20)
        assert err.value.code == -32603 and "Rate limited or out of quota" in str(err.value)
        assert (err.value.data or {}).get("reason") == "rate_limited"
        assert "Rate limited" not in client.text()
        again = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hi")]), 20)
        assert again.stop_reason == "end_turn"


async def test_auth_error_is_auth_required_with_guidance(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        with pytest.raises(acp.RequestError) as err:
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("auth")]), 20)
    assert err.value.code == -32000
    assert "--login" in str(err.value.data) or "--login" in str(err.value)
    assert "Authentication failed" in str(err.value) and "Authentication failed" not in client.text()


async def test_crash_is_visible_with_stderr_and_an_error(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        with pytest.raises(acp.RequestError) as err:
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("crash")]), 20)
        assert err.value.code == -32603
        assert "exit code 3" in str(err.value)
        assert "panic: the scripted agent fell over" in str(err.value.data)  # its stderr's tail, with the error
        assert "exit code 3" not in client.text()
        again = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hello")]), 20)
        assert again.stop_reason == "end_turn"


async def test_inactivity_watchdog_turns_silence_into_an_error(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", "--inactivity-timeout", "1", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        with pytest.raises(acp.RequestError) as err:
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hang")]), 20)
    assert "no output" in str(err.value)
    assert "no output" not in client.text()


async def test_bad_requests_get_errors_and_the_bridge_keeps_serving(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        with pytest.raises(acp.RequestError) as unknown:
            await conn.prompt(session_id="nope", prompt=[acp.text_block("hi")])
        assert unknown.value.code == -32002
        with pytest.raises(acp.RequestError) as relative:
            await conn.new_session(cwd="relative/path", mcp_servers=[])
        assert relative.value.code == -32602
        with pytest.raises(acp.RequestError) as image:
            await conn.prompt(session_id=sid, prompt=[acp.image_block("aGVsbG8=", "image/png")])
        assert "cannot take images" in str(image.value)
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("slow")]))
        while not client.text():
            await asyncio.sleep(0.02)
        queued = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("second")]))
        await asyncio.sleep(0.1)
        assert not queued.done()  # queued behind the running turn, not refused
        await conn.cancel(session_id=sid)
        assert (await turn).stop_reason == "cancelled"
        assert (await queued).stop_reason == "cancelled"  # the cancel withdrew it too
        assert "You said: second" not in client.text()
        assert (await conn.prompt(session_id=sid, prompt=[acp.text_block("garbage")])).stop_reason == "end_turn"
        assert "Still here." in client.text()


async def test_sessions_survive_a_bridge_restart(work):
    first = RecordingClient()
    async with bridge(first, "--agent", "demo", **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        await conn.prompt(session_id=sid, prompt=[acp.text_block("write the file")])
    second = RecordingClient()
    async with bridge(second, "--agent", "demo", **work) as (conn, _):
        await conn.initialize(protocol_version=1)
        listed = await conn.list_sessions(cwd=work["cwd"])
        assert [s.session_id for s in listed.sessions] == [sid]
        assert listed.sessions[0].title == "write the file"
        await conn.load_session(session_id=sid, cwd=work["cwd"], mcp_servers=[])
        assert "write the file" in second.text("user_message_chunk")
        assert "I'll create notes.txt" in second.text()
        assert len(second.of("tool_call")) == 3
        result = await conn.prompt(session_id=sid, prompt=[acp.text_block("hello again")])
        assert result.stop_reason == "end_turn"
    third = RecordingClient()
    async with bridge(third, "--agent", "demo", **work) as (conn, _):
        await conn.initialize(protocol_version=1)
        await conn.resume_session(session_id=sid, cwd=work["cwd"], mcp_servers=[])
        assert third.of("agent_message_chunk") == []  # resume does not replay
        assert (await conn.prompt(session_id=sid, prompt=[acp.text_block("and again")])).stop_reason == "end_turn"


def _children(pid: int) -> list[int]:
    return [child for child in pids(live_only=False) if parent_of(child) == pid]


async def test_stdin_closed_mid_turn_leaves_no_process(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, proc):
        sid = await start(conn, work["cwd"])
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("hang")]))
        while "Thinking" not in client.text():
            await asyncio.sleep(0.02)
        agents = _children(proc.pid)
        assert agents, "the agent process should be running"
        proc.stdin.close()
        started = time.monotonic()
        await asyncio.wait_for(proc.wait(), 5)
        turn.cancel()
    deadline = time.monotonic() + 2
    while any(pid_alive(p) for p in agents) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not any(pid_alive(p) for p in agents)
    assert time.monotonic() - started < 2.5


async def test_initialize_is_fast_and_spawns_nothing(work):
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", **work) as (conn, proc):
        t = time.monotonic()
        init = await conn.initialize(protocol_version=3, client_capabilities={"auth": {"terminal": True}})
        assert time.monotonic() - t < 2
        assert init.protocol_version == 1
        assert init.agent_capabilities.load_session is True
        assert init.agent_capabilities.session_capabilities.list is not None
        assert _children(proc.pid) == []


async def test_a_fast_agent_loses_no_event(work):
    """Thousands of deltas written as fast as the agent can: every one reaches the editor, in order."""
    words = [f"w{i}" for i in range(6000)]
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", env={"ACP_MUX_DEMO_TEXT_DELAY": "0"}, **work) as (conn, _):
        sid = await start(conn, work["cwd"])
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(" ".join(words))]), 120)
    assert result.stop_reason == "end_turn"
    assert client.text() == "You said: " + " ".join(words) + " "

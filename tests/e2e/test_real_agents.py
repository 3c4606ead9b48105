"""The real claude, codex, gemini, pi, omp, hermes, opencode and copilot CLIs (pinned npm installs) behind acp-mux, driven by the SDK's client side.

Each CLI talks only to the scripted model server on 127.0.0.1 (tests/fakes/model_server.py). The tests skip only
when the CLI cannot be installed here, and say why.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import acp
import pytest

from acp_mux.adapters.registry import ENTRIES
from tests.e2e.harness import RealAgent, require_cli
from tests.e2e.test_claude_warm_up import answer_to, recorded_agent, until, written
from tests.server.client import RecordingClient, final_statuses

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

AGENTS = ["claude", "codex", "gemini", "pi", "omp", "hermes", "opencode", "copilot"]
WRITE_EDIT = "Create notes.txt with the lines alpha and beta, then change beta to gamma."
FOUR_OPTIONS = ["allow_always", "allow_once", "reject_always", "reject_once"]
TURN_TIMEOUT = 90
# copilot retries a 401 or 429 from a custom provider for seconds (with "Info: ... Retrying" lines) and nothing on
# its side turns that off; only the provider's `x-should-retry: false` does, which these scenarios send.
NO_RETRY = {"copilot": "_no_retry"}
# copilot offers no models in ACP with a custom provider (COPILOT_PROVIDER_BASE_URL): no model to switch to.
SWITCHES_MODELS = [name for name in AGENTS if name != "copilot"]


@pytest.fixture(params=AGENTS)
def agent(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent(request.param, require_cli(request.param), tmp_path)
    yield real
    real.close()


async def prompt(conn: Any, sid: str, text: str, timeout: float = TURN_TIMEOUT) -> Any:
    return await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), timeout)


def request_with(server: Any, text: str) -> dict[str, Any]:
    """The conversation request that carried ``text`` (CLIs also send side requests with tools, e.g. claude's
    background ones, so "the last request" is not necessarily the conversation)."""
    carrying = [r for r in server.requests if r["kind"] == "step" and text in json.dumps(r["body"])]
    assert carrying, f"no model request carried {text!r}"
    return carrying[-1]


async def assert_no_process_left(agent: RealAgent, within: float = 2.0) -> None:
    deadline = time.monotonic() + within
    while agent.processes() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert agent.processes() == [], "processes of this test still alive after the editor went away"


@dataclass
class AskedWhile:
    """What notes.txt held (None: absent) at the moment each permission request reached the editor, so a test can
    tell a request that came before its change from one that came after the agent had already written."""

    cwd: Path
    answer: str
    held: list[tuple[str, str | None]] = field(default_factory=list)  # (tool call id, notes.txt then)

    def choose(self, options: list[Any], call: Any) -> str:
        try:
            held: str | None = (self.cwd / "notes.txt").read_text()
        except FileNotFoundError:
            held = None
        self.held.append((call.tool_call_id, held))
        return self.answer

    def client(self) -> RecordingClient:
        return RecordingClient(choose=self.choose)


async def default_session(agent: RealAgent, conn: Any, client: RecordingClient) -> str:
    """A new session left in the mode it starts in: no set_session_mode. The mode the editor is told is the one the
    registry's asking fact names (for agents that report their own modes, the one they report)."""
    init = await conn.initialize(protocol_version=1, client_capabilities=None)
    assert init.protocol_version == 1
    new = await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])
    expected = ENTRIES[agent.name].asking.mode  # type: ignore[union-attr]
    updates = [u.current_mode_id for u in client.updates if u.session_update == "current_mode_update"]
    current = updates[-1] if updates else new.modes.current_mode_id if new.modes else None
    assert current in (None, expected), (current, expected)
    return new.session_id


def assert_asked_about_announced_calls(client: RecordingClient) -> set[str]:
    """Every request is about a tool call the editor had been shown, with the four options; the ids asked about."""
    announced = {u.tool_call_id for u in client.of("tool_call")}
    assert client.permissions, "the agent changed files without asking"
    for call, options in client.permissions:
        assert call.tool_call_id in announced, call.tool_call_id
        assert sorted(o.kind for o in options) == FOUR_OPTIONS
    return {call.tool_call_id for call, _ in client.permissions}


def program_of(call: Any) -> str:
    """The program a command tool call runs (``bash -lc 'echo hi'`` → ``echo``), from its raw input or title."""
    raw = call.raw_input if isinstance(call.raw_input, dict) else {}
    command = raw.get("command") or raw.get("cmd") or call.title or ""
    words = shlex.split(command if isinstance(command, str) else " ".join(command))
    if len(words) >= 3 and os.path.basename(words[0]) in ("bash", "sh", "zsh") and words[1] in ("-c", "-lc"):
        words = shlex.split(words[2])
    return os.path.basename(words[0]) if words else ""


def diffs_shown(client: RecordingClient, tool_call_id: str) -> list[Any]:
    """The diffs the editor shows for a call at the end: an update's ``content`` replaces the call's, so they are
    those of the last update that carried content."""
    contents = [
        u.content
        for u in client.updates
        if u.session_update in ("tool_call", "tool_call_update")
        and u.tool_call_id == tool_call_id
        and u.content is not None
    ]
    return [c for c in (contents[-1] if contents else []) if c.type == "diff"]


async def test_write_then_edit_with_permission_allowed(agent: RealAgent) -> None:
    """In the mode a new session starts in: a request before each change, while the file does not hold it yet, and
    each change shows its own diff."""
    agent.serve(f"{agent.name}_write_edit", delta_delay=0)
    asked = AskedWhile(agent.cwd, "allow_once")
    client = asked.client()
    async with agent.bridge(client) as (conn, _):
        sid = await default_session(agent, conn, client)
        result = await prompt(conn, sid, WRITE_EDIT)
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
    assert "notes.txt now contains alpha and gamma" in client.text()

    starts = {u.tool_call_id: u for u in client.of("tool_call")}
    edits = [u for u in starts.values() if u.kind == "edit"]
    assert len(edits) == 2, [(u.kind, u.title) for u in starts.values()]
    assert all(final_statuses(client)[u.tool_call_id] == "completed" for u in edits)
    for call in edits:  # the editor can follow along: each edit points at the file it touches
        located = [
            loc.path
            for u in client.updates
            if getattr(u, "tool_call_id", None) == call.tool_call_id
            for loc in (getattr(u, "locations", None) or [])
        ]
        assert any(path.endswith("notes.txt") for path in located), located
    write, edit = edits  # each change ends showing its own diff, on its own call
    assert any(
        d.path.endswith("notes.txt") and not d.old_text and d.new_text == "alpha\nbeta\n"
        for d in diffs_shown(client, write.tool_call_id)
    ), diffs_shown(client, write.tool_call_id)
    assert any(
        "beta" in (d.old_text or "") and "gamma" in d.new_text and "beta" not in d.new_text
        for d in diffs_shown(client, edit.tool_call_id)
    ), diffs_shown(client, edit.tool_call_id)

    # A request before each change, about an announced call, while the file did not hold that change yet.
    asked_ids = assert_asked_about_announced_calls(client)
    assert {u.tool_call_id for u in edits} <= asked_ids
    held = dict(asked.held)
    assert held[write.tool_call_id] is None, held  # the write was asked while notes.txt did not exist
    assert held[edit.tool_call_id] == "alpha\nbeta\n", held  # the edit was asked before gamma was in it
    asking = ENTRIES[agent.name].asking
    assert asking is not None
    if "commands" in asking.asks:  # (hermes: only those it deems dangerous) every command was asked about, but those
        # of the agent's own read-only list (codex, gemini), which the asking fact names
        unasked = [u for u in starts.values() if u.kind == "execute" and u.tool_call_id not in asked_ids]
        programs = [program_of(u) for u in unasked]
        assert all(p in asking.unasked_programs for p in programs), f"{agent.name} ran {programs} unasked"
    if agent.name == "codex":  # the scenario's shell command: asked (policy untrusted), shown as execute, with output
        shells = [u for u in starts.values() if u.kind == "execute"]
        assert len(shells) == 1 and final_statuses(client)[shells[0].tool_call_id] == "completed"
        assert shells[0].tool_call_id in asked_ids, "codex ran a command without asking in its default mode"
        shown = [
            c.content.text
            for u in client.of("tool_call_update")
            if u.tool_call_id == shells[0].tool_call_id
            for c in (u.content or [])
            if c.type == "content"
        ]
        assert any("hello-from-codex" in text for text in shown), shown
    if agent.name == "copilot":  # copilot's "Info: <path>" status lines are thoughts, never the answer
        assert "Info:" not in client.text() and "Info: " in client.text("agent_thought_chunk")
    if agent.name == "claude":  # Claude's own slash commands reach the editor's command menu
        commands = {c.name for u in client.of("available_commands_update") for c in u.available_commands}
        assert {"compact", "code-review"} <= commands and "login" not in commands  # (2.1.332 has no /review)
    await assert_no_process_left(agent)


async def test_write_then_edit_with_permission_rejected(agent: RealAgent) -> None:
    """Rejected in the default mode: nothing written, every asked call failed and never shown running."""
    agent.serve(f"{agent.name}_write_edit", delta_delay=0)
    asked = AskedWhile(agent.cwd, "reject_once")
    client = asked.client()
    async with agent.bridge(client) as (conn, _):
        sid = await default_session(agent, conn, client)
        result = await prompt(conn, sid, WRITE_EDIT)
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    assert not (agent.cwd / "notes.txt").exists()
    rejected = assert_asked_about_announced_calls(client)
    assert all(held is None for _, held in asked.held), asked.held  # every request came before any write
    writes = [u.tool_call_id for u in client.of("tool_call") if u.kind == "edit"]
    # (copilot ends the turn at the first "no", before any file change is tried)
    assert not writes or writes[0] in rejected, "the first file change was not asked about"
    status = final_statuses(client)
    assert all(status[tid] == "failed" for tid in rejected), status
    ran = {u.tool_call_id for u in client.of("tool_call_update") if u.status == "in_progress"}
    assert not rejected & ran, "a rejected tool call was shown as running"
    assert "completed" not in {status[tid] for tid in writes}
    await assert_no_process_left(agent)


async def test_allow_always_is_answered_by_the_bridge_next_time(agent: RealAgent) -> None:
    """ "Always allow changes to notes.txt", in the default mode: the editor is asked once, before the write; the
    edit that follows is answered by the bridge, whatever tool the agent uses for it."""
    agent.serve(f"{agent.name}_write_edit", delta_delay=0)
    asked = AskedWhile(agent.cwd, "allow_always")
    client = asked.client()
    async with agent.bridge(client) as (conn, _):
        sid = await default_session(agent, conn, client)
        result = await prompt(conn, sid, WRITE_EDIT)
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
    edits = [u for u in client.of("tool_call") if u.kind == "edit"]
    asked_about = assert_asked_about_announced_calls(client)
    assert len(edits) == 2 and len(asked_about & {u.tool_call_id for u in edits}) == 1, client.permissions
    assert dict(asked.held)[edits[0].tool_call_id] is None, asked.held  # asked before the write, not after
    assert all(final_statuses(client)[u.tool_call_id] == "completed" for u in edits)
    await assert_no_process_left(agent)


async def test_cancel_mid_stream_then_next_prompt_works(agent: RealAgent) -> None:
    server = agent.serve(f"{agent.name}_text", delta_delay=0.1)  # 200 deltas: 20 s if nobody cancels
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Tell me a long story.")]))
        deadline = time.monotonic() + 60
        while "Line 003" not in client.text():
            assert time.monotonic() < deadline and not turn.done(), agent.log()[-3000:]
            await asyncio.sleep(0.02)
        started = time.monotonic()
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 5)
        assert result.stop_reason == "cancelled"
        assert time.monotonic() - started < 5
        assert "Line 200" not in client.text()
        stream = server.wait_for(lambda r: r["kind"] == "step" and r["outcome"] is not None, timeout=5)
        assert stream is not None and stream["outcome"] in ("disconnected", "stopped"), (
            "the model stream was not dropped"
        )

        agent.rescript(f"{agent.name}_text", delta_delay=0)
        before = len(client.updates)
        again = await prompt(conn, sid, "Say it again, quickly.")
        assert again.stop_reason == "end_turn", agent.log()[-3000:]
        assert "Line 200" in "".join(
            u.content.text for u in client.updates[before:] if u.session_update == "agent_message_chunk"
        )
    await assert_no_process_left(agent)


@pytest.fixture(params=["omp", "hermes", "opencode", "copilot"])
def asks_then_breaks(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    """Agents whose own cancel-while-asking is broken: omp leaves the asked call pending forever; hermes fails the
    prompt on a "cancelled" answer and only queues the next one. The bridge repairs both. opencode (whose own is
    sound: the call fails, the prompt answers cancelled ~1-1.7 s later) proves the same contract on the real CLI;
    copilot answers cancelled but leaves the asked call pending for good: the bridge ends it."""
    real = RealAgent(request.param, require_cli(request.param), tmp_path)
    yield real
    real.close()


async def test_cancel_while_asking_then_next_prompt_works(asks_then_breaks: RealAgent) -> None:
    agent = asks_then_breaks
    agent.serve(f"{agent.name}_write_edit", delta_delay=0)
    client = RecordingClient(hold_permissions=True)
    async with agent.bridge(client) as (conn, _):
        sid = await default_session(agent, conn, client)
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block(WRITE_EDIT)]))
        await asyncio.wait_for(client.permission_event.wait(), TURN_TIMEOUT)
        started = time.monotonic()
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(turn, 5)
        assert result.stop_reason == "cancelled"
        assert time.monotonic() - started < 5
        ((asked, _),) = client.permissions
        assert final_statuses(client)[asked.tool_call_id] == "failed"  # never left pending
        assert "pending" not in final_statuses(client).values()

        client.hold_permissions = False
        agent.rescript(f"{agent.name}_text", delta_delay=0)
        before = len(client.updates)
        again = await prompt(conn, sid, "Start again, please.")
        assert again.stop_reason == "end_turn", agent.log()[-3000:]
        # the model answered the new prompt (the text scenario's step depends on the tool results in the history)
        request_with(agent.server, "Start again, please.")
        shown = "".join(u.content.text for u in client.updates[before:] if u.session_update == "agent_message_chunk")
        assert shown and "Queued" not in shown, shown
    await assert_no_process_left(agent)


async def test_auth_error_is_visible_and_ends_the_turn(agent: RealAgent) -> None:
    agent.serve("auth" + NO_RETRY.get(agent.name, ""))
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        started = time.monotonic()
        with pytest.raises(acp.RequestError) as err:
            await prompt(conn, sid, "hello", timeout=60)
        assert time.monotonic() - started < 60
    assert err.value.code == -32000  # ACP auth_required: editors offer the login flow
    shown = client.text() + str(err.value)  # the error is shown once: by the prompt's JSON-RPC error (issue 40)
    assert "401" in shown or "auth" in shown.lower(), shown
    login = ENTRIES[agent.name].login_command
    if login:  # the one command that fixes it
        assert "--login" in str(err.value.data) or "--login" in shown
    else:  # an agent without a login command (pi, omp sign in only inside their TUI): its hint says what to do
        assert ENTRIES[agent.name].auth_hint.split(",")[0] in str(err.value.data)
    await assert_no_process_left(agent)


async def test_rate_limit_is_visible_and_ends_the_turn(agent: RealAgent) -> None:
    server = agent.serve("rate" + NO_RETRY.get(agent.name, ""))
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        started = time.monotonic()
        outcome: Any
        try:
            outcome = (await prompt(conn, sid, "hello", timeout=60)).stop_reason
        except acp.RequestError as exc:  # some CLIs report 429 as a failed turn: a typed error is fine too
            outcome = exc
        assert time.monotonic() - started < 60
        assert any(r["status"] == 429 for r in server.requests)
        shown = client.text() + (str(outcome) if isinstance(outcome, acp.RequestError) else "")  # the error: once
        assert "rate" in shown.lower() or "429" in shown, (outcome, shown)
        assert outcome == "end_turn" or isinstance(outcome, acp.RequestError)
        # the session is still usable once the limit lifts
        agent.rescript(f"{agent.name}_text", delta_delay=0)
        assert (await prompt(conn, sid, "again")).stop_reason == "end_turn"
    await assert_no_process_left(agent)


async def test_codex_exec_transport_writes_edits_and_resumes(tmp_path: Path) -> None:
    """The fallback transport (``codex exec --json``, one process per turn) for a codex without app-server."""
    agent = RealAgent("codex", require_cli("codex"), tmp_path, extra_args=("--transport", "exec"))
    server = agent.serve("codex_write_edit", delta_delay=0)
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            first = await prompt(conn, sid, WRITE_EDIT)
            assert first.stop_reason == "end_turn", agent.log()[-3000:]
            assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
            edits = [u for u in client.of("tool_call") if u.kind == "edit"]
            assert len(edits) == 2 and all(final_statuses(client)[u.tool_call_id] == "completed" for u in edits)
            # exec's file_change items name the files but carry no patch text: locations, but no diffs
            located = {loc.path for u in client.of("tool_call_update") for loc in (u.locations or [])}
            assert str(agent.cwd / "notes.txt") in located
            second = await prompt(conn, sid, "Anything left?")
            assert second.stop_reason == "end_turn"
            # the second turn resumed the same codex thread: the model saw the first turn's three tool results
            assert request_with(server, "Anything left?")["step"] == 3
    finally:
        agent.close()
    await assert_no_process_left(agent)


async def test_session_survives_a_bridge_restart(agent: RealAgent) -> None:
    """session/load in a new acp-mux process replays the conversation and resumes the agent's own session."""
    server = agent.serve(f"{agent.name}_text", delta_delay=0)
    first = RecordingClient()
    async with agent.bridge(first) as (conn, _):
        sid = await agent.session(conn)
        assert (await prompt(conn, sid, "Remember the word pelican.")).stop_reason == "end_turn"
    await assert_no_process_left(agent)

    if agent.name == "gemini":  # gemini names session files by minute: a load in the same minute clobbers it
        await asyncio.sleep(61 - time.localtime().tm_sec)
    second = RecordingClient()
    async with agent.bridge(second) as (conn, _):
        await conn.initialize(protocol_version=1)
        listed = await conn.list_sessions(cwd=str(agent.cwd))
        assert [s.session_id for s in listed.sessions] == [sid]
        await conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
        assert "pelican" in second.text("user_message_chunk")  # the editor sees the old conversation again
        assert "Line 200" in second.text()
        assert (await prompt(conn, sid, "Which word?")).stop_reason == "end_turn"
    # the agent itself resumed its session: the model got the first turn back as history
    asked = request_with(server, "Which word?")
    assert "pelican" in json.dumps(asked["body"])
    await assert_no_process_left(agent)


@pytest.fixture(params=SWITCHES_MODELS)
def switching_agent(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent(request.param, require_cli(request.param), tmp_path)
    yield real
    real.close()


async def test_model_config_option_reaches_the_model_api(switching_agent: RealAgent) -> None:
    """session/set_config_option model: the next turn (same conversation) asks the API for the chosen model."""
    agent = switching_agent
    server = agent.serve(f"{agent.name}_text", delta_delay=0)
    chosen = {
        "claude": "haiku",
        "codex": "gpt-6-luna",  # one codex itself lists (model/list), which the editor is offered
        "gemini": "gemini-3-flash-preview",
        "pi": "fake/other-model",
        "omp": "fake/fake-model-2",
        "hermes": "custom:fake-model-2",
        "opencode": "fake/fake-model-2",
    }[agent.name]
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        assert (await prompt(conn, sid, "Remember the word heron.")).stop_reason == "end_turn"
        answer = await conn.set_config_option(config_id="model", session_id=sid, value=chosen)
        assert {o.id: o.current_value for o in answer.config_options}["model"] == chosen
        assert (await prompt(conn, sid, "Which word?")).stop_reason == "end_turn"
    asked = request_with(server, "Which word?")
    model = asked["body"].get("model") or asked["path"]  # Gemini's API names the model in the URL
    assert chosen.rsplit("/", 1)[-1].rsplit(":", 1)[-1] in model, model  # provider/id, provider:id (hermes)
    assert "heron" in json.dumps(asked["body"])  # same conversation, new model
    await assert_no_process_left(agent)


async def test_claude_plan_mode_writes_nothing(tmp_path: Path) -> None:
    """session/set_mode plan: Claude's own plan mode refuses the Write without even asking the editor."""
    agent = RealAgent("claude", require_cli("claude"), tmp_path)
    agent.serve("claude_write_edit", delta_delay=0)
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            await conn.set_session_mode(session_id=sid, mode_id="plan")
            assert client.of("current_mode_update")[-1].current_mode_id == "plan"
            result = await prompt(conn, sid, WRITE_EDIT)
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        assert not (agent.cwd / "notes.txt").exists()
        assert client.permissions == []
        edits = [u for u in client.of("tool_call") if u.kind == "edit"]
        assert edits and all(final_statuses(client)[u.tool_call_id] == "failed" for u in edits)
    finally:
        agent.close()
    await assert_no_process_left(agent)


async def test_claude_leaves_plan_mode_in_the_mode_the_user_picks(tmp_path: Path) -> None:
    """ExitPlanMode asks which mode to continue in; picking "accept edits" switches the session and the agent."""
    agent = RealAgent("claude", require_cli("claude"), tmp_path)
    agent.serve("claude_plan_exit", delta_delay=0)

    def pick_accept_edits(options: list[Any], call: Any) -> str:
        return next(o.option_id for o in options if o.option_id == "mode:acceptEdits")

    client = RecordingClient(choose=pick_accept_edits)
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            await conn.set_session_mode(session_id=sid, mode_id="plan")
            result = await prompt(conn, sid, "Plan, then create notes.txt.")
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        ((call, options),) = client.permissions  # only the plan was asked about: the Write ran in acceptEdits
        assert call.kind == "switch_mode"
        assert [o.option_id for o in options] == ["mode:acceptEdits", "mode:default", "reject_once"]
        assert [u.current_mode_id for u in client.of("current_mode_update")] == ["plan", "acceptEdits"]
        assert (agent.cwd / "notes.txt").read_text() == "alpha\nbeta\n"
        assert "notes.txt written" in client.text()
    finally:
        agent.close()
    await assert_no_process_left(agent)


async def test_claude_warmed_ahead_of_the_first_prompt_asks_the_model_nothing(tmp_path: Path) -> None:
    """A session opened without a prompt has Claude do its first-message work through the warm-up, by default on the
    pinned CLI: it is answered with no request to the model server before Enter, and the first prompt's request is
    the usual conversation (the warm-up added nothing to it)."""
    agent, log = recorded_agent(tmp_path, {})
    server = agent.serve("claude_text", delta_delay=0)
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            (warm_up,) = await until(lambda: written(log, "get_context_usage"))
            answered = await until(lambda: answer_to(log, warm_up))
            assert answered["msg"]["response"]["subtype"] == "success", answered
            await asyncio.sleep(1.0)  # the person types
            before = server.requests
            entered = time.time()
            result = await prompt(conn, sid, "Say your lines.")
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        assert before == []  # warmed without asking the model anything
        asked = request_with(server, "Say your lines.")
        assert "assistant" not in [m["role"] for m in asked["body"]["messages"]] and asked["time"] >= entered
        assert client.text().count("Line 0") >= 99 and "Line 200 of a long streamed answer." in client.text()
    finally:
        agent.close()
    await assert_no_process_left(agent)


# A 1x1 PNG.
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


async def test_an_image_in_the_prompt_reaches_the_model(agent: RealAgent) -> None:
    server = agent.serve(f"{agent.name}_text", delta_delay=0)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        blocks = [acp.text_block("What is in this picture?"), acp.image_block(PIXEL, "image/png")]
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=blocks), TURN_TIMEOUT)
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    body = json.dumps([r["body"] for r in server.requests if r["kind"] == "step"])
    assert "What is in this picture?" in body
    if agent.name == "omp":  # omp re-encodes every image as WebP before it sends it
        assert '"image_url": {"url": "data:image/webp;base64,' in body
    else:
        assert PIXEL in body
    await assert_no_process_left(agent)


@pytest.mark.parametrize("mode", ["plan", "allow-all"])
async def test_opencode_plan_refuses_edits_and_allow_all_asks_nothing(tmp_path: Path, mode: str) -> None:
    """opencode's modes are its agents: plan denies writes and edits by its own rules (commands still ask);
    allow-all, the agent acp-mux adds, asks nothing at all, as its name says."""
    agent = RealAgent("opencode", require_cli("opencode"), tmp_path)
    agent.serve("opencode_write_edit", delta_delay=0)
    client = RecordingClient(choose=lambda options, call: "allow_once")
    try:
        async with agent.bridge(client) as (conn, _):
            await conn.initialize(protocol_version=1, client_capabilities=None)
            session = await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])
            await conn.set_session_mode(session_id=session.session_id, mode_id=mode)
            result = await prompt(conn, session.session_id, WRITE_EDIT)
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        # the editor was shown opencode's modes, acp-mux's allow-all among them (the one it picked is confirmed by
        # set_session_mode's answer; what follows proves opencode runs in it)
        shown = [
            o for u in client.of("config_option_update") for o in u.model_dump()["config_options"] if o["id"] == "mode"
        ]
        assert shown and sorted(c["value"] for c in shown[-1]["options"]) == ["allow-all", "build", "plan"], shown
        edits = [u.tool_call_id for u in client.of("tool_call") if u.kind == "edit"]
        statuses = final_statuses(client)
        if mode == "plan":
            assert not (agent.cwd / "notes.txt").exists()
            assert edits and all(statuses[tid] == "failed" for tid in edits)
            assert client.permissions and all(call.kind == "execute" for call, _ in client.permissions)
        else:
            assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
            assert client.permissions == []
            assert len(edits) == 2 and all(statuses[tid] == "completed" for tid in edits)
    finally:
        agent.close()
    await assert_no_process_left(agent)


async def test_opencode_edits_reach_an_editor_that_offers_files(tmp_path: Path) -> None:
    """opencode sends fs/write_text_file after each allowed edit question (it also writes the file itself): an
    editor that offered fs gets each new content, so its buffer follows; the bridge writes nothing of its own."""

    @dataclass
    class FilesClient(RecordingClient):
        writes: list[tuple[str, str]] = field(default_factory=list)

        async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> None:
            self.writes.append((path, content))
            Path(path).write_text(content)  # what an editor does with the buffer it saves

    agent = RealAgent("opencode", require_cli("opencode"), tmp_path)
    agent.serve("opencode_write_edit", delta_delay=0)
    client = FilesClient(choose=lambda options, call: "allow_once")
    try:
        async with agent.bridge(client) as (conn, _):
            fs = {"fs": {"readTextFile": True, "writeTextFile": True}}
            await conn.initialize(protocol_version=1, client_capabilities=fs)
            session = await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])
            result = await prompt(conn, session.session_id, WRITE_EDIT)
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        notes = str(agent.cwd / "notes.txt")
        assert client.writes == [(notes, "alpha\nbeta\n"), (notes, "alpha\ngamma\n")]
        assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
    finally:
        agent.close()
    await assert_no_process_left(agent)


async def test_copilot_asks_in_acp_muxs_default_mode_and_names_its_modes_short(tmp_path: Path) -> None:
    """No mode chosen: copilot's session starts in "agent" (its URL id shown short, with its names) and asks before
    the command and the edits; autopilot and allow_all are offered, never on."""
    agent = RealAgent("copilot", require_cli("copilot"), tmp_path)
    agent.serve("copilot_write_edit", delta_delay=0)
    client = RecordingClient(choose=lambda options, call: "allow_once")
    try:
        async with agent.bridge(client) as (conn, _):
            await conn.initialize(protocol_version=1, client_capabilities=None)
            session = await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])
            result = await prompt(conn, session.session_id, WRITE_EDIT)
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        # the bridge answers session/new at once; copilot's modes and settings reach the editor as updates
        shown = {o["id"]: o for u in client.of("config_option_update") for o in u.model_dump()["config_options"]}
        assert [(c["value"], c["name"]) for c in shown["mode"]["options"]] == [
            ("agent", "Agent"),
            ("plan", "Plan"),
            ("autopilot", "Autopilot"),
        ], shown["mode"]
        assert shown["mode"]["current_value"] == "agent"
        assert shown["allow_all"]["current_value"] == "off"
        asked = [call.kind for call, _ in client.permissions]
        assert asked == ["execute", "edit", "edit", "execute"], asked
        assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
    finally:
        agent.close()
    await assert_no_process_left(agent)


async def test_copilot_retries_read_as_retries_then_the_auth_error(tmp_path: Path) -> None:
    """Without `x-should-retry: false` copilot retries a 401 twice, saying so in "Info: … Retrying..." text lines:
    the editor reads the same retry notes as for every agent, never "Info:" as the answer, then auth_required."""
    agent = RealAgent("copilot", require_cli("copilot"), tmp_path)
    server = agent.serve("auth")
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            with pytest.raises(acp.RequestError) as err:
                await prompt(conn, sid, "hello", timeout=60)
    finally:
        agent.close()
    assert err.value.code == -32000
    assert len([r for r in server.requests if r["status"] == 401]) == 3
    shown = client.text()
    assert "retrying, attempt 1: Request failed due to a transient API error" in shown, shown
    assert "retrying, attempt 2:" in shown and "Info:" not in shown and "Error:" not in shown, shown
    await assert_no_process_left(agent)

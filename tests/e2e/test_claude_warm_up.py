"""Claude's warm-up never holds a prompt up: proven on the pinned CLI (2.1.332) through acp-mux, from the lines the
CLI read and wrote (``line_recorder.py``) and the model server's request log, with a slow endpoint (count_tokens: 1 s).

By default acp-mux warms only a CLI that answers the warm-up without its model endpoint (2.1.318 and later), knowing
the version from the ``initialize`` answer (2.1.332 names it there) or else asking for it: the pinned 2.1.332 is one,
so it is warmed by default, right behind its ``initialize`` answer. The
previously pinned 2.1.197 was not (forced on, it read no prompt until ~14 count_tokens requests were answered); its
real version answer is replayed in ``tests/adapters/test_claude.py``, which keeps it unwarmed.

Beside the warm-up, also before the first prompt: a new session is named by acp-mux (``--session-id``), so Claude's
slash commands reach the editor with its ``initialize`` answer; the record keeps that id only once a prompt reached
Claude (a reload before it starts afresh).
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]

RECORDER = Path(__file__).with_name("line_recorder.py")
TURN_TIMEOUT = 90
SLOW = 1.0  # seconds the scripted endpoint takes for each count_tokens


def recorded_agent(tmp_path: Path, env: dict[str, str], name: str = "claude") -> tuple[RealAgent, Path]:
    """The pinned CLI ``name`` behind a recorder of its stdin and stdout (same clock as the model server's log)."""
    log, wrapper = tmp_path / "lines.jsonl", tmp_path / "bin" / name
    wrapper.parent.mkdir()
    real = require_cli(name)
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{RECORDER}" "{log}" "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return RealAgent(name, wrapper, tmp_path, extra_env=env), log


def lines(log: Path) -> list[dict[str, Any]]:
    """The recorded lines, parsed (``msg``), oldest first. Only whole records: the test reads the log while the
    recorder appends to it, and a large record (Claude's initialize answer) may be caught half written."""
    text = log.read_text() if log.exists() else ""
    records = [json.loads(r) for r in text[: text.rfind("\n") + 1].splitlines()]
    return [{**r, "msg": json.loads(r["line"])} for r in records if r["line"].startswith("{")]


def written(log: Path, what: str) -> list[dict[str, Any]]:
    """Lines acp-mux wrote to the CLI: control requests by subtype (``what``), or ``"user"`` for prompts."""

    def name(m: dict[str, Any]) -> str:
        return str(m.get("request", {}).get("subtype")) if m.get("type") == "control_request" else str(m.get("type"))

    return [r for r in lines(log) if r["dir"] == "in" and name(r["msg"]) == what]


def answer_to(log: Path, request: dict[str, Any]) -> dict[str, Any] | None:
    """The CLI's control_response to the recorded ``request`` line, if it came."""
    rid = request["msg"]["request_id"]
    return next(
        (r for r in lines(log) if r["dir"] == "out" and r["msg"].get("response", {}).get("request_id") == rid), None
    )


async def until(check: Any, timeout: float = 60) -> Any:
    """Poll ``check()`` until it returns something truthy (the CLI's start takes seconds under load)."""
    for _ in range(int(timeout / 0.02)):
        if value := check():
            return value
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


async def ask(conn: Any, sid: str, text: str) -> Any:
    return await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), TURN_TIMEOUT)


def step_request(server: Any, text: str) -> dict[str, Any]:
    (request,) = [r for r in server.requests if r["kind"] == "step" and text in json.dumps(r["body"])]
    return request


async def test_by_default_a_prompt_right_after_session_new_waits_for_no_warm_up(tmp_path: Path) -> None:
    """The editor's prompt sent the moment session/new is answered: written to the CLI at once, and the model
    request that answers it is the first thing the endpoint sees (no count_tokens before it, however slow)."""
    agent, log = recorded_agent(tmp_path, {})
    server = agent.serve("claude_text", delta_delay=0, count_tokens_delay=SLOW)
    try:
        async with agent.bridge(RecordingClient()) as (conn, _):
            sid = await agent.session(conn)
            result = await ask(conn, sid, "Say your lines.")
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        (user,) = written(log, "user")
        assert written(log, "get_context_usage") == []
        assert [r["kind"] for r in server.requests if r["time"] < step_request(server, "Say your lines.")["time"]] == []
        assert all(r["time"] < user["time"] for r in written(log, "initialize"))
    finally:
        agent.close()


def model_requests_before(server: Any, text: str) -> list[str]:
    """The kinds of the endpoint's requests that came before the one carrying ``text`` (a prompt's model request)."""
    return [r["kind"] for r in server.requests if r["time"] < step_request(server, text)["time"]]


@pytest.mark.parametrize("env", [{}, {"ACP_MUX_CLAUDE_PREWARM": "1"}], ids=["default", "forced-on"])
async def test_a_prompt_right_after_the_warm_up_went_out_waits_for_no_count_tokens(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The pinned 2.1.332 is warmed by default: its ``initialize`` answer names its version, so it gets the warm-up
    (``get_context_usage``, ``detail: summary``) right behind that answer, with no version question, and answers it
    without its model endpoint. A prompt sent the moment the warm-up went out is written at once, and its model
    request is the first thing the slow endpoint sees (no count_tokens at all), so it is not held behind the
    warm-up. Forced on: the same. (2.1.197 was not warmed by default for this reason: it answered the warm-up only
    after ~14 count_tokens requests, and read no prompt meanwhile; its initialize answer names no version, so the
    default asks it.)"""
    agent, log = recorded_agent(tmp_path, env)
    server = agent.serve("claude_text", delta_delay=0, count_tokens_delay=SLOW)
    try:
        async with agent.bridge(RecordingClient()) as (conn, _):
            sid = await agent.session(conn)
            (warm_up,) = await until(lambda: written(log, "get_context_usage"))
            result = await ask(conn, sid, "Say your lines.")
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        assert warm_up["msg"]["request"] == {"subtype": "get_context_usage", "detail": "summary"}
        assert written(log, "get_binary_version") == []  # the initialize answer said the version
        (initialize,) = written(log, "initialize")
        initialized = answer_to(log, initialize)
        assert (
            initialized is not None and initialized["msg"]["response"]["response"]["claude_code_version"] == "2.1.332"
        )
        assert initialized["time"] < warm_up["time"]  # the warm-up follows the initialize answer
        answered = answer_to(log, warm_up)
        assert answered is not None and answered["msg"]["response"]["subtype"] == "success"
        (user,) = written(log, "user")
        assert user["time"] > warm_up["time"]
        assert model_requests_before(server, "Say your lines.") == []
        assert [r["kind"] for r in server.requests] == ["step"], [r["kind"] for r in server.requests]
    finally:
        agent.close()


def record_of(agent: RealAgent, session_id: str) -> dict[str, Any]:
    return json.loads((agent.root / "state" / "sessions" / f"{session_id}.json").read_text())


async def reopen_and_ask(agent: RealAgent, sid: str) -> None:
    """Another bridge (another editor window) reopens the session and its prompt is answered."""
    async with agent.bridge(RecordingClient()) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=None)
        await conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
        result = await ask(conn, sid, "Say your lines.")
        assert result.stop_reason == "end_turn", agent.log()[-3000:]


async def test_a_new_sessions_commands_come_before_its_first_prompt_and_a_reload_before_one_starts_afresh(
    tmp_path: Path,
) -> None:
    """The pinned 2.1.332 through acp-mux and the SDK client: the session is named by acp-mux (``--session-id``,
    a UUID), so Claude's slash commands reach the editor with its ``initialize`` answer, before any prompt. That id
    is kept in the record only once a prompt reached Claude: a session reopened by another bridge before its first
    prompt starts Claude afresh and answers (Claude itself cannot resume a session it never wrote); one reopened
    after a prompt resumes Claude's own session."""
    agent, log = recorded_agent(tmp_path, {})
    agent.serve("claude_text", delta_delay=0)
    try:
        client = RecordingClient()
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            await until(lambda: client.of("available_commands_update"))
            commands = {c.name for u in client.of("available_commands_update") for c in u.available_commands}
            assert {"compact", "code-review"} <= commands and "login" not in commands
            assert written(log, "user") == []  # before any prompt
            assert record_of(agent, sid)["native_session_id"] is None
        await reopen_and_ask(agent, sid)
        claude_sid = record_of(agent, sid)["native_session_id"]
        assert claude_sid and str(uuid.UUID(claude_sid)) == claude_sid
        assert [r["msg"].get("session_id") for r in lines(log) if r["msg"].get("subtype") == "init"][-1] == claude_sid
        await reopen_and_ask(agent, sid)
        assert record_of(agent, sid)["native_session_id"] == claude_sid  # resumed: Claude's own session again
    finally:
        agent.close()

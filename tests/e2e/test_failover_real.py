"""Issue 24, part 1, on the real CLIs: claude 2.1.332 hits its usage limit (the scripted model answers as the real
API does at an account's limit: a 429 with ``anthropic-ratelimit-unified-status: rejected`` and its reset time,
which claude reads for a claude.ai login), codex 0.169.0 is usable; the SDK client is asked, in the editor, whether
to carry on, picks codex, and the same prompt is answered by codex with the conversation handed over, in one
session. A transient 429 ("not your usage limit") is only shown: no question, the typed rate-limit error."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
import pytest

from acp_mux.translation.stop_reasons import reset_time
from tests.e2e.harness import ClaudeAndCodex, require_cli
from tests.e2e.test_switching import prompt
from tests.e2e.test_switching_handover import agent_groups, strings
from tests.faults.test_handover_forgery import read_back
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

FIRST, SECOND = "Where is the parser?", "And where are its tests?"


class LimitedClaude(ClaudeAndCodex):
    """claude and codex behind one acp-mux, claude signed in as a claude.ai subscriber (an OAuth token instead of an
    API key): only then does claude (2.1.197 and the pinned 2.1.332) read the unified rate-limit headers and report a usage limit as one."""

    default_agent = "claude"

    def env(self) -> dict[str, str]:
        env = super().env()
        env.pop("ANTHROPIC_API_KEY", None)
        env["CLAUDE_CODE_OAUTH_TOKEN"] = "sk-ant-oat01-fake"
        env["ACP_MUX_DEFAULT_AGENT"] = self.default_agent
        return env


def step_requests(server: Any, text: str, path: str) -> list[dict[str, Any]]:
    return [r for r in server.requests if r["kind"] == "step" and path in r["path"] and text in json.dumps(r["body"])]


def carrying_on(agents: LimitedClaude, to: str) -> tuple[RecordingClient, list[tuple[Any, list[Any]]]]:
    """A client that, asked at the usage limit, picks carrying on with ``to`` (its model now answers: the scenario
    ``failover_<to>``), and the (question, options) it was asked, to check."""
    asked: list[tuple[Any, list[Any]]] = []

    def carry_on(options: list[Any], call: Any) -> str | None:
        asked.append((call, options))
        agents.rescript(f"failover_{to}", delta_delay=0)
        return next((o.option_id for o in options if o.option_id == f"failover:{to}"), None)

    return RecordingClient(choose=carry_on), asked


@pytest.mark.parametrize("entry", ["auto", "claude"])
async def test_claude_at_its_usage_limit_the_person_picks_codex_and_codex_answers_the_same_prompt(
    tmp_path: Path, entry: str
) -> None:
    """Both entries: the every-agent one, and ``--agent claude`` (the session becomes an every-agent one)."""
    agents = LimitedClaude(entry, require_cli("claude"), tmp_path)
    server = agents.serve("failover_claude", delta_delay=0)
    client, asked = carrying_on(agents, "codex")  # codex's model answers; claude's is still at its limit
    try:
        async with agents.bridge(client) as (conn, proc):
            sid = await agents.session(conn)
            first = await prompt(conn, sid, FIRST)
            assert first.stop_reason == "end_turn", agents.log()[-3000:]
            agents.rescript("failover_claude", delta_delay=0, error="quota")
            second = await prompt(conn, sid, SECOND)
            assert second.stop_reason == "end_turn", agents.log()[-3000:]
            assert len(agent_groups(proc.pid)) == 1  # claude is gone: one agent per session
        [(call, options)] = asked
        assert [o.name for o in options] == ["Stop", "Carry on with Codex"]
        [limited] = step_requests(server, SECOND, "/messages")  # claude was sent the prompt once, and failed
        assert limited["status"] == 429 and limited["resets_at"]
        assert "usage limit" in call.title and reset_time(limited["resets_at"]) in call.title
        [carried] = step_requests(server, SECOND, "/responses")  # codex got it once
        handed = [s for s in strings(carried["body"]) if SECOND in s]
        assert len(handed) == 1 and handed[0].count(SECOND) == 1, handed
        records, message = read_back(handed[0])
        assert [(r["person"], r["agent"]) for r in records] == [(FIRST, "claude")]
        assert "src/parse.py" in records[0]["reply"] and message.strip() == SECOND
        shown = client.text()
        # the limit, then codex's answer (the limit's own message is the failed prompt's, shown once: issue 40)
        assert "hit its usage limit" in shown and "tests/test_parse.py" in shown, shown
        assert shown.index("hit its usage limit") < shown.index("tests/test_parse.py")
        options_now = client.of("config_option_update")[-1].config_options
        assert {o.id: o.current_value for o in options_now}[
            "agent"
        ] == "codex"  # the Agent option (also --agent claude)
        again = RecordingClient()  # the bridge restarted: the session comes back, with codex and the whole turn
        async with agents.bridge(again) as (conn, _):
            await conn.initialize(protocol_version=1)
            assert [s.session_id for s in (await conn.list_sessions(cwd=str(agents.cwd))).sessions] == [sid]
            loaded = await conn.load_session(session_id=sid, cwd=str(agents.cwd), mcp_servers=[])
        assert {o.id: o.current_value for o in loaded.config_options}["agent"] == "codex"
        replayed = again.text()
        assert replayed.index("hit your 5-hour limit") < replayed.index("tests/test_parse.py")
        assert "".join(u.content.text for u in again.of("user_message_chunk")).count(SECOND) == 1
    finally:
        agents.close()


async def test_a_transient_429_is_shown_with_its_typed_error_and_no_offer(tmp_path: Path) -> None:
    agents = LimitedClaude("auto", require_cli("claude"), tmp_path)
    server = agents.serve("failover_claude", delta_delay=0, error="rate", error_headers={"x-should-retry": "false"})
    client = RecordingClient(choose=lambda options, call: "failover:codex")
    try:
        async with agents.bridge(client) as (conn, _):
            sid = await agents.session(conn)
            with pytest.raises(acp.RequestError) as failed:
                await prompt(conn, sid, FIRST)
        assert failed.value.data is not None and failed.value.data["limit"] == "rate", failed.value.data
        assert "not your usage limit" in str(failed.value)
        assert client.permissions == [] and not [r for r in server.requests if "/responses" in r["path"]]
    finally:
        agents.close()


async def test_codex_at_its_usage_limit_names_the_reset_time_from_its_rate_limits_and_claude_carries_on(
    tmp_path: Path,
) -> None:
    """codex 0.169.0 at its limit: ``usageLimitExceeded`` (no retry) after ``account/rateLimits/updated`` with the
    used-up window's ``resetsAt``, which the question names; claude answers the same prompt."""
    agents = LimitedClaude("auto", require_cli("claude"), tmp_path)
    agents.default_agent = "codex"
    server = agents.serve("failover_codex", delta_delay=0, error="quota")
    client, asked = carrying_on(agents, "claude")
    try:
        async with agents.bridge(client) as (conn, _):
            sid = await agents.session(conn)
            answered = await prompt(conn, sid, FIRST)
            assert answered.stop_reason == "end_turn", agents.log()[-3000:]
        [(call, options)] = asked
        assert [o.name for o in options] == ["Stop", "Carry on with Claude Code"]
        [limited] = step_requests(server, FIRST, "/responses")
        assert reset_time(limited["resets_at"]) in call.title, call.title
        [carried] = step_requests(server, FIRST, "/messages")
        assert [s for s in strings(carried["body"]) if FIRST in s] == [FIRST]  # nothing earlier to hand over
        assert "src/parse.py" in client.text()
    finally:
        agents.close()


@dataclass
class FormClient(RecordingClient):
    """An editor that declared form elicitation: the question comes as a form; it picks ``pick``."""

    forms: list[dict[str, Any]] = field(default_factory=list)
    on_form: Any = None

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> dict[str, Any]:
        self.forms.append({"message": message, **mode.model_dump(mode="json", by_alias=True, exclude_none=True)})
        self.on_form()
        return {"action": "accept", "content": {"agent": "codex"}}


async def test_an_editor_with_forms_is_asked_by_a_form_and_codex_carries_on(tmp_path: Path) -> None:
    agents = LimitedClaude("auto", require_cli("claude"), tmp_path)
    server = agents.serve("failover_claude", delta_delay=0, error="quota")
    client = FormClient(on_form=lambda: agents.rescript("failover_codex", delta_delay=0))
    try:
        async with agents.bridge(client, unstable=True) as (conn, _):
            await conn.initialize(protocol_version=1, client_capabilities={"elicitation": {"form": {}}})
            sid = (await conn.new_session(cwd=str(agents.cwd), mcp_servers=[])).session_id
            answered = await prompt(conn, sid, FIRST)
            assert answered.stop_reason == "end_turn", agents.log()[-3000:]
        [form] = client.forms
        [limited] = step_requests(server, FIRST, "/messages")
        assert "requestedSchema" in form and reset_time(limited["resets_at"]) in form["message"]
        choices = form["requestedSchema"]["properties"]["agent"]["oneOf"]
        assert [(c["const"], c["title"]) for c in choices] == [("codex", "Carry on with Codex"), ("stop", "Stop")]
        assert client.permissions == [] and len(step_requests(server, FIRST, "/responses")) == 1
        assert "tests/test_parse.py" in client.text()
    finally:
        agents.close()


async def test_claude_limited_with_a_reset_in_milliseconds_ends_with_the_typed_error_and_a_sane_time(
    tmp_path: Path,
) -> None:
    """Issue 39, class 1: a limit's numbers are input. The usage limit's reset comes in milliseconds (claude passes
    the header's number on as ``resetsAt``): the question names the right time, and "Stop" ends the prompt with
    the typed rate-limit error, ``resetsAt`` in epoch seconds (before: -32603 "failed to handle session/prompt")."""
    agents = LimitedClaude("auto", require_cli("claude"), tmp_path)
    server = agents.serve("failover_claude", delta_delay=0, error="quota", quota_reset_unit="ms")
    asked: list[Any] = []
    client = RecordingClient(choose=lambda options, call: asked.append(call) or "failover:stop")
    try:
        async with agents.bridge(client) as (conn, _):
            sid = await agents.session(conn)
            with pytest.raises(acp.RequestError) as failed:
                await prompt(conn, sid, FIRST)
        [limited] = step_requests(server, FIRST, "/messages")
        resets = limited["resets_at"]  # epoch seconds; the header carried resets * 1000
        assert failed.value.data is not None and failed.value.data["resetsAt"] == resets, failed.value
        assert failed.value.data["limit"] == "quota" and "58880" not in str(failed.value)
        assert reset_time(resets) in str(failed.value)
        [call] = asked
        assert "usage limit" in call.title and reset_time(resets) in call.title, call.title
    finally:
        agents.close()


async def test_limited_at_the_first_prompt_of_a_claude_entry_the_session_stays_in_that_entry(tmp_path: Path) -> None:
    """Issue 39, class 2: the limit hits the very first prompt of an ``--agent claude`` session (claude never
    answered, so the session has no claude session of its own); the person carries on with codex. After a restart
    the session is listed and loaded in the same ``--agent claude`` entry, with codex and the whole turn (before:
    "no claude session")."""
    agents = LimitedClaude("claude", require_cli("claude"), tmp_path)
    agents.serve("failover_claude", delta_delay=0, error="quota")
    client, asked = carrying_on(agents, "codex")
    try:
        async with agents.bridge(client) as (conn, _):
            sid = await agents.session(conn)
            first = await prompt(conn, sid, FIRST)
            assert first.stop_reason == "end_turn", agents.log()[-3000:]
        assert len(asked) == 1
        again = RecordingClient()
        async with agents.bridge(again) as (conn, _):
            await conn.initialize(protocol_version=1)
            listed = await conn.list_sessions(cwd=str(agents.cwd))
            assert [s.session_id for s in listed.sessions] == [sid]
            loaded = await conn.load_session(session_id=sid, cwd=str(agents.cwd), mcp_servers=[])
            assert {o.id: o.current_value for o in loaded.config_options}["agent"] == "codex"
            replayed = again.text()
            assert "tests/test_parse.py" in replayed, replayed
            agents.rescript("failover_codex", delta_delay=0)
            after = await prompt(conn, sid, SECOND)  # the loaded session goes on with codex
            assert after.stop_reason == "end_turn", agents.log()[-3000:]
        assert "".join(u.content.text for u in again.of("user_message_chunk")).count(FIRST) == 1
    finally:
        agents.close()


async def test_acp_mux_run_reports_claudes_limit_with_a_reset_in_milliseconds_as_a_failed_prompt(
    tmp_path: Path,
) -> None:
    """The same limit through ``acp-mux run`` (the Python API): exit 3 and the typed error with the right time
    (before: its event handler raised on the millisecond reset, the exception was only logged, and the run
    printed "stop reason: end_turn" and exited 0)."""
    import asyncio
    import sys

    agents = LimitedClaude("claude", require_cli("claude"), tmp_path)
    server = agents.serve("failover_claude", delta_delay=0, error="quota", quota_reset_unit="ms")
    try:
        run = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "acp_mux", "run", "--agent", "claude", FIRST,
            cwd=str(agents.cwd), env=agents.env(), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(run.communicate(), 120)
        [limited] = step_requests(server, FIRST, "/messages")
        shown = out.decode()
        assert run.returncode == 3, (run.returncode, shown[-2000:], err.decode()[-2000:])
        assert "the prompt failed: error -32603: Usage limit reached" in shown, shown[-2000:]
        assert f"It resets at {reset_time(limited['resets_at'])}." in shown and "58880" not in shown
    finally:
        agents.close()

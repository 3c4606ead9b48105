"""pi behind acp-mux with the permission dialogs acp-mux gives it (its own pi extension), on the real CLI.

The parametrized tests in ``test_real_agents.py`` cover pi's write-then-edit (allowed, rejected), cancel, auth and
rate-limit errors, resume after a bridge restart, a model switch and an image. These cover what only pi has: the
modes the extension serves ("allow always" honoured without asking again, accept edits, bypass), and the truthful
fallback when the extension cannot load.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.e2e.test_real_agents import WRITE_EDIT, assert_no_process_left, final_statuses, prompt
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]


@pytest.fixture
def pi(tmp_path: Path) -> Iterator[RealAgent]:
    agent = RealAgent("pi", require_cli("pi"), tmp_path)
    agent.serve("pi_write_edit", delta_delay=0)
    yield agent
    agent.close()


def asked_tools(client: RecordingClient) -> list[str]:
    """The titles of the tool calls the editor was asked about, in order."""
    return [call.title for call, _ in client.permissions]


async def run_write_edit(agent: RealAgent, client: RecordingClient, mode: str | None) -> None:
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        if mode is not None:
            await conn.set_session_mode(session_id=sid, mode_id=mode)
        result = await prompt(conn, sid, WRITE_EDIT)
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
    assert "notes.txt now contains alpha and gamma" in client.text()
    statuses = final_statuses(client)
    assert len(statuses) == 4 and set(statuses.values()) == {"completed"}, statuses  # echo, write, edit, echo


async def test_allow_always_is_honoured_through_the_extension(pi: RealAgent) -> None:
    """ "Always allow `echo` commands" answers pi's second echo, and "always allow changes to notes.txt" the edit
    after the write, without asking: the gate asks, the bridge's rules answer."""
    client = RecordingClient(choose=lambda options, call: "allow_always")
    await run_write_edit(pi, client, None)
    assert asked_tools(client) == ["echo hello-from-pi", "Write notes.txt"]
    shown = [c.content.text for u in client.of("tool_call_update") for c in (u.content or []) if c.type == "content"]
    assert any("done-from-pi" in text for text in shown), "the second echo did not run"
    await assert_no_process_left(pi)


async def test_accept_edits_mode_asks_only_for_commands(pi: RealAgent) -> None:
    client = RecordingClient(choose=lambda options, call: "allow_once")
    await run_write_edit(pi, client, "accept-edits")
    assert asked_tools(client) == ["echo hello-from-pi", "echo done-from-pi"]
    await assert_no_process_left(pi)


async def test_bypass_mode_asks_nothing(pi: RealAgent) -> None:
    client = RecordingClient(choose=lambda options, call: "reject_once")
    await run_write_edit(pi, client, "bypass")
    assert client.permissions == []
    await assert_no_process_left(pi)


async def test_without_its_extension_pi_says_it_does_not_ask(pi: RealAgent, tmp_path: Path) -> None:
    """An extension pi cannot load (pi exits naming it): the next pi runs without it, the session says so in the
    conversation and offers only the one truthful mode, and nothing is asked."""
    broken = tmp_path / "broken.ts"
    broken.write_text("export default function (pi) { this is not typescript\n")
    pi.extra_env["ACP_MUX_PI_EXTENSION"] = str(broken)
    client = RecordingClient(choose=lambda options, call: "reject_once")
    async with pi.bridge(client) as (conn, _):
        sid = await pi.session(conn)
        result = await prompt(conn, sid, WRITE_EDIT)
    assert result.stop_reason == "end_turn", pi.log()[-3000:]
    assert client.permissions == []
    assert (pi.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
    assert "pi does not ask before changing files or running commands" in client.text()
    modes = [u.current_mode_id for u in client.of("current_mode_update")]
    assert modes[-1:] == ["no-permissions"], modes
    await assert_no_process_left(pi)

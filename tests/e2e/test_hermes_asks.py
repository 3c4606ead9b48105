"""The real hermes (pinned) behind acp-mux asks before EVERY command by default, not only before those its own
patterns deem dangerous (issue 21, item 1): acp-mux's plugin, loaded from a private overlay of hermes' bundled
plugins, sends each command through hermes' own approval gate, which acp-mux relays to the editor.

The scenario's command (``touch made.txt``) is one no pattern of hermes calls dangerous: before acp-mux's plugin
it ran unasked. Driven by the SDK's client side against the scripted model server; the person's ~/.hermes (the
test's private HOME) is checked to be left as the harness wrote it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from typing import Any, Iterator

import acp
import pytest

from acp_mux.adapters.acp_agents import hermes_plugins
from acp_mux.adapters.acp_agents.hermes import NOT_ASKING
from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient, final_statuses

pytestmark = [pytest.mark.e2e]  # (asyncio_mode auto runs the async ones)

FOUR_OPTIONS = ["allow_always", "allow_once", "reject_always", "reject_once"]
ASK = "Create the marker file made.txt with touch."
TURN_TIMEOUT = 120


@pytest.fixture
def hermes(tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent("hermes", require_cli("hermes"), tmp_path)
    yield real
    real.close()


PERSON_FILES = ("config.yaml", ".env", "auth.json")  # the person's hermes settings (hermes' caches are its own)


def snapshot(hermes: RealAgent) -> dict[str, bytes | None]:
    """The person's hermes settings, and whether a plugins folder exists in their ~/.hermes or the project."""
    home = hermes.home / ".hermes"
    files: dict[str, bytes | None] = {n: (home / n).read_bytes() if (home / n).exists() else None for n in PERSON_FILES}
    files["plugins"] = b"present" if (home / "plugins").exists() or (hermes.cwd / ".hermes").exists() else None
    return files


async def run_turn(
    hermes: RealAgent, answer: str, *extra: str, scenario: str = "hermes_asks_command"
) -> tuple[Any, RecordingClient, list[bool]]:
    """One turn of the scenario; the editor answers ``answer`` and notes whether made.txt existed when asked."""
    made = hermes.cwd / "made.txt"
    existed: list[bool] = []

    def choose(options: list[Any], call: Any) -> str:
        existed.append(made.exists())
        return answer

    client = RecordingClient(choose=choose)
    hermes.serve(scenario, delta_delay=0)
    hermes.extra_args = tuple(extra)
    async with hermes.bridge(client) as (conn, _):
        sid = await hermes.session(conn)
        config = snapshot(hermes)
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(ASK)]), TURN_TIMEOUT)
    assert snapshot(hermes) == config, "acp-mux changed the person's hermes configuration"
    assert config["config.yaml"] is not None and config["plugins"] is None, config
    return result, client, existed


def the_command_call(client: RecordingClient) -> Any:
    calls = [u for u in client.of("tool_call") if u.kind == "execute"]
    assert len(calls) == 1, [(u.kind, u.title) for u in client.of("tool_call")]
    return calls[0]


def assert_asked_about(client: RecordingClient, call: Any, cwd: Path) -> None:
    """One question, about the announced call, with the four options, naming the command itself."""
    assert len(client.permissions) == 1, client.permissions
    asked, options = client.permissions[0]
    assert asked.tool_call_id == call.tool_call_id
    assert sorted(o.kind for o in options) == FOUR_OPTIONS
    command = f"touch {cwd}/made.txt"
    assert asked.title == command, asked.title  # the question names the command itself
    assert isinstance(call.raw_input, dict) and call.raw_input.get("command") == command, call.raw_input


async def test_a_plain_command_is_asked_and_a_reject_leaves_nothing_run(hermes: RealAgent) -> None:
    result, client, existed = await run_turn(hermes, "reject_once")
    assert result.stop_reason == "end_turn", hermes.log()[-3000:]
    call = the_command_call(client)
    assert_asked_about(client, call, hermes.cwd)
    assert existed == [False]
    assert not (hermes.cwd / "made.txt").exists(), "a rejected command ran"
    assert final_statuses(client)[call.tool_call_id] == "failed"
    ran = {u.tool_call_id for u in client.of("tool_call_update") if u.status == "in_progress"}
    assert call.tool_call_id not in ran, "a rejected command was shown running"
    assert "Finished with the marker file." in client.text()


async def test_a_plain_command_is_asked_and_runs_when_allowed(hermes: RealAgent) -> None:
    result, client, existed = await run_turn(hermes, "allow_once")
    assert result.stop_reason == "end_turn", hermes.log()[-3000:]
    call = the_command_call(client)
    assert_asked_about(client, call, hermes.cwd)
    assert existed == [False], "the command ran before the person answered"
    assert (hermes.cwd / "made.txt").exists()
    assert final_statuses(client)[call.tool_call_id] == "completed"
    assert NOT_ASKING not in client.text()


async def test_a_hermes_that_cannot_load_the_plugin_is_said_to_run_commands_unasked(hermes: RealAgent) -> None:
    """HERMES_SAFE_MODE (the person's own setting) skips every plugin: the command runs unasked, as hermes alone
    would run it, and the person is told so in the conversation instead of trusting a question that never comes."""
    hermes.extra_env["HERMES_SAFE_MODE"] = "1"
    result, client, _ = await run_turn(hermes, "reject_once")
    assert result.stop_reason == "end_turn", hermes.log()[-3000:]
    assert client.permissions == [] and (hermes.cwd / "made.txt").exists()
    assert client.text().count(NOT_ASKING) == 1


async def test_mode_dont_ask_runs_the_command_without_asking(hermes: RealAgent) -> None:
    """hermes' own mode that edits without asking also lets commands run without acp-mux's question."""
    result, client, _ = await run_turn(hermes, "reject_once", "--mode", "dont_ask")
    assert result.stop_reason == "end_turn", hermes.log()[-3000:]
    call = the_command_call(client)
    assert client.permissions == []
    assert (hermes.cwd / "made.txt").exists()
    assert final_statuses(client)[call.tool_call_id] == "completed"
    assert NOT_ASKING not in client.text()


@pytest.mark.parametrize("answer", ["reject_once", "allow_once"])
async def test_a_dangerous_command_is_asked_by_acp_mux_first_then_by_hermes_itself(
    hermes: RealAgent, answer: str
) -> None:
    """A command hermes' patterns deem dangerous: acp-mux's question, then (if allowed) hermes' own with its reason,
    both about the one call the editor sees; a "no" to the first leaves it unrun and asks nothing more."""
    scratch = hermes.cwd / "scratch"
    scratch.mkdir()
    result, client, _ = await run_turn(hermes, answer, scenario="hermes_asks_dangerous")
    assert result.stop_reason == "end_turn", hermes.log()[-3000:]
    call = the_command_call(client)
    asked = [c.tool_call_id for c, _ in client.permissions]
    assert asked == [call.tool_call_id] * (1 if answer == "reject_once" else 2), client.permissions
    assert all(sorted(o.kind for o in options) == FOUR_OPTIONS for _, options in client.permissions)
    assert scratch.exists() == (answer == "reject_once")
    assert final_statuses(client)[call.tool_call_id] == ("failed" if answer == "reject_once" else "completed")


async def test_an_always_is_the_bridges_rule_and_never_written_into_hermes_config(hermes: RealAgent) -> None:
    """ "Always allow `touch` commands": the editor is asked once; hermes is answered "once" each time (its own
    "always" would be written into the person's config.yaml), and the bridge answers the second touch itself."""
    result, client, _ = await run_turn(hermes, "allow_always", scenario="hermes_asks_always")
    assert result.stop_reason == "end_turn", hermes.log()[-3000:]
    calls = [u for u in client.of("tool_call") if u.kind == "execute"]
    assert len(calls) == 2 and len(client.permissions) == 1, client.permissions
    assert client.permissions[0][0].tool_call_id == calls[0].tool_call_id
    assert (hermes.cwd / "made.txt").exists() and (hermes.cwd / "made2.txt").exists()
    assert all(final_statuses(client)[c.tool_call_id] == "completed" for c in calls)
    assert b"touch" not in ((hermes.home / ".hermes" / "config.yaml").read_bytes())


PLUGIN_STATES = """
from hermes_cli.plugins import discover_plugins, get_plugin_manager
discover_plugins()
for key, plugin in sorted(get_plugin_manager()._plugins.items()):
    print(key, plugin.enabled, plugin.error)
"""


def test_the_overlay_keeps_every_plugin_hermes_has_and_adds_only_ours(hermes: RealAgent, tmp_path: Path) -> None:
    """hermes' own discovery (its Python, its code), with and without the overlay acp-mux starts it on: the same
    plugins in the same states, plus acp-mux-asks, enabled without any entry in the person's config."""
    overlay = hermes_plugins.overlay(hermes_plugins.bundled_dir(str(hermes.binary), {}))
    python = hermes.binary.parent / "python"
    home = tmp_path / "person"
    base = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "HERMES_HOME": str(home / ".hermes")}
    states = []
    for env in (base, {**base, hermes_plugins.ENV: overlay}):
        out = subprocess.run(
            [str(python), "-c", PLUGIN_STATES], env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr[-2000:]
        states.append(set(out.stdout.splitlines()))
    alone, overlaid = states
    assert len(alone) > 10, alone
    assert overlaid - alone == {"acp-mux-asks True None"} and alone <= overlaid

"""Stopping a real agent stops everything it started, also what left its process group (issue 39, class 4).

The real claude CLI (pinned, against the scripted model server) runs a Bash command that starts a sleeper with
``setsid`` in the background, a marker in its argv: a process in a session of its own, which claude's process group
does not hold. Then the agent is stopped — a switch to codex, ``session/close``, the end of ``acp-mux run`` — and
nothing with the marker is alive 2 s later.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.harness import ClaudeAndCodex, RealAgent, current_values, require_cli
from tests.fakes.model_server import ModelServer
from tests.faults.test_stop_sweeps import assert_gone, marked
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

TIMEOUT = 90


def daemon_command(marker: str) -> str:
    return f"setsid {sys.executable} -c 'import time; time.sleep(300)' {marker} </dev/null >/dev/null 2>&1 &"


def daemon_scenario(marker: str) -> dict[str, Any]:
    """claude's model asks for one Bash command that starts the sleeper in the background, then says it is done."""
    return {
        "description": "claude: a Bash command that leaves a setsid child behind",
        "steps": [
            {
                "blocks": [
                    {"text": "Starting it in the background.", "deltas": 1},
                    {"tool_use": {"name": "Bash", "input": {"command": daemon_command(marker)}}},
                ]
            },
            {"blocks": [{"text": "It runs.", "deltas": 1}]},
        ],
        "done_text": "Nothing left.",
    }


@contextmanager
def leaving_a_sleeper(agent: RealAgent) -> Iterator[str]:
    """``agent`` served the scenario whose Bash command leaves a setsid sleeper behind; yields the sleeper's marker.
    On the way out (whatever happened) the model server stops and no sleeper may be left."""
    marker = f"acp-mux-mark-{uuid.uuid4().hex}"
    agent.server = ModelServer(daemon_scenario(marker), variables={"cwd": str(agent.cwd)}, delta_delay=0)
    agent.server.start()
    try:
        yield marker
    finally:
        agent.close()
        assert_gone(marker, 0)


async def wait_for_daemon(marker: str) -> None:
    deadline = time.monotonic() + 10
    while not marked(marker) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    [pid] = marked(marker)
    assert os.getsid(pid) == pid, "the sleeper left claude's session"


async def daemon_turn(agent: RealAgent, conn: Any, marker: str) -> str:
    """A new session whose one turn starts the sleeper; its id, once the sleeper runs."""
    sid = await agent.session(conn)
    answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Start it.")]), TIMEOUT)
    assert answer.stop_reason == "end_turn"
    await wait_for_daemon(marker)
    return sid


async def test_session_close_ends_what_claude_started_with_setsid(tmp_path: Path) -> None:
    agent = RealAgent("claude", require_cli("claude"), tmp_path)
    with leaving_a_sleeper(agent) as marker:
        async with agent.bridge(RecordingClient()) as (conn, _):
            sid = await daemon_turn(agent, conn, marker)
            await conn.close_session(session_id=sid)
            await asyncio.to_thread(assert_gone, marker)


async def test_a_switch_to_codex_ends_what_claude_started_with_setsid(tmp_path: Path) -> None:
    agents = ClaudeAndCodex.at(tmp_path)
    with leaving_a_sleeper(agents) as marker:
        async with agents.bridge(RecordingClient()) as (conn, _):
            sid = await daemon_turn(agents, conn, marker)
            answer = await conn.set_config_option(config_id="agent", session_id=sid, value="codex")
            assert current_values(answer)["agent"] == "codex"
            await asyncio.to_thread(assert_gone, marker)


async def test_the_end_of_acp_mux_run_ends_what_claude_started_with_setsid(tmp_path: Path) -> None:
    agent = RealAgent("claude", require_cli("claude"), tmp_path)
    with leaving_a_sleeper(agent) as marker:
        command = [sys.executable, "-m", "acp_mux", "run", "--agent", "claude", "--json"]
        command += ["--allow", f"execute:{daemon_command(marker)}", "Start it."]
        run = subprocess.Popen(
            command,
            cwd=agent.cwd,
            env=agent.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        seen: list[int] = []
        deadline = time.monotonic() + TIMEOUT
        while run.poll() is None and time.monotonic() < deadline:
            seen = seen or marked(marker)
            await asyncio.sleep(0.02)
        out, err = run.communicate(timeout=30)
        assert run.returncode == 0, err[-2000:]
        assert seen, f"the sleeper never ran: {out[-2000:]}"
        await asyncio.to_thread(assert_gone, marker)

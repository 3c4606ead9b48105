"""The launcher starts a session's agent as soon as it has answered ``session/new``, and the session's run takes that
very agent (issue 26: hermes takes seconds to start, and the person's typing pause begins at that answer).

Through the real launcher (``python -m acp_mux``) driven by the SDK's client side, with a scripted ACP agent
(tests/fakes/programs/acp_scripted_agent.py) standing in for the agent's executable behind a wrapper that records
each start. What is checked: the turn runs, the agent was started once, and the bridge's log names the launcher's
agent as the one its run took; an agent whose spawn is not a function of the options alone (gemini: a fresh private
log per spawn) is left to its run, so it too starts once.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import acp
import pytest

from acp_mux.adapters.registry import ENTRIES
from acp_mux.adapters.base import get_adapter
from tests.procs import pids, read_proc
from tests.server.client import RecordingClient, bridge

AGENT = Path(__file__).resolve().parents[1] / "fakes" / "programs" / "acp_scripted_agent.py"
TAKEN = "the run takes the agent the launcher started"


def wrapper(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """An executable named like the agent's that records each start (its pid and arguments) in ``starts`` and
    becomes the scripted agent."""
    starts = tmp_path / "starts"
    program = tmp_path / "bin" / name
    program.parent.mkdir()
    program.write_text(f'#!/bin/sh\necho "$$ $*" >> {starts}\nexec {sys.executable} {AGENT}\n')
    program.chmod(0o755)
    return program, starts


@pytest.mark.parametrize(
    "agent, options, spawned_with, early",
    [
        ("omp", [], [], True),
        ("copilot", ["--model", "m-1", "--mode", "agent", "--", "--no-color"], ["--model", "m-1", "--no-color"], True),
        ("gemini", [], [], False),
    ],
)
async def test_the_sessions_run_takes_the_agent_the_launcher_started(
    tmp_path: Path, agent: str, options: list[str], spawned_with: list[str], early: bool
) -> None:
    assert get_adapter(agent).starts_early is early
    program, starts = wrapper(tmp_path, agent)
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "acp-mux.log"
    client = RecordingClient()
    env = {"ACP_MUX_LOG": str(log), "ACP_MUX_LOG_LEVEL": "INFO"}
    if options:
        options = ["--agent-bin", str(program), *options]
    else:
        env[ENTRIES[agent].bin_env_var] = str(program)
    args = ["--agent", agent, *options]
    async with bridge(client, *args, cwd=str(project), state_dir=str(tmp_path / "state"), env=env) as (conn, _):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hi")]), 30)
    assert result.stop_reason == "end_turn"
    assert client.text() == f"hello from {project}"
    (start,) = starts.read_text().splitlines()  # one agent: the launcher's was taken, never started twice
    assert start.split()[len(start.split()) - len(spawned_with) :] == spawned_with  # the command line's options
    assert (TAKEN in log.read_text()) is early


def test_every_agent_the_launcher_may_start_spawns_the_same_from_the_same_options(tmp_path: Path) -> None:
    """``starts_early`` promises that the run, given the options the launcher used, builds the very same spec (else
    the launcher's agent is always ended unused) and that nothing is prepared before the spawn (the launcher does not
    prepare). Each such adapter, over options that each change one thing the command line sets."""
    from acp_mux.adapters.base import AgentAdapter
    from acp_mux.core.run.contract import RunOptions

    early = []
    for name, row in ENTRIES.items():
        if not row.supported:
            continue
        for transport in row.transports:
            adapter = get_adapter(name, transport)
            if not adapter.starts_early:
                continue
            early.append(name)
            assert adapter.capabilities.persistent_process, name  # only a warm run spawns at once
            assert type(adapter).prepare is AgentAdapter.prepare, name
            for changes in ({}, {"model": "m-1"}, {"mode": "plan"}, {"binary": "/bin/true"}, {"extra_args": ["-x"]}):
                options = RunOptions(agent=name, cwd=str(tmp_path), **changes)  # type: ignore[arg-type]
                again = RunOptions(agent=name, cwd=str(tmp_path), **changes)  # type: ignore[arg-type]
                assert get_adapter(name, transport).build_spawn(options) == adapter.build_spawn(again), (name, changes)
    assert "hermes" in early and "gemini" not in early and "openclaw" not in early


@pytest.mark.parametrize("when", ["at once", "once the agent runs"])
def test_an_agent_the_launcher_started_dies_with_the_bridge_even_by_sigkill(tmp_path: Path, when: str) -> None:
    """The bridge SIGKILLed right after the launcher answered ``session/new`` (while it starts the agent), or as soon
    as the agent has started (the bridge is still loading then: no run has taken it yet, nothing tracks it but its
    supervisor): 2 s later nothing that inherited this test's mark is alive."""
    program, starts = wrapper(tmp_path, "omp")
    project = tmp_path / "project"
    project.mkdir()
    mark = f"ACP_MUX_TEST_MARK={tmp_path}".encode()
    env = dict(os.environ, ACP_MUX_STATE_DIR=str(tmp_path / "state"), ACP_MUX_OMP_BIN=str(program))
    env["ACP_MUX_TEST_MARK"] = str(tmp_path)
    bridge_process = subprocess.Popen(
        [sys.executable, "-m", "acp_mux", "--agent", "omp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=str(project),
    )
    assert bridge_process.stdin and bridge_process.stdout
    for request in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(project), "mcpServers": []}},
    ):
        bridge_process.stdin.write((json.dumps(request) + "\n").encode())
        bridge_process.stdin.flush()
        assert "result" in json.loads(bridge_process.stdout.readline())
    if when == "once the agent runs":
        deadline = time.monotonic() + 10
        while not (starts.exists() and starts.read_text()) and time.monotonic() < deadline:
            time.sleep(0.005)
        assert starts.read_text()
    bridge_process.kill()
    bridge_process.wait(5)
    time.sleep(2.0)
    assert [pid for pid in pids() if mark in read_proc(pid, "environ").split(b"\0")] == []

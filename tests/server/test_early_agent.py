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
import sys
from pathlib import Path

import acp
import pytest

from acp_mux.adapters.registry import ENTRIES, get_adapter
from tests.server.client import RecordingClient, bridge

AGENT = Path(__file__).resolve().parents[1] / "fakes" / "programs" / "acp_scripted_agent.py"
TAKEN = "the run takes the agent the launcher started"


def wrapper(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """An executable named like the agent's that records its pid in ``starts`` and becomes the scripted agent."""
    starts = tmp_path / "starts"
    program = tmp_path / "bin" / name
    program.parent.mkdir()
    program.write_text(f"#!/bin/sh\necho $$ >> {starts}\nexec {sys.executable} {AGENT}\n")
    program.chmod(0o755)
    return program, starts


@pytest.mark.parametrize("agent, early", [("omp", True), ("gemini", False)])
async def test_the_sessions_run_takes_the_agent_the_launcher_started(tmp_path: Path, agent: str, early: bool) -> None:
    assert get_adapter(agent).starts_early is early
    program, starts = wrapper(tmp_path, agent)
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "acp-mux.log"
    client = RecordingClient()
    env = {ENTRIES[agent].bin_env_var: str(program), "ACP_MUX_LOG": str(log), "ACP_MUX_LOG_LEVEL": "INFO"}
    async with bridge(client, "--agent", agent, cwd=str(project), state_dir=str(tmp_path / "state"), env=env) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hi")]), 30)
    assert result.stop_reason == "end_turn"
    assert client.text() == f"hello from {project}"
    assert len(starts.read_text().split()) == 1  # one agent: the launcher's was taken, never started twice
    assert (TAKEN in log.read_text()) is early


def test_every_agent_the_launcher_may_start_spawns_the_same_from_the_same_options(tmp_path: Path) -> None:
    """``starts_early`` promises that the run, given the options the launcher used, builds the very same spec (else
    the launcher's agent is always ended unused) and that nothing is prepared before the spawn (the launcher does not
    prepare). Each such adapter, over options that each change one thing the command line sets."""
    from acp_mux.adapters.base import AgentAdapter
    from acp_mux.core.contract import RunOptions

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

"""Drive the bridge of ``tests/server/switching_agents.py`` (alpha, beta, gamma to switch between) with the SDK client,
and count the agent processes it leaves alive."""

from __future__ import annotations

import asyncio
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import acp

from tests.procs import parent_of, pids, read_proc
from tests.server.client import RecordingClient
from tests.server.switching_agents import AGENT_PROCESS

LAUNCHER = str(Path(__file__).with_name("switching_agents.py"))


@asynccontextmanager
async def switching_bridge(client: RecordingClient, root: Path, **env: str) -> AsyncIterator[tuple[Any, Any, str]]:
    """The bridge with alpha, beta and gamma to pick from, one session open on alpha: (conn, process, session id)."""
    cwd = root / "project"
    cwd.mkdir(exist_ok=True)
    full_env = dict(
        os.environ,
        ACP_MUX_STATE_DIR=str(root / "state"),
        ACP_MUX_AGENTS="alpha,beta,gamma",
        ACP_MUX_DEFAULT_AGENT="alpha",
        **env,
    )
    async with acp.spawn_agent_process(
        client,
        sys.executable,
        LAUNCHER,
        "--agent",
        "auto",
        env=full_env,
        cwd=str(cwd),
        transport_kwargs={"stderr": None},
    ) as (conn, proc):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(cwd), mcp_servers=[])
        yield conn, proc, session.session_id


def agent_groups(bridge_pid: int) -> dict[int, list[int]]:
    """Process group -> live scripted-agent processes among the bridge's descendants."""
    groups: dict[int, list[int]] = {}
    for pid in pids():
        ancestor = parent_of(pid)
        while ancestor not in (None, 0, 1, bridge_pid):
            ancestor = parent_of(ancestor)
        if ancestor != bridge_pid or AGENT_PROCESS.encode() not in read_proc(pid, "cmdline"):
            continue
        if b"supervisor.py" in read_proc(pid, "cmdline"):
            continue
        groups.setdefault(os.getpgid(pid), []).append(pid)
    return groups


async def settled_groups(bridge_pid: int, expected: int = 1, wait_s: float = 10.0) -> dict[int, list[int]]:
    """The agent groups once the warm start of the last agent shows (or ``wait_s`` has passed)."""
    deadline = asyncio.get_running_loop().time() + wait_s
    groups = agent_groups(bridge_pid)
    while len(groups) != expected and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.1)
        groups = agent_groups(bridge_pid)
    return groups


def prompt(conn: Any, sid: str, text: str) -> Any:
    return asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]))


def switch(conn: Any, sid: str, agent: str) -> Any:
    return asyncio.ensure_future(conn.set_config_option(config_id="agent", session_id=sid, value=agent))


def current_agent(answer: Any) -> str:
    return {o.id: o.current_value for o in answer.config_options}["agent"]

"""Fault class 7: nothing of ours is alive 2 s after the editor leaves — closing stdin, or SIGKILLing the bridge.

Processes are found on the real process table by a marker in their environment (every process the bridge starts
inherits it): the bridge, its supervisors, the agent and the commands the agent runs.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
import uuid
from pathlib import Path

import acp
import pytest

from tests.faults.raw import RawBridge, wait_until
from tests.procs import pids, read_proc
from tests.server.client import RecordingClient

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="the process table is read from /proc")


def ours(marker: str) -> list[int]:
    needle = f"ACP_MUX_FAULT_MARK={marker}".encode()
    return [pid for pid in pids() if needle in read_proc(pid, "environ").split(b"\0")]


def assert_none_left(marker: str, within: float = 2.0) -> None:
    deadline = time.monotonic() + within
    while ours(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = ours(marker)
    for pid in left:  # never leave orphans behind, even when failing
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert left == [], f"still alive {within}s after the editor left: {[read_proc(p, 'cmdline') for p in left]}"


@pytest.mark.parametrize("how", ["close stdin", "SIGKILL", "SIGTERM"])
@pytest.mark.parametrize("scenario", ["hang", "shell"])
def test_nothing_survives_the_editor_leaving(tmp_path: Path, how: str, scenario: str) -> None:
    marker = uuid.uuid4().hex
    allow = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
    raw = RawBridge(tmp_path, env={"ACP_MUX_FAULT_MARK": marker}, answer=lambda request: allow)
    raw.initialize()
    sid = raw.new_session()
    waiting = raw.expect("turn")
    raw.write(
        {
            "jsonrpc": "2.0",
            "id": "turn",
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": scenario}]},
        }
    )
    if scenario == "hang":
        wait_until(lambda: "Thinking very hard" in raw.text(sid), what="the agent to start its turn")
    else:  # the agent is running a command: a grandchild of ours
        wait_until(lambda: "line 1" in str(raw.updates(sid)), what="the command's output")
    assert len(ours(marker)) >= 3  # bridge, supervisor, agent (and the command)
    if how == "close stdin":
        raw.close()
    elif how == "SIGKILL":
        raw.kill()
    else:
        raw.proc.send_signal(signal.SIGTERM)
        raw.proc.wait(5)
    assert_none_left(marker)
    if how == "close stdin":  # the turn still got its answer before the bridge went
        assert waiting.get(timeout=1)["id"] == "turn"


async def test_sdk_client_bridge_killed_hard_leaves_nothing(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    project = tmp_path / "project"
    project.mkdir()
    env = dict(os.environ, ACP_MUX_STATE_DIR=str(tmp_path / "state"), ACP_MUX_FAULT_MARK=marker)
    client = RecordingClient()
    async with acp.spawn_agent_process(
        client,
        sys.executable,
        "-m",
        "acp_mux",
        "--agent",
        "demo",
        env=env,
        cwd=str(project),
        transport_kwargs={"stderr": None},
    ) as (conn, proc):
        await conn.initialize(protocol_version=1, client_capabilities=None)
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("hang")]))
        while "Thinking very hard" not in client.text():
            await asyncio.sleep(0.02)
        proc.kill()  # the editor quits hard: SIGKILL, no chance to clean up
        await proc.wait()
        turn.cancel()
    await asyncio.get_running_loop().run_in_executor(None, assert_none_left, marker)

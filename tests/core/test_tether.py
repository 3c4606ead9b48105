"""The tether: a helper process (openclaw's gateway) ends with the bridge, however the bridge ends."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import pytest

from acp_mux.core.process import SpawnSpec, spawn
from tests.procs import pid_alive

PY = sys.executable
# A child that reads no stdin, ignores SIGTERM's default (like a server draining) only until SIGKILL, and reports
# its pid so the test can watch it.
SERVER = "import os, signal, sys, time; print(os.getpid(), flush=True); time.sleep(60)"


def tether_args(*command: str) -> list[str]:
    return ["-m", "acp_mux.core.tether", "--", *command]


async def first_line(proc) -> str:  # noqa: ANN001
    async for line in proc.lines():
        return line
    raise AssertionError("no output")


async def wait_gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while pid_alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    return not pid_alive(pid)


@pytest.mark.asyncio
async def test_closing_the_tethers_stdin_ends_the_command() -> None:
    """What the kernel does to the pipe when the bridge dies (even by SIGKILL): the command is gone in time."""
    proc = await spawn(SpawnSpec(PY, tether_args(PY, "-c", SERVER)))
    child = int(await first_line(proc))
    assert pid_alive(child)
    await proc.close_stdin()
    assert await wait_gone(child, 2.0)
    await asyncio.wait_for(proc.wait(), 5)


@pytest.mark.asyncio
async def test_the_tether_exits_with_its_commands_status() -> None:
    proc = await spawn(SpawnSpec(PY, tether_args(PY, "-c", "import sys; sys.exit(3)")))
    status = await asyncio.wait_for(proc.wait(), 10)
    assert status.code == 3


def test_a_sigkilled_bridge_leaves_no_tethered_command(tmp_path) -> None:  # noqa: ANN001
    """A real parent process spawns the tether, then is SIGKILLed: no exit handler runs, the command still ends."""
    script = (
        "import asyncio, sys\n"
        "from acp_mux.core.process import SpawnSpec, spawn\n"
        "async def main():\n"
        f"    proc = await spawn(SpawnSpec({PY!r}, {tether_args(PY, '-c', SERVER)!r}))\n"
        "    async for line in proc.lines():\n"
        "        print(line, flush=True); break\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n"
    )
    bridge = subprocess.Popen([PY, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert bridge.stdout is not None
        child = int(bridge.stdout.readline())
        assert pid_alive(child)
        os.kill(bridge.pid, signal.SIGKILL)
        bridge.wait(5)
        deadline = time.monotonic() + 2.0
        while pid_alive(child) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not pid_alive(child), "the tethered command outlived a SIGKILLed bridge"
    finally:
        bridge.kill()

"""``RunHandle.stop``: the agent switched away from is gone for good, with what it started, also while it is still
starting (the bridge's switch and restart rely on it: at most one agent process per session)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Iterable

import pytest

from acp_mux.adapters.base import AgentAdapter
from acp_mux.core.events import union as ev
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.core.run.handle import RunHandle, start_run
from tests.procs import pid_alive

pytestmark = pytest.mark.asyncio

# Leaves a child in its group (a command it ran in the background, off its pipes), says its pid, then exits when
# stdin closes.
AGENT = 'sleep 60 </dev/null >/dev/null 2>&1 & echo "child $!"; read line; exit 0'


class BackgroundChildAdapter(AgentAdapter):
    name = "bg-child"

    def __init__(self, prepare_s: float = 0.0) -> None:
        self.prepare_s = prepare_s
        self.child: asyncio.Future[int] | None = None

    async def prepare(self, options: RunOptions) -> None:
        await asyncio.sleep(self.prepare_s)  # as openclaw's gateway start: the process does not exist yet

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        return SpawnSpec("/bin/sh", ["-c", AGENT], cwd=options.cwd)

    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        if line.startswith("child ") and self.child is not None and not self.child.done():
            self.child.set_result(int(line.split()[1]))
        return []


async def _started(tmp_path: Path, adapter: BackgroundChildAdapter) -> tuple[RunHandle, int]:
    adapter.child = asyncio.get_running_loop().create_future()
    handle = start_run(adapter, RunOptions(agent="bg-child", cwd=str(tmp_path)))
    return handle, await asyncio.wait_for(adapter.child, 10)


async def test_close_leaves_what_the_agent_started_and_stop_does_not(tmp_path: Path) -> None:
    handle, child = await _started(tmp_path, BackgroundChildAdapter())
    await handle.close(0.5)
    assert handle.done and pid_alive(child)  # close: the agent left, its child stayed
    os.kill(child, 9)

    handle, child = await _started(tmp_path, BackgroundChildAdapter())
    await handle.stop(0.5)
    assert handle.done and not pid_alive(child)


async def test_stop_while_the_agent_is_still_starting_ends_it_as_soon_as_it_runs(tmp_path: Path) -> None:
    adapter = BackgroundChildAdapter(prepare_s=0.5)
    adapter.child = asyncio.get_running_loop().create_future()
    handle = start_run(adapter, RunOptions(agent="bg-child", cwd=str(tmp_path)))
    await asyncio.sleep(0.05)
    with pytest.raises(asyncio.TimeoutError):  # close() waits for an agent that never ends by itself
        await asyncio.wait_for(asyncio.shield(handle.close(0.2)), 2)
    await asyncio.wait_for(handle.stop(0.5), 10)
    assert handle.done
    proc = handle._proc  # the process it started after all
    assert proc is None or not proc.group_alive()
    if adapter.child.done():
        assert not pid_alive(adapter.child.result())

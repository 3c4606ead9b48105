"""Once a session is answered, the agent starts before the bridge loads its event models and builds its turn schemas
(issue 26).

The bridge spends the person's typing pause on two things: starting the agent (a persistent agent is spawned at
``session/new``) and building the pydantic validators a turn will use (``events.prepare_turn``, ``wire.warm``: some
tens of milliseconds of CPU). The agent's start is the long one (seconds for hermes or openclaw), so it must begin
first: the schemas are then built while the agent starts, not before it. The run spawns its agent from its own task,
so the session's warm-up must let that task take its first step before the schema builds begin.

In process: the real ``AcpServer`` and ``LiveSession`` with an agent in memory; what is recorded is the order in which
the run's ``spawn`` and the two schema builds are called, on the server's own ``session/new`` and on the launcher's
(``adopt``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.server.sessions.bridge import AcpServer
from acp_mux.launcher.early_session import EarlySession
from acp_mux.server.sessions.live_session import BridgeConfig
from acp_mux.server.wire.rpc import Connection
from acp_mux.server.records.store import SessionStore
from tests.server.memory_agents import MemoryAdapter, MemoryProcess


class _Recorder:
    """The order of the calls that share the typing pause."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def spawn(self, spec: SpawnSpec, **_: Any) -> MemoryProcess:
        self.calls.append("spawn")
        process = MemoryProcess()
        process.say("ready")
        return process

    def schema(self, name: str) -> Any:
        return lambda *args, **kwargs: self.calls.append(name)


def _server(tmp_path: Path) -> AcpServer:
    adapter = MemoryAdapter("memory")
    return AcpServer(Connection(-1, -1), adapter, BridgeConfig(agent="memory"), SessionStore(tmp_path / "state"))


async def _open(server: AcpServer, cwd: Path, how: str) -> None:
    if how == "session/new":
        after = await server.call("session/new", {"cwd": str(cwd), "mcpServers": []})
        await after.then()
    else:  # the launcher answered session/new before this server existed
        params = {"cwd": str(cwd), "mcpServers": []}
        await server.adopt(
            EarlySession(
                request_id=2, params=params, session_id="early-1", cwd=str(cwd), answer={"sessionId": "early-1"}
            )
        )


@pytest.mark.parametrize("how", ["session/new", "adopt"])
def test_the_agent_is_spawned_before_the_turn_schemas_are_built(tmp_path: Path, how: str) -> None:
    recorder = _Recorder()
    server = _server(tmp_path)

    async def scenario() -> None:
        with (
            mock.patch("acp_mux.core.run.handle.spawn", recorder.spawn),
            mock.patch("acp_mux.core.events.union.prepare_turn", recorder.schema("prepare_turn")),
            mock.patch("acp_mux.protocol.wire.warm", recorder.schema("wire.warm")),
        ):
            await _open(server, tmp_path, how)
            await asyncio.sleep(0.05)  # anything still to come (a spawn the warm-up did not wait for) comes now
            await server.shutdown()

    asyncio.run(scenario())
    assert recorder.calls == ["spawn", "prepare_turn", "wire.warm"]


FRESH_BRIDGE = """
import asyncio, sys, tempfile
from pathlib import Path
from unittest import mock
from acp_mux.adapters.base import get_adapter
from acp_mux.core.process.spawn import SpawnError
from acp_mux.server.sessions.bridge import AcpServer
from acp_mux.launcher.early_session import EarlySession
from acp_mux.server.sessions.live_session import BridgeConfig
from acp_mux.server.wire.rpc import Connection
from acp_mux.server.records.store import SessionStore

loaded_at_spawn = []

async def spawn(spec, **_):
    loaded_at_spawn.append("acp_mux.core.events.union" in sys.modules)
    raise SpawnError("the test stops here")

async def main(folder):
    server = AcpServer(Connection(-1, -1), get_adapter("demo"), BridgeConfig(agent="demo"), SessionStore(folder))
    params = {"cwd": str(folder), "mcpServers": []}
    with mock.patch("acp_mux.core.run.handle.spawn", spawn):
        await server.adopt(EarlySession(2, params, "early-1", str(folder), {"sessionId": "early-1"}))
        await asyncio.sleep(0.05)
        await server.shutdown()

with tempfile.TemporaryDirectory() as folder:
    asyncio.run(main(Path(folder)))
print(loaded_at_spawn)
"""


def test_the_agent_is_spawned_before_the_event_models_load() -> None:
    """In a fresh interpreter (this one has loaded them): the launcher's session is adopted, and the run spawns its
    agent before the event models (pydantic classes, tens of milliseconds) are imported: they load while it starts."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", FRESH_BRIDGE], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[False]"]

"""One real agent CLI behind acp-mux, driven by the SDK client, against the scripted model server.

``RealAgent`` owns everything one end-to-end test needs: a private HOME (the CLI's config and credentials live
there and nowhere else), a project dir, the bridge's session store, the fake model server and the complete
environment the bridge (and therefore the CLI) runs with. Processes are found afterwards through that unique
HOME in ``/proc/<pid>/environ``, so "nothing of ours is left" is checked on the real process table.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator

import acp
import pytest

from tests.e2e.clis import (
    cli_env,
    cli_unavailable_reason,
    ensure_cli,
    omp_config_file,
    omp_config_yml,
    opencode_config,
    opencode_config_file,
)
from tests.fakes.model_server import ModelServer, load_scenario
from tests.procs import pids, read_proc
from tests.server.client import RecordingClient

SCENARIOS = Path(__file__).resolve().parents[1] / "fakes" / "scenarios"


def require_cli(name: str) -> Path:
    """The pinned CLI's binary, or skip the test saying exactly why it cannot be had here.

    With ``ACP_MUX_REQUIRE_CLIS=1`` (set by .ci/run) an unavailable CLI fails the test instead: CI can reach
    npm, so there a skip would only hide a broken install.
    """
    binary = ensure_cli(name)
    if binary is None:
        reason = f"{name} CLI unavailable: {cli_unavailable_reason(name)}"
        if os.environ.get("ACP_MUX_REQUIRE_CLIS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return binary


@dataclass
class RealAgent:
    name: str
    binary: Path
    root: Path
    server: ModelServer | None = None
    extra_args: tuple[str, ...] = ()
    extra_env: dict[str, str] = field(default_factory=dict)  # added to the bridge's (and so the CLI's) environment
    home: Path = field(init=False)
    cwd: Path = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.cwd = self.root / "project"
        self.cwd.mkdir(parents=True, exist_ok=True)

    def serve(self, scenario: str, **overrides: Any) -> ModelServer:
        """Start the model server on ``scenario`` (a name under tests/fakes/scenarios)."""
        self.server = ModelServer(SCENARIOS / f"{scenario}.json", variables={"cwd": str(self.cwd)}, **overrides)
        return self.server.start()

    def rescript(self, scenario: str, **overrides: Any) -> None:
        """Switch the running server to another scenario (for the next model request)."""
        assert self.server is not None
        base = load_scenario(SCENARIOS / f"{scenario}.json", {"cwd": str(self.cwd)})
        self.server.scenario = load_scenario({**base, **overrides})

    def env(self) -> dict[str, str]:
        assert self.server is not None, "serve() first"
        env = cli_env(self.name, self.server.url, self.home, cwd=self.cwd)
        if self.name == "omp":  # omp's own default (no approval mode): it asks only because acp-mux starts it asking
            omp_config_file(self.home).write_text(omp_config_yml(approval_mode=None))
        if self.name == "opencode":  # opencode's own defaults (asks for nothing): it asks only by acp-mux's rules
            opencode_config_file(self.home).write_text(json.dumps(opencode_config(self.server.url, permission=None)))
        env["ACP_MUX_STATE_DIR"] = str(self.root / "state")
        env[f"ACP_MUX_{self.name.upper()}_BIN"] = str(self.binary)
        return {**env, **self.extra_env}

    @asynccontextmanager
    async def bridge(self, client: RecordingClient, *, unstable: bool = False) -> AsyncIterator[tuple[Any, Any]]:
        """``acp-mux --agent NAME`` as a subprocess with the SDK client connected to it (``unstable``: the client
        also serves ACP's unstable methods, e.g. ``elicitation/create``)."""
        args = [
            "-m",
            "acp_mux",
            "--agent",
            self.name,
            "--log-level",
            "debug",
            "--log-file",
            str(self.root / "acp-mux.log"),
            *self.extra_args,
        ]
        async with acp.spawn_agent_process(
            client,
            sys.executable,
            *args,
            env=self.env(),
            cwd=str(self.cwd),
            transport_kwargs={"stderr": None},
            use_unstable_protocol=unstable,
        ) as (conn, proc):
            yield conn, proc

    async def session(self, conn: Any) -> str:
        init = await conn.initialize(protocol_version=1, client_capabilities=None)
        assert init.protocol_version == 1
        return (await conn.new_session(cwd=str(self.cwd), mcp_servers=[])).session_id

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()

    def processes(self) -> list[int]:
        """Live pids whose environment carries this test's private HOME: the bridge, the CLI and its children."""
        marker = f"HOME={self.home}".encode()
        return [pid for pid in pids() if marker in read_proc(pid, "environ").split(b"\0")]

    def log(self) -> str:
        path = self.root / "acp-mux.log"
        return path.read_text(errors="replace") if path.exists() else ""


class ClaudeAndCodex(RealAgent):
    """claude and codex behind one ``acp-mux --agent auto`` (claude first), sharing a private HOME and the scripted
    model: the every-agent entry, where the person picks and switches the agent inside a session."""

    def env(self) -> dict[str, str]:
        assert self.server is not None, "serve() first"
        env = cli_env("codex", self.server.url, self.home, cwd=self.cwd)
        env.update(cli_env("claude", self.server.url, self.home, cwd=self.cwd))
        env["ACP_MUX_STATE_DIR"] = str(self.root / "state")
        env["ACP_MUX_CLAUDE_BIN"] = str(require_cli("claude"))
        env["ACP_MUX_CODEX_BIN"] = str(require_cli("codex"))
        env["ACP_MUX_AGENTS"] = "claude,codex"
        env["ACP_MUX_DEFAULT_AGENT"] = "claude"
        return env

    @classmethod
    def at(cls, root: Path) -> ClaudeAndCodex:
        return cls("auto", require_cli("claude"), root)


def current_values(answer: Any) -> dict[str, Any]:
    """Each config option's current value in an answer that carries ``config_options`` (new, load, set)."""
    return {o.id: o.current_value for o in answer.config_options}

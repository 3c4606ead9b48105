"""OpenClaw's temp files in a private folder of ours, on the real CLI (2026.9.6): the gateway and ``openclaw acp`` run
with ``TMPDIR`` set to a 0700 folder of ours (``openclaw-tmp`` in acp-mux's per-user folder), so node's ``os.tmpdir()`` and with it OpenClaw's compiled-code
cache (``os.tmpdir()/node-compile-cache``) leave the shared ``/tmp``, where another user's folder could refuse or feed
them; and OpenClaw does not restart itself over it (it does when ``NODE_COMPILE_CACHE`` names another folder than
the one it derives, which it marks with ``OPENCLAW_PACKAGED_COMPILE_CACHE_RESPAWNED``). One turn must answer."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from acp_mux.adapters.acp_agents.openclaw.gateway import GRACE_ENV, private_tmp_dir
from tests.e2e.harness import RealAgent, require_cli
from tests.e2e.test_openclaw import FIRST_TURN_TIMEOUT
from tests.e2e.test_real_agents import assert_no_process_left, prompt
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]


def environ(pid: int) -> dict[str, str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    return dict(item.decode(errors="replace").split("=", 1) for item in raw.split(b"\0") if b"=" in item)


def node_processes(agent: RealAgent) -> dict[int, str]:
    """The agent's node processes (the gateway, ``openclaw acp`` and their workers): pid → command line."""
    found = {}
    for pid in agent.processes():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        if os.path.basename(exe).startswith("node"):
            found[pid] = cmdline
    return found


async def test_openclaw_runs_with_a_private_tmpdir_and_does_not_restart_itself(tmp_path: Path) -> None:
    agent = RealAgent("openclaw", require_cli("openclaw"), tmp_path)
    agent.serve("openclaw_text", delta_delay=0)
    agent.extra_env[GRACE_ENV] = "1"
    private_tmp = private_tmp_dir(agent.root / "state" / "openclaw" / "tmp")  # the same folder the bridge picks
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            started = time.monotonic()
            result = await prompt(conn, sid, "Write the long answer.", timeout=FIRST_TURN_TIMEOUT)
            print(f"first turn: {time.monotonic() - started:.1f} s")
            assert result.stop_reason == "end_turn", agent.log()[-3000:]
            assert "Line 001" in client.text()
            nodes = node_processes(agent)
            for pid, line in nodes.items():
                env = environ(pid)
                print(
                    pid,
                    " ".join(line.split())[:80],
                    {
                        k: v
                        for k, v in env.items()
                        if "RESPAWN" in k or "COMPILE" in k or "CA_CERTS" in k or k == "TMPDIR"
                    },
                )
                assert env.get("TMPDIR") == str(private_tmp), (line, env.get("TMPDIR"))
                assert "OPENCLAW_PACKAGED_COMPILE_CACHE_RESPAWNED" not in env, line  # no compile-cache restart
                cache = env.get("NODE_COMPILE_CACHE")  # OpenClaw hands its own cache folder to its workers
                assert cache is None or Path(cache).is_relative_to(private_tmp), (line, cache)
            assert any(line.startswith("openclaw-gateway") for line in nodes.values()), nodes
            assert any(line.startswith("openclaw-acp") for line in nodes.values()), nodes
        info = os.lstat(private_tmp)
        assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o700
        assert (private_tmp / "node-compile-cache" / "openclaw").is_dir()  # the cache is ours, not /tmp's
        await assert_no_process_left(agent, within=4.0)
    finally:
        agent.close()

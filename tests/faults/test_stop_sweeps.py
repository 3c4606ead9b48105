"""Fault class (issue 39, round 3, class 4): stopping an agent stops everything it started, also what left its
process group (``setsid``, daemonizing children), on every stop — not only when the bridge itself dies.

The scripted agent's ``daemon NAME`` prompt runs ``setsid python -c 'sleep 300' NAME &`` as a shell command (the
way a real agent's shell tool starts a server in the background): a process in a session of its own, found here by
the marker in its argv. For each way an agent is stopped — a switch to another agent, session/close,
session/delete, the end of ``acp-mux run``, leaving ``async with acp_mux.run(...)``, the failover switch — nothing
with the marker is alive 2 s later, while the bridge itself runs on.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import acp_mux
from acp_mux.core.process.spawn import SpawnSpec, spawn
from tests.faults.raw import RawBridge, wait_until
from tests.procs import pids, read_proc
from tests.server.client import RecordingClient
from tests.server.switching_client import current_agent, prompt, switch, switching_bridge

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="only Linux lets the supervisor find what left its session"
)

ALLOW = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}


def marked(marker: str) -> list[int]:
    """Live processes with ``marker`` in their command line."""
    needle = marker.encode()
    return [pid for pid in pids() if needle in read_proc(pid, "cmdline")]


def assert_gone(marker: str, within: float = 2.0) -> None:
    deadline = time.monotonic() + within
    while marked(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = marked(marker)
    for pid in left:  # never leave them behind, even when failing
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert left == [], f"still alive {within}s after the stop: {[read_proc(p, 'cmdline') for p in left]}"


def new_marker() -> str:
    return f"acp-mux-mark-{uuid.uuid4().hex}"


def started_daemon(marker: str) -> None:
    """The daemon runs, in a session of its own (so the agent's process group does not hold it)."""
    wait_until(lambda: marked(marker), what="the daemon to start")
    [pid] = marked(marker)
    assert os.getsid(pid) == pid, "the daemon left the agent's session"


# ── the bridge, driven over stdio ───────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("method", ["session/close", "session/delete"])
def test_closing_or_deleting_the_session_ends_what_its_agent_daemonized(tmp_path: Path, method: str) -> None:
    marker = new_marker()
    raw = RawBridge(tmp_path, answer=lambda request: ALLOW)
    try:
        raw.initialize()
        sid = raw.new_session()
        answer = raw.call(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": f"daemon {marker}"}]}, 30
        )
        assert answer["result"]["stopReason"] == "end_turn", answer
        started_daemon(marker)
        assert raw.call(method, {"sessionId": sid}, 10)["result"] == {}
        assert_gone(marker)
        assert raw.serves()  # the bridge itself carries on
    finally:
        raw.close()


async def test_a_switch_to_another_agent_ends_what_the_first_one_daemonized(tmp_path: Path) -> None:
    marker = new_marker()
    async with switching_bridge(RecordingClient(), tmp_path) as (conn, _proc, sid):
        assert (await prompt(conn, sid, f"daemon {marker}")).stop_reason == "end_turn"
        await asyncio.to_thread(started_daemon, marker)
        assert current_agent(await switch(conn, sid, "beta")) == "beta"
        await asyncio.to_thread(assert_gone, marker)
        assert (await prompt(conn, sid, "hello")).stop_reason == "end_turn"  # beta answers


async def test_the_failover_switch_ends_what_the_limited_agent_daemonized(tmp_path: Path) -> None:
    marker = new_marker()
    client = RecordingClient()
    async with switching_bridge(client, tmp_path, ACP_MUX_FAILOVER="beta") as (conn, _proc, sid):
        assert (await prompt(conn, sid, f"daemon {marker}")).stop_reason == "end_turn"
        await asyncio.to_thread(started_daemon, marker)
        assert (await prompt(conn, sid, "quota")).stop_reason == "end_turn"  # alpha at its limit: beta answers
        assert "beta" in client.text().lower() or any("beta" in str(u) for u in client.updates)
        await asyncio.to_thread(assert_gone, marker)


def test_the_end_of_acp_mux_run_ends_what_the_agent_daemonized(tmp_path: Path) -> None:
    marker = new_marker()
    cwd = tmp_path / "project"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_MUX_")}
    command = ["run", "--agent", "demo", "--json", "--allow", f"execute:setsid {marker}", f"daemon {marker}"]
    run = subprocess.Popen(
        [sys.executable, "-m", "acp_mux", *command],
        cwd=cwd,
        env={**env, "ACP_MUX_STATE_DIR": str(tmp_path / "state"), "NO_COLOR": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: list[int] = []
    while run.poll() is None:  # the daemon runs while the run does
        seen = seen or marked(marker)
        time.sleep(0.02)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    assert '"approval_granted"' in out and seen, "the daemon was started"
    assert_gone(marker)


async def test_leaving_the_api_context_ends_what_the_agent_daemonized(tmp_path: Path) -> None:
    marker = new_marker()
    cwd = tmp_path / "project"
    cwd.mkdir()
    work: dict[str, Any] = {"cwd": str(cwd), "state_dir": str(tmp_path / "state")}
    async with acp_mux.run(
        "demo", f"daemon {marker}", approvals=acp_mux.allow(f"execute:setsid {marker}"), **work
    ) as run:
        [e async for e in run]
        assert run.result is not None and run.result.stop_reason == "end_turn", run.result
        await asyncio.to_thread(started_daemon, marker)
    await asyncio.to_thread(assert_gone, marker)


# ── the property: any tree of processes, any stop ───────────────────────────────────────────────────────────────
SPAWN_TREE = Path(__file__).resolve().parents[1] / "fakes" / "programs" / "spawn_tree.py"
nodes = st.recursive(
    st.fixed_dictionaries({"setsid": st.booleans(), "ignore_term": st.booleans(), "daemonize": st.booleans()}),
    lambda inner: st.fixed_dictionaries(
        {
            "setsid": st.booleans(),
            "ignore_term": st.booleans(),
            "daemonize": st.booleans(),
            "children": st.lists(inner, min_size=1, max_size=2),
        }
    ),
    max_leaves=3,
)
# How the agent ends before the stop: it is stopped while it runs, its stdin is closed (the polite close every stop
# starts with, after which it exits by itself), or it exits by itself once its tree is up (a one-shot agent's turn)
endings = st.sampled_from(["running", "stdin", "now"])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tree=st.lists(nodes, min_size=1, max_size=2), ending=endings, grace=st.sampled_from([0.0, 0.3, 1.0]))
@example(tree=[{"setsid": True, "ignore_term": False, "daemonize": False}], ending="running", grace=1.0)
def test_a_stop_ends_every_process_the_agent_started(
    tree: list[dict[str, Any]], ending: str, grace: float, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Whatever tree of processes the agent started (in its group or out of it, ignoring SIGTERM or not, daemons
    whose parent exited) and however it got to the stop, nothing of it is alive 2 s after terminate() — the stop
    every caller ends with (Run.stop, abort, a timeout)."""
    marker = new_marker()
    folder = tmp_path_factory.mktemp("tree")
    exit_when = "never" if ending == "running" else ending

    async def scenario() -> float:
        spec = SpawnSpec(sys.executable, [str(SPAWN_TREE), json.dumps(tree), marker, str(folder), exit_when])
        proc = await spawn(spec)
        lines = proc.lines()
        ready = await asyncio.wait_for(lines.__anext__(), 30)
        assert ready.startswith("ready"), ready
        if ending == "stdin":
            await proc.close_stdin()
        if ending != "running":
            await asyncio.wait_for(proc.wait(), 10)
        started = time.monotonic()
        await asyncio.wait_for(proc.terminate(grace), grace + 5)
        return time.monotonic() - started

    took = asyncio.run(scenario())
    assert took < grace + 1.5, f"terminate({grace}) took {took:.2f}s"
    assert_gone(marker)

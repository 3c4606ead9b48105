"""OpenClaw's one private gateway per user, on the real CLI (2026.9.6): shared by two editor windows (two bridge
processes), out of reach of a program that takes its port first, gone a grace period after the last bridge is
killed outright, a session resumed on the next gateway, and OpenClaw's own retries of a 429 shown as they happen.

The first test covers sharing, the port and the lifetime together, because each gateway start costs 30-60 s of CPU
here: a hostile listener binds the port the first
gateway was configured for (read from the registration the moment it appears, long before the gateway listens); the
first bridge must start a gateway elsewhere and answer, and the hostile listener must receive nothing. A second
bridge then attaches to the same gateway and answers. Both bridges are SIGKILLed: nothing of the test's is left
GRACE + 2 s later. (The first words of a second window are timed by benchmarks/bench.py, not asserted here.)
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import threading
import time
from pathlib import Path

import acp
import pytest

from acp_mux.adapters.acp_agents.openclaw.gateway import GRACE_ENV
from acp_mux.adapters.acp_agents.openclaw.registry import Registration, read_registration
from tests.e2e.harness import RealAgent, require_cli
from tests.e2e.test_openclaw import FIRST_TURN_TIMEOUT, TURN_TIMEOUT
from tests.e2e.test_real_agents import assert_no_process_left, prompt
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

GRACE_S = 4


class HostileListener:
    """A local program that binds the gateway's port before the gateway does and records every byte it receives."""

    def __init__(self) -> None:
        self.received = bytearray()
        self.connections = 0
        self.sock: socket.socket | None = None

    def take(self, port: int) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        assert self.sock is not None
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.settimeout(2)
            try:
                while chunk := conn.recv(65536):
                    self.received += chunk
            except OSError:
                pass
            conn.close()

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()


async def first_registration(root: Path, timeout: float) -> Registration:
    deadline = time.monotonic() + timeout
    while (found := read_registration(root)) is None:
        assert time.monotonic() < deadline, "no gateway was registered"
        await asyncio.sleep(0.01)
    return found


def keepers(agent: RealAgent) -> list[int]:
    return [pid for pid in agent.processes() if b"openclaw/keeper.py" in Path(f"/proc/{pid}/cmdline").read_bytes()]


async def test_two_windows_share_one_gateway_no_hostile_port_gets_the_token_and_killing_both_ends_it(
    tmp_path: Path,
) -> None:
    agent = RealAgent("openclaw", require_cli("openclaw"), tmp_path)
    agent.serve("openclaw_text", delta_delay=0)
    agent.extra_env[GRACE_ENV] = str(GRACE_S)
    root = agent.root / "state" / "openclaw"
    hostile = HostileListener()
    first, second = RecordingClient(), RecordingClient()
    try:
        async with agent.bridge(first) as (conn_a, proc_a):
            sid_a = await agent.session(conn_a)  # the gateway starts with the session, before the first prompt
            taken = await first_registration(root, 60)
            hostile.take(taken.port)  # the gateway is still booting (14-27 s): the port is ours to take
            result = await prompt(conn_a, sid_a, "Write the long answer.", timeout=FIRST_TURN_TIMEOUT)
            assert result.stop_reason == "end_turn", agent.log()[-3000:]
            assert "Line 001" in first.text()
            shared = read_registration(root)
            assert shared is not None and shared.port != taken.port and shared.alive()
            assert hostile.received == b"", bytes(hostile.received[:200])  # not one byte, so not the token

            async with agent.bridge(second) as (conn_b, proc_b):
                sid_b = await agent.session(conn_b)
                started = time.monotonic()
                result = await prompt(conn_b, sid_b, "Write the long answer.", timeout=TURN_TIMEOUT)
                assert result.stop_reason == "end_turn", agent.log()[-3000:]
                assert "Line 001" in second.text()
                print(f"second window: Enter -> end of turn {time.monotonic() - started:.1f} s")
                assert read_registration(root) == shared  # the same gateway, not a second one
                assert len(keepers(agent)) == 1
                os.kill(proc_a.pid, signal.SIGKILL)  # both editors' bridges die without a word
                os.kill(proc_b.pid, signal.SIGKILL)
        assert shared.alive()  # the grace period: a window reopened now would find it
        await assert_no_process_left(agent, within=GRACE_S + 2.0)
        assert read_registration(root) is None
        assert hostile.received == b""
    finally:
        hostile.close()
        agent.close()


async def test_openclaw_shows_its_own_retries_of_a_429_at_once_and_ends_with_the_failure(tmp_path: Path) -> None:
    """OpenClaw retries a 429 nine times by itself (~2.5 min) and its ACP bridge says nothing meanwhile; the
    gateway's log line for each retry becomes a retry note within seconds, and when OpenClaw gives up the turn ends
    with the bridge's typed rate-limit error (read from the gateway's log: its ACP bridge ends the turn silently).
    Prints how long its retries took (measured: 9 retries, 148 s)."""
    agent = RealAgent("openclaw", require_cli("openclaw"), tmp_path)
    server = agent.serve("openclaw_text", error="rate", delta_delay=0)
    agent.extra_env[GRACE_ENV] = "1"
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            turn = asyncio.ensure_future(prompt(conn, sid, "hello", timeout=FIRST_TURN_TIMEOUT + 400))
            deadline = time.monotonic() + FIRST_TURN_TIMEOUT
            while not any(r.get("status") == 429 for r in server.requests):
                assert time.monotonic() < deadline and not turn.done(), agent.log()[-3000:]
                await asyncio.sleep(0.05)
            first_429 = time.monotonic()
            while "retrying, attempt 1/9" not in client.text():
                assert time.monotonic() - first_429 < 10 and not turn.done(), (client.text(), agent.log()[-3000:])
                await asyncio.sleep(0.05)
            shown_after = time.monotonic() - first_429
            assert "rate limited by the provider (HTTP 429)" in client.text(), client.text()
            with pytest.raises(acp.RequestError) as failed:  # as every agent's rate-limited turn: a typed error
                await turn
            took = time.monotonic() - first_429
            outcome = client.text().rpartition("attempt 9/9")[2]
            assert "Rate limited or out of quota" not in outcome, outcome  # shown once: by the prompt's error
            assert failed.value.code == -32603 and "Rate limited or out of quota" in str(failed.value), outcome
            attempts = sum(1 for r in server.requests if r.get("status") == 429)
            print(
                f"openclaw 429: first note {shown_after:.1f} s after the first 429; {attempts} requests, "
                f"{client.text().count('retrying, attempt')} notes; gave up after {took:.0f} s"
            )
            assert attempts == 10 and client.text().count("retrying, attempt") == 9, client.text()
    finally:
        agent.close()
    await assert_no_process_left(agent, within=1 + 2.0)


async def test_a_session_resumes_on_the_next_gateway_after_the_last_window_closed(tmp_path: Path) -> None:
    """The last window closes, the shared gateway goes after its grace; a new window starts a new gateway on the
    same private state, and the session resumes there: the model gets the earlier turn back. (Asking is off here,
    ``ACP_MUX_OPENCLAW_ASK=bypass``: this is about the gateway's lifetime, not its questions.)"""
    agent = RealAgent("openclaw", require_cli("openclaw"), tmp_path)
    server = agent.serve("openclaw_text", delta_delay=0)
    agent.extra_env.update({GRACE_ENV: "1", "ACP_MUX_OPENCLAW_ASK": "bypass"})
    root = agent.root / "state" / "openclaw"
    try:
        async with agent.bridge(RecordingClient()) as (conn, _):
            sid = await agent.session(conn)
            result = await prompt(conn, sid, "Remember the word zanzibar.", timeout=FIRST_TURN_TIMEOUT)
            assert result.stop_reason == "end_turn", agent.log()[-3000:]
            before = read_registration(root)
        await assert_no_process_left(agent, within=1 + 2.0)
        assert before is not None and not before.alive() and read_registration(root) is None

        async with agent.bridge(RecordingClient()) as (conn, _):
            await conn.initialize(protocol_version=1)
            await conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
            again = await prompt(conn, sid, "Which word?", timeout=FIRST_TURN_TIMEOUT)
            assert again.stop_reason == "end_turn", agent.log()[-3000:]
            after = read_registration(root)
            assert after is not None and after != before
            body = json.dumps([r["body"] for r in server.requests if "Which word?" in json.dumps(r.get("body"))])
            assert "zanzibar" in body  # the model got the earlier turn back, from the new gateway
        await assert_no_process_left(agent, within=1 + 2.0)
    finally:
        agent.close()

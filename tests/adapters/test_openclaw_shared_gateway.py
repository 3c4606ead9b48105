"""The one private OpenClaw gateway per user, without the real CLI: find-or-start under a lock (two bridges at once
end with one gateway), leases that keep it (a SIGKILLed bridge's lease goes with it), the keeper that stops it after
the grace period, the registration read as hostile input, and the check that the port's listener is the gateway's
before the token is handed out (tests/e2e/test_openclaw_shared_gateway.py runs the real 2026.9.6)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.adapters.acp_agents.openclaw import (
    gateway as openclaw_gateway,
    keeper as openclaw_keeper,
    registry as openclaw_registry,
    retries as openclaw_retries,
)
from acp_mux.adapters.acp_agents.loopback_owner import listener_owned_by, parse_listeners
from acp_mux.adapters.acp_agents.openclaw.gateway import GRACE_ENV, Gateway, GatewayError, PortNotOurs, grace_seconds
from acp_mux.adapters.acp_agents.openclaw.registry import (
    LEASE,
    REGISTRY,
    Registration,
    process_start,
    read_registration,
    write_registration,
)
from acp_mux.adapters.acp_agents.openclaw.retries import retry_events
from tests.adapters.helpers import make_ctx

# A stand-in for `openclaw gateway run --port N`: appends one line per start to FAKE_GATEWAY_STARTS, takes a while
# to listen (FAKE_GATEWAY_DELAY), exits if the port is taken (as a gateway does), and with FAKE_GATEWAY_REUSEPORT
# binds with SO_REUSEPORT, so another program of the same user can listen on the very same port beside it.
FAKE = f"""#!{sys.executable}
import os, socket, sys, time
args = sys.argv[1:]
port = int(args[args.index("--port") + 1])
with open(os.environ["FAKE_GATEWAY_STARTS"], "a") as fh:
    fh.write(f"{{os.getpid()}} {{port}}\\n")
time.sleep(float(os.environ.get("FAKE_GATEWAY_DELAY", "0")))
s = socket.socket()
if os.environ.get("FAKE_GATEWAY_REUSEPORT"):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
try:
    s.bind(("127.0.0.1", port))
except OSError as exc:
    print(f"Gateway failed to start: {{exc}}", flush=True)
    sys.exit(1)
s.listen()
print("listening", flush=True)
while True:
    conn, _ = s.accept(); conn.close()
"""


def install_fake(tmp_path: Path, script: str = FAKE) -> Path:
    """``script`` as the ``openclaw`` executable in ``tmp_path/bin`` (the stand-ins the openclaw tests start)."""
    path = tmp_path / "bin" / "openclaw"
    path.parent.mkdir()
    path.write_text(script)
    path.chmod(0o755)
    return path


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    return install_fake(tmp_path)


def env_for(tmp_path: Path, grace: str = "0", **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "ACP_MUX_STATE_DIR": str(tmp_path / "state"),
        "FAKE_GATEWAY_STARTS": str(tmp_path / "starts"),
        GRACE_ENV: grace,
        **extra,
    }


def starts(tmp_path: Path) -> list[str]:
    path = tmp_path / "starts"
    return path.read_text().splitlines() if path.exists() else []


async def gone(registration: Registration, within: float) -> float:
    """Seconds until neither the keeper nor the gateway runs; fails after ``within``."""
    began = time.monotonic()
    while time.monotonic() - began < within:
        if (
            process_start(registration.gateway_pid) != registration.gateway_start
            and process_start(registration.keeper_pid) != registration.keeper_start
        ):
            return time.monotonic() - began
        await asyncio.sleep(0.05)
    raise AssertionError(f"the shared gateway still runs {within} s later")


class Hostile:
    """A listener of another program on a port; records what it receives."""

    def __init__(self, port: int = 0, reuseport: bool = False) -> None:
        self.sock = socket.socket()
        if reuseport:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.received = bytearray()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(1)
            try:
                while chunk := conn.recv(4096):
                    self.received += chunk
            except OSError:
                pass
            conn.close()

    def close(self) -> None:
        self.sock.close()


# ── sharing ────────────────────────────────────────────────────────────────────────────────────────────────────
@pytest.mark.asyncio
async def test_two_bridges_starting_at_once_share_one_gateway_and_it_goes_after_both(
    tmp_path: Path, fake: Path
) -> None:
    env = env_for(tmp_path, FAKE_GATEWAY_DELAY="0.5")
    first, second = Gateway(str(fake), env), Gateway(str(fake), env)
    try:
        a, b = await asyncio.gather(first.ready(timeout=30), second.ready(timeout=30))
        assert a == b and len(starts(tmp_path)) == 1
        registration = read_registration(tmp_path / "state" / "openclaw")
        assert registration is not None and registration == first.registration == second.registration
        await first.stop()  # one window closed: the other still holds it
        await asyncio.sleep(1.5)
        assert registration.alive()
        assert await second.ready() == b
    finally:
        await first.stop()
        await second.stop()
    await gone(registration, within=5.0)  # grace 0 here (the timing claim: the SIGKILL test)
    assert read_registration(tmp_path / "state" / "openclaw") is None


LEASE_HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_SH)
print("held", flush=True)
time.sleep(600)
"""


@pytest.mark.asyncio
async def test_a_killed_bridge_lease_goes_with_it_and_the_gateway_after_the_grace(tmp_path: Path, fake: Path) -> None:
    grace = 1.5
    gateway = Gateway(str(fake), env_for(tmp_path, grace=str(grace)))
    await gateway.ready(timeout=30)
    registration = gateway.registration
    assert registration is not None
    holder = subprocess.Popen(
        [sys.executable, "-c", LEASE_HOLDER, str(gateway.root / LEASE)], stdout=subprocess.PIPE, text=True
    )  # another bridge, attached
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        await gateway.stop()
        await asyncio.sleep(grace + 1.0)
        assert registration.alive()  # the other bridge still holds its lease
        holder.send_signal(signal.SIGKILL)  # and dies without a word
        holder.wait()
        took = await gone(registration, within=grace + 2.0)
        assert took >= grace - 0.1  # not before the grace period is over
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.asyncio
async def test_a_new_bridge_starts_anew_after_the_gateway_went(tmp_path: Path, fake: Path) -> None:
    gateway = Gateway(str(fake), env_for(tmp_path))
    first = await gateway.ready(timeout=30)
    old = gateway.registration
    assert old is not None
    await gateway.stop()
    await gone(old, within=5.0)
    again = Gateway(str(fake), env_for(tmp_path))
    try:
        await again.ready(timeout=30)
        assert again.registration is not None and again.registration != old and len(starts(tmp_path)) == 2
        assert again.endpoint is not None and again.endpoint.state == first.state  # same state: sessions resume
    finally:
        await again.stop()
    await gone(again.registration, within=5.0)


@pytest.mark.asyncio
async def test_a_gateway_whose_keeper_was_killed_is_ended_by_the_next_bridge(tmp_path: Path, fake: Path) -> None:
    gateway = Gateway(str(fake), env_for(tmp_path, grace="60"))
    await gateway.ready(timeout=30)
    old = gateway.registration
    assert old is not None
    os.kill(old.keeper_pid, signal.SIGKILL)  # the gateway dies with it (PR_SET_PDEATHSIG)
    await gone(old, within=2.0)
    await gateway.stop()
    again = Gateway(str(fake), env_for(tmp_path))
    try:
        await again.ready(timeout=30)
        assert again.registration is not None and again.registration.keeper_pid != old.keeper_pid
    finally:
        await again.stop()
    await gone(again.registration, within=5.0)


# ── ports ──────────────────────────────────────────────────────────────────────────────────────────────────────
@pytest.mark.asyncio
async def test_a_port_taken_before_the_gateway_binds_gets_nothing_and_another_port_is_used(
    tmp_path: Path, fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hostile = Hostile()
    real = openclaw_gateway.free_port
    ports = iter([hostile.port])
    monkeypatch.setattr(openclaw_gateway, "free_port", lambda: next(ports, None) or real())
    gateway = Gateway(str(fake), env_for(tmp_path, FAKE_GATEWAY_DELAY="0.3"))
    try:
        endpoint = await gateway.ready(timeout=30)
        assert endpoint.url != f"ws://127.0.0.1:{hostile.port}"  # the first one was retired, a new port used
        await asyncio.sleep(0.3)
        assert hostile.received == b""
    finally:
        hostile.close()
        await gateway.stop()
    assert gateway.registration is not None
    await gone(gateway.registration, within=5.0)


@pytest.mark.asyncio
async def test_a_listener_beside_the_gateway_on_its_port_fails_the_turn_before_the_token_goes(
    tmp_path: Path, fake: Path
) -> None:
    gateway = Gateway(str(fake), env_for(tmp_path, FAKE_GATEWAY_REUSEPORT="1"))
    await gateway.ready(timeout=30)
    registration = gateway.registration
    assert registration is not None
    hostile = Hostile(registration.port, reuseport=True)  # same user, SO_REUSEPORT: it shares the port's connections
    try:
        with pytest.raises(PortNotOurs, match="token was not sent"):
            await gateway.ready()
        await gone(registration, within=5.0)  # that gateway is not trusted any more: stopped
        assert read_registration(gateway.root) is None
        assert hostile.received == b""
    finally:
        hostile.close()
        await gateway.stop()


def test_listener_ownership_on_the_real_process_table() -> None:
    with socket.socket() as mine:
        mine.bind(("127.0.0.1", 0))
        port = mine.getsockname()[1]
        assert listener_owned_by(port, [os.getpid()]) is False  # bound, not listening: nothing listens
        mine.listen()
        assert listener_owned_by(port, [os.getpid()]) is True
        assert listener_owned_by(port, [1]) is False  # someone else's pid does not hold it


def _row(address: str, port: int, state: str, inode: int) -> str:
    return f"   0: {address}:{port:04X} 00000000:0000 {state} 00000000:00000000 00:00000000 00000000  1000 0 {inode}"


def _hex4(ip: bytes) -> str:
    return "".join(f"{int.from_bytes(ip[i : i + 4], sys.byteorder):08X}" for i in range(0, len(ip), 4))


_V4 = {b"\x7f\x00\x00\x01": True, b"\x00\x00\x00\x00": True, b"\x7f\x00\x00\x02": False, b"\x0a\x00\x00\x01": False}
_V6 = {bytes(16): True, bytes(10) + b"\xff\xff\x7f\x00\x00\x01": True, bytes(15) + b"\x01": False}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(sorted(_V4.items()) + sorted(_V6.items())),
            st.sampled_from([4242, 4243]),
            st.sampled_from(["0A", "01", "06"]),
            st.integers(1, 10**9),
        ),
        max_size=8,
    ),
    st.sampled_from([4242, 4243]),
)
def test_only_listeners_a_loopback_connection_reaches_count(
    rows: list[tuple[tuple[bytes, bool], int, str, int]], port: int
) -> None:
    """An attacker's socket anywhere 127.0.0.1:PORT leads (the exact address, a v4 or v6 wildcard, the v4-mapped
    address) is found; sockets that a loopback connection cannot reach, other ports and non-listening states are
    not."""
    table = "  sl  local_address rem_address   st\n" + "\n".join(
        _row(_hex4(ip), p, state, inode) for (ip, _), p, state, inode in rows
    )
    expected = {inode for (_, reaches), p, state, inode in rows if reaches and p == port and state == "0A"}
    assert parse_listeners(table, port) == expected


# ── the registration is hostile input ──────────────────────────────────────────────────────────────────────────
@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=15), inner, max_size=8),
        max_leaves=20,
    )
)
def test_a_registration_of_any_other_shape_is_no_registration(value: object) -> None:
    found = Registration.from_json(json.dumps(value))
    if found is not None:
        assert all(
            type(getattr(found, name)) is int and getattr(found, name) > 0
            for name in ("keeper_pid", "keeper_start", "gateway_pid", "gateway_start", "port")
        )
        assert 0 < found.port < 65536 and (found.include_root is None or isinstance(found.include_root, str))


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["keeper_pid", "keeper_start", "gateway_pid", "gateway_start", "port"]),
    st.one_of(st.booleans(), st.floats(), st.text(max_size=5), st.none(), st.integers(max_value=0)),
)
def test_a_field_of_the_wrong_type_or_range_voids_it(name: str, bad: object) -> None:
    good = Registration(1, 2, 3, 4, 5, None)
    assert Registration.from_json(good.to_json()) == good
    assert Registration.from_json(json.dumps({**json.loads(good.to_json()), name: bad})) is None
    assert Registration.from_json(json.dumps({**json.loads(good.to_json()), "extra": 1})) is None


def test_a_recycled_pid_is_not_the_gateway(tmp_path: Path) -> None:
    me = os.getpid()
    start = process_start(me)
    assert start is not None
    assert Registration(me, start, me, start, 4242).alive()
    assert not Registration(me, start + 1, me, start, 4242).alive()  # same pid, another process
    assert not Registration(me, start, me, start - 1, 4242).alive()


def test_only_a_small_regular_file_of_ours_is_read(tmp_path: Path) -> None:
    good = Registration(1, 2, 3, 4, 5, "/x")
    write_registration(tmp_path, good)
    assert read_registration(tmp_path) == good
    assert oct((tmp_path / REGISTRY).stat().st_mode & 0o777) == "0o600"
    (tmp_path / REGISTRY).unlink()
    os.mkfifo(tmp_path / REGISTRY)  # a special file where the registration should be: refused, no hang
    assert read_registration(tmp_path) is None
    (tmp_path / REGISTRY).unlink()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(good.to_json())
    (tmp_path / REGISTRY).symlink_to(elsewhere)
    assert read_registration(tmp_path) is None
    (tmp_path / REGISTRY).unlink()
    (tmp_path / REGISTRY).write_text(good.to_json() + " " * 5000)
    assert read_registration(tmp_path) is None


# ── settings ───────────────────────────────────────────────────────────────────────────────────────────────────
@given(st.text(max_size=12))
def test_the_grace_is_a_number_of_seconds_or_refused(raw: str) -> None:
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if raw == "":
        assert grace_seconds({GRACE_ENV: raw}) == openclaw_gateway.DEFAULT_GRACE_S
    elif 0 <= value <= 3600:
        assert grace_seconds({GRACE_ENV: raw}) == value
    else:
        with pytest.raises(GatewayError, match=GRACE_ENV):
            grace_seconds({GRACE_ENV: raw})


def test_the_keeper_and_the_bridges_name_the_same_files() -> None:
    """The keeper imports nothing of ours (it starts in milliseconds): its file names must match by hand."""
    assert (openclaw_keeper.LEASE, openclaw_keeper.LOCK, openclaw_keeper.REGISTRY) == (
        openclaw_registry.LEASE,
        openclaw_registry.LOCK,
        openclaw_registry.REGISTRY,
    )


@pytest.mark.asyncio
async def test_a_bridge_that_attaches_reads_only_what_the_gateway_logs_from_then_on(tmp_path: Path, fake: Path) -> None:
    """A failure logged for a session before this bridge attached is another turn's, never this one's."""
    env = env_for(tmp_path)
    first, second = Gateway(str(fake), env), Gateway(str(fake), env)
    try:
        await first.ready(timeout=30)
        await asyncio.sleep(0.6)  # a turn's failure is logged after its bridge attached, never before
        line = 'lane task error: lane=session:agent:main:acp-bridge:abc durationMs=1 error="HTTP 401 old"\n'
        with open(first.log_path, "a") as fh:
            fh.write(line)
        await asyncio.sleep(0.6)
        assert first.take_failure("abc") == "HTTP 401 old"
        await second.ready(timeout=30)
        await asyncio.sleep(0.6)
        assert second.take_failure("abc") is None
        with open(first.log_path, "a") as fh:
            fh.write(line.replace("old", "new"))
        assert second.take_failure("abc") == "HTTP 401 new"  # at once: a turn may end before the next poll
    finally:
        await first.stop()
        await second.stop()
    assert first.registration is not None
    await gone(first.registration, within=5.0)


# ── OpenClaw's own retries, from its log ───────────────────────────────────────────────────────────────────────
RETRY_LINE = (
    "2026-11-25T19:26:19.337+00:00 [agent/embedded] transient same-model retry 2/9 for fake/fake-model "
    "reason=rate_limit: delayMs=2150"
)


def test_a_retry_line_of_the_gateway_is_a_retry_note() -> None:
    ctx = make_ctx("openclaw", "/tmp")
    events = retry_events(RETRY_LINE, ctx)
    retry = [e for e in events if e.type == "retry"]
    assert len(retry) == 1 and (retry[0].attempt, retry[0].max_attempts, retry[0].delay_ms) == (2, 9, 2150)
    assert retry[0].reason == "rate limited by the provider (HTTP 429) (fake/fake-model)"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_no_other_line_is_a_retry(line: str) -> None:
    """Arbitrary log text (also text that embeds the marker) never raises and never invents a retry: a note comes
    only from a whole retry line, with its numbers as written."""
    ctx = make_ctx("openclaw", "/tmp")
    for text in (line, "transient same-model retry " + line):
        events = [e for e in retry_events(text, ctx) if e.type == "retry"]
        found = openclaw_retries._RETRY.search(text)
        assert (found is None) == (events == [])
        if events:
            assert events[0].attempt == int(found.group(1)) and events[0].delay_ms == int(found.group(5))

"""Process layer: pipes, signals, process groups, ProcessTracker."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from acp_mux.core.process.lines import LineSplitter, TailBuffer
from acp_mux.core.process.spawn import AgentProcess, ExitStatus, ProcessInputClosed, SpawnError, SpawnSpec, spawn
from acp_mux.core.process.tracker import TRACKER
from tests.procs import pid_alive, pid_state

ROOT = Path(__file__).resolve().parents[2]
PROGS = ROOT / "tests" / "fakes" / "programs"
PY = sys.executable


def prog(name: str, *args: str) -> SpawnSpec:
    return SpawnSpec(PY, [str(PROGS / name), *args])


@pytest.fixture
async def procs() -> AsyncIterator[list[AgentProcess]]:
    """Collects spawned processes and kills their groups whatever happens."""
    started: list[AgentProcess] = []
    yield started
    for p in started:
        p.kill()
        try:
            await asyncio.wait_for(p.wait(), 5)
        except TimeoutError:
            pass


async def start(procs: list[AgentProcess], spec: SpawnSpec, **kw) -> AgentProcess:
    p = await asyncio.wait_for(spawn(spec, **kw), 10)
    procs.append(p)
    return p


async def collect(p: AgentProcess, timeout: float = 10) -> list[str]:
    async def run() -> list[str]:
        return [line async for line in p.lines()]

    return await asyncio.wait_for(run(), timeout)


async def read_until(p: AgentProcess, want: str, timeout: float = 10) -> list[str]:
    seen: list[str] = []

    async def run() -> list[str]:
        async for line in p.lines():
            seen.append(line)
            if line == want:
                return seen
        raise AssertionError(f"EOF before {want!r}; got {seen!r}")

    return await asyncio.wait_for(run(), timeout)


def pid_dead(pid: int) -> bool:
    return not pid_alive(pid)


async def eventually(check, timeout: float = 1.0) -> bool:
    """Poll ``check`` (signals are delivered asynchronously)."""
    deadline = time.monotonic() + timeout
    while not check() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    return bool(check())


# ------------------------------------------------------------------ pure units
def test_line_splitter_handles_crlf_and_chunk_boundaries() -> None:
    s = LineSplitter()
    out = s.feed(b"a\r\nb") + s.feed(b"c\r") + s.feed(b"\nd\n\n") + s.feed(b"tail\r")
    assert [bytes(x) for x in out] == [b"a", b"bc", b"d", b""]
    assert bytes(s.flush() or b"") == b"tail"
    assert s.flush() is None


def test_tail_buffer_is_bounded_and_utf8_safe() -> None:
    t = TailBuffer(10)
    t.feed("é".encode() * 20)
    assert len(t.text().encode()) <= 10 and "\ufffd" not in t.text()
    assert t.total == 40 and t.dropped == 30


# ------------------------------------------------------------------ pipe mode
async def test_lines_in_order_and_unterminated_last_line(procs) -> None:
    p = await start(procs, prog("emit_lines.py", "--delay", "0.01", "--no-final-newline", "one", "two", "", "three"))
    assert await collect(p) == ["one", "two", "", "three"]
    assert await asyncio.wait_for(p.wait(), 5) == ExitStatus(0, None)
    assert p.exited and p.returncode == 0


async def test_huge_line_intact_and_fast(procs) -> None:
    t0 = time.monotonic()
    p = await start(procs, prog("huge_line.py", "50", "--crlf"))
    lines = await collect(p, timeout=20)
    assert [len(x) for x in lines] == [50 * 1024 * 1024, 4]
    assert lines[1] == "done" and lines[0][:3] == "xxx" and lines[0][-3:] == "xxx"
    assert time.monotonic() - t0 < 10


async def test_invalid_utf8_is_replaced(procs) -> None:
    p = await start(procs, prog("bad_utf8.py"))
    lines = await collect(p)
    assert lines[0] == "ok" and lines[-1] == "done"
    assert lines[1].startswith("bad:") and lines[1].endswith("end") and "\ufffd" in lines[1]
    assert lines[2] == "caf\u00e9 \u2713"
    assert lines[3].startswith("trunc") and "\ufffd" in lines[3]


async def test_chatty_stderr_is_drained_and_tail_bounded(procs) -> None:
    seen: list[str] = []
    p = await start(procs, prog("chatty_stderr.py", "5"), stderr_tail_bytes=4096)
    p.on_stderr_line = seen.append  # set right after spawn: nothing missed
    lines = await collect(p, timeout=15)
    assert lines[-1] == "done" and lines[0] == "out 0"
    await asyncio.wait_for(p.wait(), 5)
    assert await eventually(lambda: bool(seen) and seen[-1] == "err-last")  # drain may trail
    assert seen[0].startswith("err 000000") and seen[-1] == "err-last"
    assert len(seen) > 50_000
    tail = p.stderr_tail()
    assert len(tail.encode()) <= 4096 and tail.endswith("err-last\n")
    assert p.stderr_dropped_bytes > 5 * 1024 * 1024 - 4096


async def test_crash_exit_code_stderr_and_signal_status(procs) -> None:
    p = await start(procs, prog("crash.py", "--code", "3", "--stderr", "kaboom"))
    assert await collect(p) == ["starting"]
    assert await asyncio.wait_for(p.wait(), 5) == ExitStatus(3, None)
    assert await eventually(lambda: p.stderr_tail() == "kaboom\n")
    q = await start(procs, prog("crash.py", "--signal", "SIGSEGV"))
    assert await asyncio.wait_for(q.wait(), 5) == ExitStatus(None, "SIGSEGV")
    assert q.returncode == -signal.SIGSEGV
    k = await start(procs, prog("crash.py", "--signal", "SIGKILL"))  # no handler to reset: the supervisor used to
    assert await asyncio.wait_for(k.wait(), 5) == ExitStatus(None, "SIGKILL")  # exit 137 instead of dying by it


async def test_write_and_close_stdin(procs) -> None:
    p = await start(procs, prog("echo_stdin.py", "--prefix", ">"))
    assert await read_until(p, "ready") == ["ready"]
    await p.write("hello\n")
    await p.write(b"w\xc3\xb6rld\n")
    assert await read_until(p, ">wörld") == [">hello", ">wörld"]
    await p.close_stdin()
    assert await collect(p) == ["eof"]
    with pytest.raises(ProcessInputClosed):
        await p.write("late\n")


async def test_write_after_exit_raises_process_input_closed(procs) -> None:
    p = await start(procs, prog("emit_lines.py", "x"))
    await asyncio.wait_for(p.wait(), 5)
    with pytest.raises(ProcessInputClosed):
        for _ in range(50):  # the EPIPE may need a round trip to surface
            await p.write(b"y" * 65536)
            await asyncio.sleep(0.01)


async def test_spawn_missing_binary() -> None:
    before = TRACKER.active_count
    with pytest.raises(SpawnError, match="'no-such-agent-xyz' not found on PATH"):
        await spawn(SpawnSpec("no-such-agent-xyz"))
    with pytest.raises(SpawnError, match="not found"):
        await spawn(SpawnSpec("/nonexistent/dir/agent"))
    assert TRACKER.active_count == before


async def test_spawn_not_executable_and_bad_cwd(tmp_path: Path) -> None:
    before = TRACKER.active_count
    f = tmp_path / "agent"
    f.write_text("#!/bin/sh\necho hi\n")
    f.chmod(0o644)
    with pytest.raises(SpawnError, match=f"permission denied executing {f}"):
        await spawn(SpawnSpec(str(f)))
    env = {"PATH": str(tmp_path)}
    with pytest.raises(SpawnError, match="permission denied executing"):
        await spawn(SpawnSpec("agent", env=env))
    with pytest.raises(SpawnError, match="working directory"):
        await spawn(SpawnSpec(PY, ["-c", "pass"], cwd=str(tmp_path / "missing")))
    f.chmod(f.stat().st_mode | stat.S_IXUSR)
    noshebang = tmp_path / "noshebang"
    noshebang.write_bytes(b"\x7fELF garbage")
    noshebang.chmod(0o755)
    with pytest.raises(SpawnError, match="exec format error"):
        await spawn(SpawnSpec(str(noshebang)))
    with pytest.raises(SpawnError, match="permission denied"):
        await spawn(SpawnSpec(str(tmp_path)))
    assert TRACKER.active_count == before


async def test_spawn_resolves_via_env_path_and_uses_cwd(procs, tmp_path: Path) -> None:
    (tmp_path / "myagent").symlink_to(PY)
    p = await start(
        procs,
        SpawnSpec("myagent", ["-c", "import os; print(os.getcwd())"], env={"PATH": str(tmp_path)}, cwd=str(tmp_path)),
    )
    assert await collect(p) == [str(tmp_path)]


async def test_child_never_shares_our_stdio_and_has_own_group(procs) -> None:
    """The agent runs in a session and process group of its own (led by its supervisor), never ours."""
    code = (
        "import os,sys; print(os.getpid(), os.getpgrp(), os.getsid(0), os.fstat(0).st_ino != %d)" % os.fstat(0).st_ino
    )
    p = await start(procs, SpawnSpec(PY, ["-c", code]))
    pid, pgrp, sid, other_stdin = (await collect(p))[0].split()
    assert int(pid) == p.agent_pid != p.pid and int(pgrp) == int(sid) == p.pgid == p.pid != os.getpgrp()
    assert other_stdin == "True"


async def test_interrupt_delivers_sigint(procs) -> None:
    p = await start(procs, prog("hang.py"))
    await read_until(p, "ready")
    p.interrupt()
    await read_until(p, "got-sigint")
    assert not p.exited


async def test_terminate_escalates_and_kills_grandchild(procs) -> None:
    p = await start(procs, prog("hang.py", "--ignore-term", "--grandchild", "--grandchild-ignore-term"))
    lines = await read_until(p, "ready")
    gpid = int(lines[0].split()[1])
    assert not pid_dead(gpid) and p.group_alive()
    t0 = time.monotonic()
    status = await asyncio.wait_for(p.terminate(grace=0.5), 5)
    assert time.monotonic() - t0 < 0.5 + 1.0
    assert status == ExitStatus(None, "SIGKILL")
    assert not p.group_alive() and pid_dead(gpid)
    assert await asyncio.wait_for(p.terminate(), 1) == status  # idempotent
    assert p.pid not in [q.pid for q in TRACKER._procs.values()]


async def test_terminate_graceful_child_is_fast(procs) -> None:
    p = await start(procs, prog("hang.py", "--grandchild"))
    await read_until(p, "ready")
    t0 = time.monotonic()
    a, b = await asyncio.wait_for(asyncio.gather(p.terminate(5), p.terminate(5)), 5)
    assert a == b == ExitStatus(None, "SIGTERM")
    assert time.monotonic() - t0 < 1.0 and not p.group_alive()


async def test_leader_exit_ends_lines_even_if_grandchild_holds_pipe(procs) -> None:
    p = await start(procs, prog("hang.py", "--grandchild", "--exit-after", "0.2"))
    lines = await collect(p, timeout=5)
    assert lines[1:] == ["ready"]
    assert await asyncio.wait_for(p.wait(), 2) == ExitStatus(0, None)
    assert p.group_alive()  # the grandchild lingers in the group...
    await asyncio.wait_for(p.terminate(grace=1), 3)
    assert not p.group_alive()  # ...until terminate sweeps it


async def test_a_stopped_group_still_terminates(procs) -> None:
    """Someone stopped the agent (Ctrl-Z in its terminal, a debugger): terminate still ends it."""
    p = await start(procs, prog("hang.py"))
    await read_until(p, "ready")
    p.send_signal_to_group(signal.SIGSTOP)
    assert await eventually(lambda: pid_state(p.pid) == "T")
    assert (await asyncio.wait_for(p.terminate(grace=2), 5)).signal == "SIGTERM"


async def test_tracker_registers_unregisters_and_kill_all(procs) -> None:
    base = TRACKER.active_count
    a = await start(procs, prog("hang.py", "--grandchild", "--grandchild-ignore-term"))
    b = await start(procs, prog("hang.py", "--ignore-term"))
    assert TRACKER.active_count == base + 2
    gpid = int((await read_until(a, "ready"))[0].split()[1])
    await read_until(b, "ready")
    t0 = time.monotonic()
    TRACKER.kill_all(grace=0.3)
    assert time.monotonic() - t0 < 2
    assert TRACKER.active_count == 0
    await asyncio.wait_for(asyncio.gather(a.wait(), b.wait()), 5)
    assert await eventually(lambda: not a.group_alive() and not b.group_alive() and pid_dead(gpid))
    assert (await b.wait()).signal == "SIGKILL"
    c = await start(procs, prog("emit_lines.py", "x"))
    assert TRACKER.active_count == 1
    await asyncio.wait_for(c.wait(), 5)
    await asyncio.sleep(0)
    assert TRACKER.active_count == 0


async def leader_gone_grandchild_left(procs) -> tuple[AgentProcess, int]:
    """An agent whose leader exited while a grandchild lives on in its group."""
    p = await start(procs, prog("hang.py", "--grandchild", "--grandchild-ignore-term", "--exit-after", "0.2"))
    gpid = int((await read_until(p, "ready"))[0].split()[1])
    assert await asyncio.wait_for(p.wait(), 5) == ExitStatus(0, None)
    await asyncio.sleep(0.3)  # past the tracker's first emptiness check
    assert not pid_dead(gpid) and os.getpgid(gpid) == p.pgid
    return p, gpid


async def test_tracker_keeps_group_after_leader_exit_and_kill_all_kills_it(procs) -> None:
    p, gpid = await leader_gone_grandchild_left(procs)
    assert TRACKER._procs.get(p.pid) is p and TRACKER.active_count >= 1
    TRACKER.kill_all(grace=0.3)  # the grandchild ignores SIGTERM: needs the KILL
    assert await eventually(lambda: pid_dead(gpid), 2.0)
    assert not p.group_alive() and TRACKER.active_count == 0


async def test_tracker_forgets_group_once_it_is_empty(procs) -> None:
    p, gpid = await leader_gone_grandchild_left(procs)
    assert TRACKER._procs.get(p.pid) is p
    os.kill(gpid, signal.SIGKILL)
    assert await eventually(lambda: p.pid not in TRACKER._procs, 2.0)  # polled, not pruned


_LEADERLESS_HOST = """
import asyncio, sys
from acp_mux.core.process.spawn import SpawnSpec, spawn

async def main():
    proc = await spawn(SpawnSpec(sys.executable, [sys.argv[1], "--grandchild",
                                 "--grandchild-ignore-term", "--exit-after", "0.2"]))
    lines = [line async for line in proc.lines()]
    await proc.wait()
    print("pids", proc.pid, lines[0].split()[1], flush=True)

asyncio.run(main())
"""


async def test_tracker_kills_leaderless_group_at_host_exit() -> None:
    """The bridge exits after the agent's leader did: atexit still sweeps its group."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    host = await asyncio.create_subprocess_exec(
        PY,
        "-c",
        _LEADERLESS_HOST,
        str(PROGS / "hang.py"),
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    leader = gpid = 0
    try:
        out, err = await asyncio.wait_for(host.communicate(), 15)
        assert host.returncode == 0, err.decode()
        words = out.decode().split()
        assert words[0] == "pids", out
        leader, gpid = int(words[1]), int(words[2])
        assert pid_dead(leader)
        assert await eventually(lambda: pid_dead(gpid), 2.0)
    finally:
        if host.returncode is None:
            host.kill()
            await host.wait()
        if gpid and not pid_dead(gpid):
            os.kill(gpid, signal.SIGKILL)


@pytest.mark.parametrize("mode", ["normal", "sigterm", "exception", "sigkill", "sigkill setsid", "normal setsid"])
async def test_tracker_cleans_up_when_host_dies(mode: str) -> None:
    """Whatever way the host ends — even SIGKILL, when none of its code runs — the agent and its grandchild die
    within 2 s (the supervisor's lifeline); on Linux also a grandchild that left the group with setsid."""
    if "setsid" in mode and not sys.platform.startswith("linux"):
        pytest.skip("only Linux lets the supervisor find descendants that left its session (subreaper, /proc)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    mode, *extra = mode.split()
    host = await asyncio.create_subprocess_exec(
        PY,
        str(PROGS / "tracker_host.py"),
        mode,
        *extra,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    leader = gpid = 0
    try:
        first = (await asyncio.wait_for(host.stdout.readline(), 10)).decode().split()
        assert first[0] == "pids", first
        leader, gpid = int(first[1]), int(first[2])
        assert not pid_dead(leader) and not pid_dead(gpid)
        if mode in ("sigterm", "sigkill"):
            assert (await asyncio.wait_for(host.stdout.readline(), 5)) == b"waiting\n"
            host.send_signal(signal.SIGTERM if mode == "sigterm" else signal.SIGKILL)
        _, err = await asyncio.wait_for(host.communicate(), 10)
        expected = {"normal": 0, "sigterm": 128 + signal.SIGTERM, "exception": 1, "sigkill": -signal.SIGKILL}[mode]
        assert host.returncode == expected, err.decode()
        if mode == "exception":
            assert b"host crashed on purpose" in err
        assert await eventually(lambda: pid_dead(leader) and pid_dead(gpid), 2.0)
    finally:
        if host.returncode is None:
            host.kill()
            await host.wait()
        for pid in (leader, gpid):  # never leave orphans behind, even on failure
            if pid and not pid_dead(pid):
                os.kill(pid, signal.SIGKILL)


SWEEP_RACE = """
import os, subprocess, sys, time
from acp_mux.core.process import supervisor
child = subprocess.Popen(["true"])  # (kept: a collected Popen would reap it)
agent = child.pid
while open(f"/proc/{agent}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
    time.sleep(0.01)  # the agent has ended and is not reaped yet
real_reap, calls = supervisor._reap, []
def reap(pid):  # the first look finds it still running: it ends just after, before /proc is read
    calls.append(pid)
    return None if len(calls) == 1 else real_reap(pid)
supervisor._reap = reap
supervisor.signal_all = lambda sig, me: None
supervisor.descendants = lambda root, outside_group=False: []
supervisor._exit_like = lambda status, paths: (print("exits like the agent", os.waitstatus_to_exitcode(status)), sys.exit(0))
supervisor.os.killpg = lambda pid, sig: (print("kills itself"), sys.exit(0))
supervisor._sweep([], agent, None, 1.0)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sweep reads /proc")
def test_the_sweep_reports_how_the_agent_went_when_it_ended_between_its_reap_and_the_look_at_proc() -> None:
    """The supervisor's sweep: an agent that ends between the sweep's reap and its look at /proc (which skips an
    unreaped process) is reaped once more, so the bridge sees how it went, not a SIGKILL of the supervisor (CI saw
    a child SIGTERM ended reported as SIGKILLed)."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", SWEEP_RACE], capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "exits like the agent 0", done.stdout + done.stderr

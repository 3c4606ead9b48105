"""An agent started without an event loop (``process.start``), kept for the first spawn (``core.prestart``): taken up
later as any spawned agent, and taken only by a spawn of exactly its spec — any other ends it first.

Real processes throughout (the fake programs under tests/fakes/programs), started under the real supervisor.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_mux.core.process import pgroup, prestart
from acp_mux.core.process.spawn import SpawnSpec, attach, spawn, start
from tests.procs import pid_alive

PROGS = Path(__file__).resolve().parents[1] / "fakes" / "programs"


def echo(tmp_path: Path, **changes: object) -> SpawnSpec:
    """A spec for the echo program: a full environment, a folder and a private file, each a field a spawn may differ in."""
    spec = SpawnSpec(
        sys.executable,
        [str(PROGS / "echo_stdin.py")],
        env={"PATH": os.environ.get("PATH", ""), "MARK": "one"},
        cwd=str(tmp_path),
        private_files=((str(tmp_path / "secret.json"), "{}"),),
    )
    return dataclasses.replace(spec, **changes)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def nothing_kept() -> Iterator[None]:
    prestart.discard()
    yield
    prestart.discard()


async def gone(pid: int, timeout: float = 2.0) -> bool:
    """The group led by ``pid`` is gone within ``timeout`` (SIGKILL is asynchronous)."""
    for _ in range(int(timeout / 0.02)):
        if not pgroup.group_alive(pid):
            return True
        await asyncio.sleep(0.02)
    return False


async def test_an_agent_started_without_a_loop_is_taken_up_by_one_later(tmp_path: Path) -> None:
    started = start(echo(tmp_path))  # no event loop runs in this thread's code path yet: start() needs none
    assert started.popen.pid > 0 and Path(tmp_path / "secret.json").read_text() == "{}"
    proc = await attach(started)
    try:
        assert proc.pid == started.popen.pid and proc.agent_pid not in (0, proc.pid)  # the supervisor reported it
        await proc.write("hello\n")
        await proc.close_stdin()
        lines = [line async for line in proc.lines()]
        assert lines == ["ready", "echo:hello", "eof"]  # nothing lost between its start and the loop taking it up
        status = await asyncio.wait_for(proc.wait(), 5)
        assert status.code == 0
    finally:
        proc.kill()
    assert await gone(proc.pid)
    assert not (tmp_path / "secret.json").exists()  # removed when it ended, as for any spawn


async def test_the_first_spawn_of_exactly_its_spec_takes_the_kept_agent(tmp_path: Path) -> None:
    started = start(echo(tmp_path))
    prestart.keep(started)
    proc = await spawn(echo(tmp_path))
    try:
        assert proc.pid == started.popen.pid  # the same process, not a second one
        await proc.write("again\n")
        lines = proc.lines()
        assert [await asyncio.wait_for(anext(lines), 5) for _ in range(2)] == ["ready", "echo:again"]
        assert prestart.claim(echo(tmp_path)) is None  # taken once: nothing is kept any more
    finally:
        proc.kill()
        await asyncio.wait_for(proc.wait(), 5)


CHANGES = {
    "command": {"command": "/bin/cat"},
    "an argument": {"args": [str(PROGS / "echo_stdin.py"), "--extra"]},
    "an environment value": {"env": {"PATH": os.environ.get("PATH", ""), "MARK": "two"}},
    "one more variable": {"env": {"PATH": os.environ.get("PATH", ""), "MARK": "one", "OTHER": "x"}},
    "one variable less": {"env": {"PATH": os.environ.get("PATH", "")}},
    "the inherited environment": {"env": None},
    "the folder": {"cwd": "/"},
    "a private file's text": {"private_files": (("SAME", '{"token": "t"}'),)},
    "no private file": {"private_files": ()},
}


@pytest.mark.parametrize("what", list(CHANGES))
async def test_a_spawn_that_differs_in_anything_ends_the_kept_agent_first(tmp_path: Path, what: str) -> None:
    """The kept agent runs exactly what it was started with: a spawn of any other spec never gets it, and it is
    ended before that spawn's own agent starts (two copies never run over one agent's state)."""
    changes = dict(CHANGES[what])
    if changes.get("private_files") and changes["private_files"][0][0] == "SAME":  # type: ignore[index]
        changes["private_files"] = ((str(tmp_path / "secret.json"), '{"token": "t"}'),)
    started = start(echo(tmp_path))
    prestart.keep(started)
    assert prestart.claim(echo(tmp_path, **changes)) is None
    assert await gone(started.popen.pid)
    assert not (tmp_path / "secret.json").exists()
    assert prestart.claim(echo(tmp_path)) is None  # and it is not kept for a later, matching spawn either


async def test_an_agent_no_spawn_took_is_ended_by_discard_and_by_a_newer_one(tmp_path: Path) -> None:
    first = start(echo(tmp_path))
    prestart.keep(first)
    second = start(echo(tmp_path, cwd="/"))
    prestart.keep(second)  # replaces the first, which nothing can take any more
    assert await gone(first.popen.pid)
    assert pid_alive(second.popen.pid)
    assert prestart.discard() is True
    assert await gone(second.popen.pid)
    assert prestart.discard() is False


async def test_a_kept_agent_that_ended_on_its_own_is_the_runs_to_report(tmp_path: Path) -> None:
    """Taken as it is: the run reads its exit and stderr as from any agent that ended at start."""
    spec = SpawnSpec(sys.executable, [str(PROGS / "crash.py"), "--code", "3", "--stderr", "no key"], cwd=str(tmp_path))
    started = start(spec)
    started.popen.wait(10)
    prestart.keep(started)
    proc = await spawn(spec)
    assert proc.pid == started.popen.pid
    status = await asyncio.wait_for(proc.wait(), 5)
    assert status.code == 3
    await asyncio.sleep(0.1)
    assert "no key" in proc.stderr_tail()

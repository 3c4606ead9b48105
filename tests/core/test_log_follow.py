"""The log follower (acp_mux/core/run/log_follow.py): every appended line once, in order, in bounded memory, from any
file it is pointed at — also one a local attacker planted or cut into odd pieces."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.adapters.base import AgentAdapter
from acp_mux.core.events import union as ev
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.log_follow import LogFollower, SideLog, follow
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.core.run.handle import start_run

LINE_TEXT = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=80)


def _append(path: Path, data: bytes) -> None:
    with path.open("ab") as fh:
        fh.write(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE_TEXT, max_size=30), cuts=st.lists(st.integers(min_value=0, max_value=4000), max_size=12))
def test_every_line_arrives_once_and_whole_however_the_writes_are_cut(
    tmp_path: Path, lines: list[str], cuts: list[int]
) -> None:
    """The writer appends the same bytes in arbitrary pieces between polls (a line split mid-character included):
    the lines read are exactly the complete lines written, each once, in order."""
    path = tmp_path / f"log-{len(lines)}-{len(cuts)}"
    path.unlink(missing_ok=True)
    data = "".join(line + "\n" for line in lines).encode()
    follower = LogFollower(lambda: str(path))
    assert follower.poll() == []  # not there yet: followed from its start once it appears
    path.touch()
    seen: list[str] = []
    start = 0
    for cut in sorted(c for c in cuts if c < len(data)) + [len(data)]:
        _append(path, data[start:cut])
        start = max(start, cut)
        seen += follower.poll()
    seen += follower.poll()
    follower.close()
    assert seen == lines


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sizes=st.lists(st.integers(min_value=0, max_value=300), min_size=1, max_size=12),
    chunk=st.integers(min_value=1, max_value=97),
)
def test_a_line_longer_than_the_bound_is_dropped_whole_and_the_rest_survive(
    tmp_path: Path, sizes: list[int], chunk: int
) -> None:
    """Lines over ``max_line`` bytes never come out, not even as pieces that could pass for lines of their own;
    every line within the bound does, and memory stays at the bound."""
    path = tmp_path / f"long-{len(sizes)}-{chunk}"
    path.write_bytes(b"")
    lines = [("x" * n) if n % 2 else ("y" * n) for n in sizes]
    data = "".join(line + "\n" for line in lines).encode()
    follower = LogFollower(lambda: str(path), max_line=100)
    follower.poll()  # present at the first poll but empty: nothing is skipped
    seen: list[str] = []
    for i in range(0, len(data), chunk):
        _append(path, data[i : i + chunk])
        seen += follower.poll()
        assert len(follower._pending) <= 100
    assert seen == [line for line in lines if len(line) <= 100]


def test_a_file_present_at_the_start_is_followed_from_its_end(tmp_path: Path) -> None:
    """What the file held before the run (an earlier process with the same pid wrote it) is not news."""
    path = tmp_path / "omp.log"
    path.write_text("old failure\n")
    follower = LogFollower(lambda: str(path))
    assert follower.poll() == []
    _append(path, b"new line\n")
    assert follower.poll() == ["new line"]


def test_rotation_reads_the_rest_of_the_old_file_then_the_new_one(tmp_path: Path) -> None:
    current = {"path": tmp_path / "a.log"}
    current["path"].write_text("")
    follower = LogFollower(lambda: str(current["path"]))
    follower.poll()
    _append(tmp_path / "a.log", b"one\ntwo\n")
    assert follower.poll() == ["one", "two"]
    _append(tmp_path / "a.log", b"three\n")
    current["path"] = tmp_path / "a.log.1"
    current["path"].write_text("four\n")
    assert follower.poll() == ["three", "four"]


def test_a_truncated_or_replaced_file_is_read_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "log"
    path.write_text("")
    follower = LogFollower(lambda: str(path))
    follower.poll()
    _append(path, b"first line that is long\n")
    assert follower.poll() == ["first line that is long"]
    path.write_text("short\n")  # truncated and rewritten
    assert follower.poll() == ["short"]
    os.replace(_write(tmp_path / "other", "replaced\n"), path)  # another file now at the path
    assert follower.poll() == ["replaced"]


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_fifo_or_a_symlink_at_the_path_is_refused_without_waiting(tmp_path: Path) -> None:
    """A FIFO would block a plain open() forever and a symlink could point anywhere: neither is read."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    follower = LogFollower(lambda: str(fifo))
    assert follower.poll() == [] and follower._fd is None
    target = tmp_path / "secret"
    target.write_text("")
    link = tmp_path / "link"
    link.symlink_to(target)
    follower = LogFollower(lambda: str(link))
    follower.poll()
    _append(target, b"not to be read\n")
    assert follower.poll() == []


async def test_follow_yields_lines_as_they_are_appended_and_stops_when_cancelled(tmp_path: Path) -> None:
    path = tmp_path / "live.log"
    got: list[str] = []

    async def reader() -> None:
        async for line in follow(lambda: str(path) if path.exists() else None, interval=0.01):
            got.append(line)

    task = asyncio.ensure_future(reader())
    await asyncio.sleep(0.05)
    path.write_text("hello\n")
    for _ in range(100):
        if got:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert got == ["hello"]


class SideLogAdapter(AgentAdapter):
    """An agent (a shell) that writes a retry line to its own log file, then its answer to stdout; the adapter reads
    the log through ``side_logs`` with the agent's pid in the file name, as omp's adapter does."""

    name = "fake"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.pids: list[int] = []

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        script = f'echo "retry: the model failed" >> {self.folder}/agent.$$.log; sleep 1; echo done'
        return SpawnSpec("/bin/sh", ["-c", script], cwd=options.cwd)

    def side_logs(self, spec: SpawnSpec, agent_pid: int) -> list[SideLog]:
        self.pids.append(agent_pid)
        path = self.folder / f"agent.{agent_pid}.log"
        return [SideLog(find=lambda: str(path) if path.exists() else None, events=self._events)]

    def _events(self, line: str, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        if not line.startswith("retry: "):
            return ()
        return [ev.RetryEvent(attempt=1, max_attempts=1, reason=line.removeprefix("retry: "))]

    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        return ctx.text_delta(line) + ctx.end_turn() if line == "done" else ()


async def test_a_run_turns_the_lines_of_the_agents_own_log_into_events_while_it_runs(tmp_path: Path) -> None:
    adapter = SideLogAdapter(tmp_path)
    handle = start_run(adapter, RunOptions(agent="fake", cwd=str(tmp_path)))
    seen: list[ev.BaseEvent] = []
    handle.on("*", seen.append)
    await asyncio.wait_for(handle.result(), 20)
    types = [e.type for e in seen]
    (retry,) = [e for e in seen if e.type == "retry"]
    assert retry.reason == "the model failed"  # type: ignore[attr-defined]
    assert types.index("retry") < types.index("text_delta")  # shown while the agent still worked, not at its end
    assert adapter.pids and (tmp_path / f"agent.{adapter.pids[0]}.log").exists()


def test_a_file_the_agent_wrote_before_the_first_poll_is_read_from_its_start(tmp_path: Path) -> None:
    """On a busy machine the agent may write its log before the follower first looks: a file changed at or after
    the spawn is the agent's and is read whole; one last changed before it (a reused pid's) from its end."""
    old = tmp_path / "old.log"
    old.write_text("from an earlier process\n")
    os.utime(old, (time.time() - 60, time.time() - 60))
    since = time.time()
    new = tmp_path / "new.log"
    new.write_text("retry: written before the first poll\n")
    assert LogFollower(lambda: str(new), since=since).poll() == ["retry: written before the first poll"]
    assert LogFollower(lambda: str(old), since=since).poll() == []
    assert LogFollower(lambda: str(new)).poll() == []  # no spawn time known: what is there is history

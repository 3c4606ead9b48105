"""``acp-mux run --compare A,B PROMPT``: the table and diffs, the pick by flag or at a terminal, the safe default
without one, the JSON summary, exit codes — with the bundled scripted agent under two names
(tests/server/switching_agents.py runs the real command line with those rows added)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from acp_mux.core.events.union import parse_event_json
from tests.procs import pid_alive

SWITCHING = Path(__file__).resolve().parents[1] / "server" / "switching_agents.py"


@pytest.fixture
def work(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "mine.txt").write_text("mine\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_MUX_")}
    return cwd, {**env, "ACP_MUX_STATE_DIR": str(tmp_path / "state"), "NO_COLOR": "1"}


def compare(work: tuple[Path, dict[str, str]], *args: str) -> subprocess.CompletedProcess[str]:
    return acp_mux_run(work, str(SWITCHING), "run", "--compare", "alpha,beta", *args)


def acp_mux_run(work: tuple[Path, dict[str, str]], *argv: str) -> subprocess.CompletedProcess[str]:
    """``python ARGV...`` in the project folder (the switching agents' launcher, or ``-m acp_mux``)."""
    cwd, env = work
    return subprocess.run(
        [sys.executable, *argv],
        cwd=cwd,
        env=env,
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )


def copies_left(work: tuple[Path, dict[str, str]]) -> list[Path]:
    root = Path(work[1]["ACP_MUX_STATE_DIR"]) / "compare"
    return list(root.iterdir()) if root.exists() else []


def test_the_picked_change_is_applied_and_the_table_and_diffs_are_shown(work):
    done = compare(work, "--pick", "beta", "write the notes")
    assert done.returncode == 0, done.stderr + done.stdout
    out = done.stdout
    assert "| alpha | end_turn |" in out and "| beta | end_turn |" in out
    assert out.count("+alpha") == 2  # each candidate's whole diff
    assert "Applied beta's change: notes.txt." in out
    assert (work[0] / "notes.txt").read_text() == "alpha\ngamma\n"
    assert (work[0] / "mine.txt").read_text() == "mine\n"
    assert copies_left(work) == []


def test_without_a_pick_or_a_terminal_nothing_is_applied(work):
    done = compare(work, "write the notes")
    assert done.returncode == 1, done.stderr
    assert "Nothing applied" in done.stdout and not (work[0] / "notes.txt").exists()
    kept_none = compare(work, "--pick", "none", "write the notes")
    assert kept_none.returncode == 0 and "Kept none" in kept_none.stdout
    assert not (work[0] / "notes.txt").exists()


def test_json_prints_every_candidates_events_then_one_summary(work):
    done = compare(work, "--json", "--check", "test -f notes.txt", "--pick", "alpha", "write the notes")
    assert done.returncode == 0, done.stderr
    *events, last = done.stdout.splitlines()
    agents = {parse_event_json(line).agent for line in events}
    assert agents == {"alpha", "beta"}
    summary = json.loads(last)
    assert summary["type"] == "comparison"
    assert [(c["agent"], c["stopReason"], c["files"], c["checkStatus"]) for c in summary["candidates"]] == [
        ("alpha", "end_turn", ["notes.txt"], 0),
        ("beta", "end_turn", ["notes.txt"], 0),
    ]
    assert "| alpha |" in done.stderr  # the table for a person goes beside the events, not into them


def test_a_terminal_is_asked_which_change_to_keep(work):
    cwd, env = work
    child = pexpect.spawn(
        sys.executable,
        [str(SWITCHING), "run", "--compare", "alpha,beta", "--allow", "execute:cat", "write the notes"],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        timeout=60,
    )
    child.expect(r"Keep which change\? alpha, beta or none")
    child.sendline("alpha")
    child.expect("Applied alpha's change")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert (cwd / "notes.txt").read_text() == "alpha\ngamma\n"


def test_wrong_command_lines_are_refused(work):
    for args in (["--agent", "demo"], ["--resume", "x"]):
        done = compare(work, *args, "hi")
        assert done.returncode == 2 and "--compare takes the agents itself" in done.stderr
    alone = acp_mux_run(work, "-m", "acp_mux", "run", "--agent", "demo", "--pick", "demo", "hi")
    assert alone.returncode == 2 and "go with --compare" in alone.stderr
    one = acp_mux_run(work, str(SWITCHING), "run", "--compare", "alpha", "hi")
    assert one.returncode == 3 and "2 to 4 different agents" in one.stderr


def test_a_check_still_running_when_acp_mux_is_killed_is_gone_2_s_later(work, tmp_path):
    """SIGKILL of ``acp-mux run --compare --check`` mid-check: the check and what it started (also a child that
    left its group) are gone within 2 s, as an agent is (the supervisor's lifeline)."""
    marks = tmp_path / "marks"
    marks.mkdir()
    check = f"setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! $$ > {marks}/$(basename $PWD); sleep 300"
    cwd, env = work
    run = subprocess.Popen(
        [sys.executable, str(SWITCHING), "run", "--compare", "alpha,beta", "--check", check, "write the notes"],
        cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(600):
            if any(p.read_text().strip() for p in marks.iterdir()):  # the checks run one after the other
                break
            time.sleep(0.05)
        started = [int(pid) for p in marks.iterdir() for pid in p.read_text().split()]
        assert len(started) == 2, started  # the check's shell and the child that left its group
        run.kill()
        run.wait()
        deadline = time.monotonic() + 2.0
        while any(pid_alive(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in started if pid_alive(pid)], "a check's process outlived acp-mux by 2 s"
    finally:
        run.kill()
        for p in marks.iterdir():
            for pid in p.read_text().split():
                with contextlib.suppress(OSError):
                    os.kill(int(pid), 9)

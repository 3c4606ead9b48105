"""``acp-mux demo`` as a person meets it: driven through a real PTY with pexpect, and with stdin closed.

Each run gets its own TMPDIR, so "nothing left behind" means that directory is empty afterwards, and "no process
left" means no process still has its working directory inside it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from acp_mux.cli.demo import choose, unfence
from tests.procs import pids

REPO = Path(__file__).resolve().parents[2]
PROMPT = r"choose 1-4 \[1\]: "
REASK = r"please type a number from 1 to 4 \(Enter = 1\): "


@pytest.fixture
def tmpdir_env(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return tmp, {**env, "TMPDIR": str(tmp), "ACP_MUX_STATE_DIR": str(tmp_path / "state")}


def spawn_demo(env: dict[str, str]) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable,
        ["-m", "acp_mux", "demo"],
        env=env,
        cwd=str(REPO),
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 120),
    )


def processes_inside(directory: Path) -> list[int]:
    found = []
    for pid in pids():
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd.startswith(str(directory)):
            found.append(pid)
    return found


def test_answers_pick_only_listed_choices_and_enter_takes_the_default(tmpdir_env):
    tmp, env = tmpdir_env
    demo = spawn_demo(env)
    demo.expect(PROMPT)  # Write notes.txt
    for wrong in ("n", "abc", "9", "0", "-1"):
        demo.sendline(wrong)
        demo.expect(REASK)
    demo.sendline("")  # Enter: the shown default, allow once
    demo.expect(r"→ completed")
    demo.expect(PROMPT)  # Edit notes.txt
    demo.sendline("1")
    demo.expect(PROMPT)  # cat notes.txt
    demo.sendline(" 1 ")
    demo.expect(r"stop reason: end_turn")
    demo.expect(pexpect.EOF)
    demo.close()
    assert demo.exitstatus == 0
    assert list(tmp.iterdir()) == []  # the demo's folder is gone


def test_reject_is_honoured(tmpdir_env):
    tmp, env = tmpdir_env
    demo = spawn_demo(env)
    demo.expect(PROMPT)
    demo.sendline("3")  # Reject
    demo.expect(r"→ failed")
    demo.expect(pexpect.EOF)
    demo.close()
    assert "notes.txt now reads" not in demo.before  # nothing was written
    assert list(tmp.iterdir()) == []


def test_ctrl_c_at_the_prompt_exits_promptly_and_quietly(tmpdir_env):
    """Ctrl-C stops the demo (exit 130) without waiting on the agent; the bound is loose enough for a loaded
    two-core machine (it answers in ~0.2 s idle) and still catches a wait for a timeout or a hung child."""
    tmp, env = tmpdir_env
    demo = spawn_demo(env)
    demo.expect(PROMPT)
    started = time.monotonic()
    demo.sendintr()
    demo.expect(pexpect.EOF, timeout=10)
    elapsed = time.monotonic() - started
    demo.close()
    assert elapsed < 4.0, f"took {elapsed:.2f} s to exit after Ctrl-C"
    assert demo.exitstatus == 130, (demo.exitstatus, demo.signalstatus)
    assert "Traceback" not in demo.before and "WARNING" not in demo.before, demo.before
    assert list(tmp.iterdir()) == []
    deadline = time.monotonic() + 5
    while processes_inside(tmp) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_inside(tmp) == []  # the bridge and its agent are gone too


def test_end_of_input_at_the_prompt_rejects(tmpdir_env):
    tmp, env = tmpdir_env
    demo = spawn_demo(env)
    demo.expect(PROMPT)
    demo.sendeof()
    demo.expect(r"\(no answer: choosing 3\)")
    demo.expect(r"→ failed")
    demo.expect(pexpect.EOF)
    demo.close()
    assert list(tmp.iterdir()) == []


@pytest.mark.parametrize("redirect", ["<&-", "</dev/null"])
def test_without_a_terminal_it_runs_through_and_renders_shell_output_bare(tmpdir_env, redirect):
    tmp, env = tmpdir_env
    out = subprocess.run(
        ["sh", "-c", f'exec "$0" -m acp_mux demo {redirect}', sys.executable],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert out.returncode == 0, out.stderr
    assert "(not a terminal: choosing 1)" in out.stdout
    assert "│ alpha\n  │ gamma" in out.stdout and "```" not in out.stdout
    assert out.stdout.rstrip().endswith("notes.txt now reads:\nalpha\ngamma")
    assert "\033[" not in out.stdout  # not a terminal: no colour codes
    assert list(tmp.iterdir()) == []


def test_choose_and_unfence():
    assert [choose(a, 4) for a in ("", " ", "1", "4", " 2\n")] == [1, 1, 1, 4, 2]
    assert [choose(a, 4) for a in ("0", "5", "n", "yes", "-1", "1.0")] == [None] * 6
    assert unfence("```console\nalpha\ngamma\n```") == "alpha\ngamma"
    assert unfence("````console\na ``` b\n````") == "a ``` b"
    assert unfence("plain output") == "plain output"

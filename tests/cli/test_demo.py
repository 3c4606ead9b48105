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

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.cli.demo import LineReader, choose, unfence
from tests.procs import pids

REPO = Path(__file__).resolve().parents[2]
PROMPT = r"choose 1-4, y = 1, n = 3 \[1\]: "
REASK = r"please type a number from 1 to 4, y = 1, n = 3 \(Enter = 1\): "
KINDS = ["allow_once", "allow_always", "reject_once", "reject_always"]  # the demo's four options


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
    for wrong in ("always", "abc", "9", "0", "-1"):
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


def test_ctrl_c_at_the_prompt_exits_quietly(tmpdir_env):
    """Ctrl-C stops the demo (exit 130) without an answer to the question: nothing else would end it (the prompt
    waits for the person, and no watchdog runs while it does), so no clock is needed to tell it worked."""
    tmp, env = tmpdir_env
    demo = spawn_demo(env)
    demo.expect(PROMPT)
    demo.sendintr()
    demo.expect(pexpect.EOF, timeout=60)
    demo.close()
    assert demo.exitstatus == 130, (demo.exitstatus, demo.signalstatus)
    assert "Traceback" not in demo.before and "WARNING" not in demo.before, demo.before
    assert list(tmp.iterdir()) == []
    deadline = time.monotonic() + 30  # a wait, not a bound: ends as soon as they are gone
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


def run_demo(
    env: dict[str, str], *words: str, stdin: str | None = None, redirect: str = ""
) -> subprocess.CompletedProcess:
    """The demo with stdin from a pipe (``stdin``) or a shell redirection (``redirect``: closed, /dev/null)."""
    return subprocess.run(
        ["sh", "-c", f'exec "$0" -m acp_mux demo "$@" {redirect}', sys.executable, *words],
        env=env,
        cwd=REPO,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=90,
    )


def test_piped_answers_are_read_like_typed_ones_and_shell_output_is_bare(tmpdir_env):
    tmp, env = tmpdir_env
    out = run_demo(env, stdin="1\ny\n1\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("choose 1-4, y = 1, n = 3 [1]: ") == 3  # each answer echoed after its question
    assert "[1]: 1\n" in out.stdout and "[1]: y\n" in out.stdout
    assert "│ alpha\n  │ gamma" in out.stdout and "```" not in out.stdout
    assert out.stdout.rstrip().endswith("notes.txt now reads:\nalpha\ngamma")
    assert "\033[" not in out.stdout  # not a terminal: no colour codes
    assert list(tmp.iterdir()) == []


def test_a_piped_3_rejects_and_nothing_is_written(tmpdir_env):
    tmp, env = tmpdir_env
    out = run_demo(env, stdin="3\n")
    assert "[1]: 3\n" in out.stdout and "→ failed" in out.stdout
    assert "notes.txt now reads" not in out.stdout and "→ completed" not in out.stdout
    assert out.returncode == 0, out.stderr  # the agent finished its turn, without the file


@pytest.mark.parametrize("redirect", ["<&-", "</dev/null"])
def test_without_any_answer_nothing_is_allowed(tmpdir_env, redirect):
    """No input at all (closed, or /dev/null): each question gets the safe answer, never an allow."""
    tmp, env = tmpdir_env
    out = run_demo(env, redirect=redirect)
    assert out.returncode == 0, out.stderr
    assert "(no answer: choosing 3)" in out.stdout and "→ completed" not in out.stdout
    assert "notes.txt now reads" not in out.stdout and "Traceback" not in out.stderr
    assert list(tmp.iterdir()) == []


@pytest.mark.parametrize(
    ("word", "status", "says"),
    [
        ("shell", 0, "stop reason: end_turn"),
        ("refuse", 1, "stop reason: refusal"),
        ("auth", 3, "the prompt failed: error -32000: Authentication failed"),
        ("rate", 3, "the prompt failed: error -32603: Rate limited or out of quota"),
    ],
)
def test_each_readme_word_ends_cleanly_with_its_documented_status(tmpdir_env, word, status, says):
    tmp, env = tmpdir_env
    out = run_demo(env, word, redirect="</dev/null")
    assert out.returncode == status, (out.stdout, out.stderr)
    assert says in out.stdout
    assert "Traceback" not in out.stderr + out.stdout
    assert list(tmp.iterdir()) == []


def test_help_is_help_not_a_prompt(tmpdir_env):
    tmp, env = tmpdir_env
    out = run_demo(env, "--help", redirect="</dev/null")
    assert out.returncode == 0 and out.stdout.startswith("usage: acp-mux demo")
    assert "connected to" not in out.stdout  # nothing was started
    for word in ("shell", "refuse", "auth", "rate", "130"):
        assert f"  {word} " in out.stdout
    assert max(len(line) for line in out.stdout.splitlines()) < 80  # COLUMNS unset, not a terminal: 80


def test_choose_and_unfence():
    assert [choose(a, KINDS) for a in ("", " ", "1", "4", " 2\n", "y", "Yes", "n", "NO")] == [1, 1, 1, 4, 2, 1, 1, 3, 3]
    assert [choose(a, KINDS) for a in ("0", "5", "always", "-1", "1.0", "١", "yy")] == [None] * 7
    assert choose("y", ["allow_once", "allow_once", "reject_once"]) is None  # two could be meant: ask again
    assert choose("n", ["allow_once", "allow_always"]) is None  # nothing rejects once
    assert unfence("```console\nalpha\ngamma\n```") == "alpha\ngamma"
    assert unfence("````console\na ``` b\n````") == "a ``` b"
    assert unfence("plain output") == "plain output"


KIND = st.sampled_from(["allow_once", "allow_always", "reject_once", "reject_always", None])


@given(st.lists(KIND, min_size=1, max_size=6), st.text(max_size=8))
def test_no_answer_allows_what_it_does_not_name(kinds, answer):
    """An attacker's answer (any text) picks an option only by its exact number, Enter (the default), or y/n naming
    the single option of that kind: never an "always" by a letter, never an option out of range."""
    choice = choose(answer, kinds)
    if choice is None:
        return
    assert 1 <= choice <= len(kinds)
    text = answer.strip()
    if not text:
        assert choice == 1
    elif text.isascii() and text.isdigit():
        assert choice == int(text)
    else:
        assert text.lower() in ("y", "yes", "n", "no")
        wanted = "allow_once" if text.lower() in ("y", "yes") else "reject_once"
        assert kinds[choice - 1] == wanted and kinds.count(wanted) == 1


@given(st.lists(st.text(alphabet="0123456789ynY \t", max_size=5), max_size=6), st.integers(1, 7))
def test_answers_in_any_chunks_come_out_one_per_line(lines, chunk):
    """Answers piped in arrive in reads of any size; each question still gets exactly the next line."""
    import asyncio

    data = "".join(line + "\n" for line in lines).encode()
    read, write = os.pipe()
    try:
        os.write(write, data)
        os.close(write)
        reader = LineReader(read)
        reader._read_now = lambda: os.read(read, chunk)  # type: ignore[method-assign]

        async def all_lines() -> list[str]:
            got = []
            while (line := await reader.line()) is not None:
                got.append(line)
            return got

        assert asyncio.run(all_lines()) == lines
    finally:
        os.close(read)

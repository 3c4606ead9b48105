"""``acp-mux run``: the event union on stdout with --json (every line parsed back), rules, the terminal question,
the safe default without a terminal, and exit codes by how the turn ended — against the bundled scripted agent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from acp_mux.core.events.union import UnknownEvent, parse_event_json
from acp_mux.cli.run_command import RUN_EXIT_CODES, build_parser


@pytest.fixture
def work(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    cwd = tmp_path / "project"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_MUX_")}
    return cwd, {**env, "ACP_MUX_STATE_DIR": str(tmp_path / "state"), "NO_COLOR": "1"}


def acp_mux_run(
    work: tuple[Path, dict[str, str]], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    cwd, env = work
    return subprocess.run(
        [sys.executable, "-m", "acp_mux", "run", *args],
        cwd=cwd,
        env=env,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_json_prints_the_event_union_one_event_per_line(work):
    done = acp_mux_run(work, "--agent", "demo", "--json", "--allow", "edit:notes.txt", "write the notes")
    assert done.returncode == 0, done.stderr
    events = [parse_event_json(line) for line in done.stdout.splitlines()]
    assert events and not any(isinstance(e, UnknownEvent) for e in events)
    kinds = [e.type for e in events]
    assert kinds[0] == "session_start" and kinds[-1] == "turn_end"
    assert kinds.count("approval_granted") == 2 and kinds.count("approval_denied") == 1  # `cat` is no rule's
    assert "stop reason: end_turn" in done.stderr
    assert (work[0] / "notes.txt").read_text() == "alpha\ngamma\n"


def test_without_a_terminal_what_no_rule_allows_is_denied(work):
    done = acp_mux_run(work, "--agent", "demo", "write the notes")
    assert done.returncode == 0, done.stderr
    assert "No rule allows this" in done.stdout and "stop reason: end_turn" in done.stdout
    assert not (work[0] / "notes.txt").exists()


def test_the_prompt_is_read_from_stdin(work):
    done = acp_mux_run(work, "--agent", "demo", "--json", "-", stdin="hello from a pipe\n")
    text = "".join(getattr(parse_event_json(line), "delta", "") for line in done.stdout.splitlines())
    assert done.returncode == 0 and text.strip() == "You said: hello from a pipe"


@pytest.mark.parametrize(
    ("args", "status", "said"),
    [
        (["--agent", "demo", "refuse"], 1, "stop reason: refusal"),
        (["--agent", "demo", "auth"], 3, "error -32000"),
        (["--agent", "demo", "crash"], 3, "exit code 3"),
        (["--agent", "no-such-agent", "hi"], 3, "no-such-agent"),
        (["--agent", "demo", "--allow", "everything", "hi"], 2, "KIND:TARGET"),
        (["hi"], 2, "--agent"),
    ],
)
def test_the_exit_status_says_how_the_turn_ended(work, args, status, said):
    done = acp_mux_run(work, *args)
    assert done.returncode == status, (done.stdout, done.stderr)
    assert said in done.stdout + done.stderr


def test_help_documents_every_exit_status_and_the_rule_kinds():
    text = build_parser().format_help()
    for code, _what in RUN_EXIT_CODES:
        assert f"\n  {code} " in text
    for kind in ("execute:", "edit:", "fetch:"):
        assert kind in text


def spawn_run(work: tuple[Path, dict[str, str]], *args: str) -> pexpect.spawn:
    cwd, env = work
    return pexpect.spawn(
        sys.executable,
        ["-m", "acp_mux", "run", "--agent", "demo", *args],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 160),
    )


def test_at_a_terminal_the_person_is_asked_with_the_editors_options(work):
    child = spawn_run(work, "write the notes")
    child.expect("permission for Write notes.txt")
    child.expect("Always allow changes to")
    child.expect(r"choose 1-4")
    child.sendline("1")  # allow once
    child.expect("permission for Edit notes.txt")
    child.expect(r"choose 1-4")
    child.sendline("n")  # reject once
    child.expect("stop reason: end_turn")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert (work[0] / "notes.txt").read_text() == "alpha\nbeta\n"


def test_resume_continues_a_stored_session(work):
    first = acp_mux_run(work, "--agent", "demo", "--json", "remember pelican")
    session = first.stderr.rsplit("(session ", 1)[1].split(")", 1)[0]
    again = acp_mux_run(work, "--resume", session[:12], "--json", "which word?")
    assert again.returncode == 0, again.stderr
    started = [e for e in map(parse_event_json, again.stdout.splitlines()) if e.type == "session_start"]
    native = [e for e in map(parse_event_json, first.stdout.splitlines()) if e.type == "session_start"]
    assert started[0].resumed and started[0].session_id == native[0].session_id
    assert f"(session {session})" in again.stderr

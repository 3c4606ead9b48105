"""``--help`` everywhere, ``-V``/``--version``, and help laid out for the terminal (80 columns when unknown)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from acp_mux import __version__


def run(*args: str, columns: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns:
        env["COLUMNS"] = columns
    return subprocess.run(
        [sys.executable, "-m", "acp_mux", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=env,
    )


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(flag):
    done = run(flag)
    assert done.returncode == 0 and done.stdout == f"acp-mux {__version__}\n"


@pytest.mark.parametrize(
    ("args", "usage"),
    [
        (["--help"], "usage: acp-mux "),
        (["-h"], "usage: acp-mux "),
        (["doctor", "--help"], "usage: acp-mux doctor"),
        (["demo", "--help"], "usage: acp-mux demo"),
        (["demo", "-h"], "usage: acp-mux demo"),
        (["sessions", "--help"], "usage: acp-mux sessions"),
        (["sessions"], "usage: acp-mux sessions"),
        (["sessions", "list", "--help"], "usage: acp-mux sessions list"),
        (["sessions", "show", "--help"], "usage: acp-mux sessions show"),
    ],
)
def test_help_everywhere_fits_80_columns(args, usage):
    done = run(*args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(usage) and done.stderr == ""
    wide = [line for line in done.stdout.splitlines() if len(line) >= 80 and " " in line.strip()]
    assert wide == []


def test_help_follows_a_wide_terminal():
    narrow, wide = run("--help", columns="80").stdout, run("--help", columns="160").stdout
    assert len(wide.splitlines()) < len(narrow.splitlines())
    assert "ACP_MUX_LOG" in wide and "'off': no log file" in " ".join(wide.split())


def run_into_a_closed_pipe(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``args`` with stdout a pipe whose reader has already gone: the first write fails (EPIPE), as it does when
    ``head`` or a pager quits early."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(args, stdout=write, stderr=subprocess.PIPE, text=True, timeout=60, env=env)
    finally:
        os.close(write)


def test_the_closed_pipe_harness_sees_a_traceback_where_there_is_one():
    """The harness itself: a plain Python print into the same closed pipe does end in BrokenPipeError."""
    done = run_into_a_closed_pipe(sys.executable, "-c", "print('x' * 100)", env=dict(os.environ))
    assert "BrokenPipeError" in done.stderr


@pytest.mark.parametrize("command", [["doctor"], ["demo", "--help"], ["sessions", "--help"]])
def test_output_cut_short_by_its_reader_ends_quietly(command, tmp_path):
    """``acp-mux doctor | head -1``: the reader leaves early; the command ends with the shell's SIGPIPE status (141)
    and no BrokenPipeError traceback."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update(HOME=str(tmp_path), ACP_MUX_STATE_DIR=str(tmp_path / "state"), PATH="/usr/bin:/bin")
    done = run_into_a_closed_pipe(sys.executable, "-m", "acp_mux", *command, env=env)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == (141 if command == ["doctor"] else 0)  # argparse's help ignores a failed write

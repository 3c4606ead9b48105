"""The command line: help names the ten agents, unknown agents are refused clearly, demo and doctor work."""

from __future__ import annotations

import subprocess
import sys

from adapters.registry import AGENT_NAMES


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "acp_mux", *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def test_help_names_the_ten_agents():
    out = run("--help")
    assert out.returncode == 0
    assert all(name in out.stdout for name in AGENT_NAMES) and len(AGENT_NAMES) == 10


def test_unknown_agent_lists_the_ten():
    out = run("--agent", "nosuch")
    assert out.returncode == 2
    assert "unknown agent 'nosuch'" in out.stderr and all(name in out.stderr for name in AGENT_NAMES)


def test_demo_runs_the_bridge_end_to_end(tmp_path):
    out = run("demo", timeout=90)
    assert out.returncode == 0, out.stderr
    assert "stop reason: end_turn" in out.stdout
    assert "permission for Write notes.txt" in out.stdout and "+ gamma" in out.stdout
    assert out.stdout.rstrip().endswith("alpha\ngamma")


def test_doctor_prints_a_row_per_agent():
    out = run("doctor")
    assert out.returncode == 0
    for name in AGENT_NAMES:
        assert any(line.startswith(name) for line in out.stdout.splitlines())
    assert run("doctor", "gemini").returncode == 1

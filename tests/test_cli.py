"""The command line: help names the ten agents, unknown agents are refused clearly, demo and doctor work."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from acp_mux.adapters.registry import AGENT_NAMES


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
    assert "\033[" not in out.stdout  # not a terminal: no colour codes


def test_doctor_prints_a_row_per_agent():
    out = run("doctor")
    assert out.returncode == 0
    for name in AGENT_NAMES:
        assert any(line.startswith(name) for line in out.stdout.splitlines())
    assert run("doctor", "gemini").returncode == 1


def test_launcher_style_invocation_takes_agent_and_log_file_from_the_environment(tmp_path):
    """`acp-mux --stdio` with ACP_MUX_AGENT / ACP_MUX_LOG, the shape some launchers and samples use."""
    log = tmp_path / "bridge.log"
    env = {**os.environ, "ACP_MUX_AGENT": "demo", "ACP_MUX_LOG": str(log), "ACP_MUX_STATE_DIR": str(tmp_path / "s")}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    out = subprocess.run([sys.executable, "-m", "acp_mux", "--stdio", "--log-level", "debug"], env=env,
                         input=json.dumps(init) + "\n", capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    reply = json.loads(out.stdout.splitlines()[0])
    assert reply["id"] == 1 and reply["result"]["agentInfo"]["title"].startswith("acp-mux")
    assert "initialize" in log.read_text()  # diagnostics went to the file, stdout carried JSON-RPC only
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in out.stdout.splitlines())


def test_doctor_reports_a_found_agent_with_its_version(tmp_path):
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\necho '2.1.197 (Claude Code)'\n")
    fake.chmod(0o755)
    env = {**os.environ, "ACP_MUX_CLAUDE_BIN": str(fake)}
    out = subprocess.run([sys.executable, "-m", "acp_mux", "doctor", "claude"], env=env, capture_output=True,
                         text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stdout + out.stderr
    row = next(line for line in out.stdout.splitlines() if line.startswith("claude"))
    assert str(fake) in row and "2.1.197" in row
    missing = {**os.environ, "ACP_MUX_CLAUDE_BIN": str(tmp_path / "nowhere")}
    gone = subprocess.run([sys.executable, "-m", "acp_mux", "doctor", "claude"], env=missing, capture_output=True,
                          text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert gone.returncode == 1 and "npm install" in gone.stdout


def test_login_hands_the_terminal_to_the_agents_own_login(tmp_path):
    fake = tmp_path / "codex"
    fake.write_text('#!/bin/sh\necho "login args: $*"\n')
    fake.chmod(0o755)
    out = subprocess.run([sys.executable, "-m", "acp_mux", "--agent", "codex", "--agent-bin", str(fake), "--login"],
                         capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert out.returncode == 0 and out.stdout.strip() == "login args: login"
    demo = run("--agent", "demo", "--login")
    assert demo.returncode == 0

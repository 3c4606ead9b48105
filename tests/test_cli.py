"""The command line: help names the ten agents, unknown agents are refused clearly, demo and doctor work."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from acp_mux.adapters.registry import AGENT_NAMES


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_mux", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def test_help_names_the_ten_agents():
    out = run("--help")
    assert out.returncode == 0
    assert all(name in out.stdout for name in AGENT_NAMES) and len(AGENT_NAMES) == 10


def test_bare_acp_mux_at_a_terminal_says_that_agent_is_needed():
    import pexpect

    child = pexpect.spawn(sys.executable, ["-m", "acp_mux"], encoding="utf-8", timeout=20)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "--agent NAME is needed" in child.before and "acp-mux demo" in child.before and "usage:" not in child.before


def test_bare_acp_mux_started_by_an_editor_serves_the_entry_for_every_agent(tmp_path):
    """No --agent and stdin not a terminal: the one-entry-for-every-agent bridge (here with no agent installed, so
    it still answers initialize and explains itself, instead of exiting)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_MUX_")}
    env.update(PATH=str(tmp_path), ACP_MUX_STATE_DIR=str(tmp_path / "state"))
    request = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n'
    out = subprocess.run(
        [sys.executable, "-m", "acp_mux"], input=request, env=env, capture_output=True, text=True, timeout=20
    )
    assert '"protocolVersion":1' in out.stdout.replace(" ", "") and "no agent CLI is installed" in out.stderr


def test_log_level_is_validated():
    out = run("--agent", "demo", "--log-level", "loud")
    assert out.returncode == 2 and "'loud' is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL" in out.stderr


def test_help_documents_the_environment_and_the_demo_prompt():
    out = run("--help").stdout
    assert "ACP_MUX_LOG_LEVEL" in out and "acp-mux demo [PROMPT]" in out and "ACP_MUX_<AGENT>_BIN" in out


def test_demo_takes_a_prompt():
    out = run("demo", "hello", "there", timeout=90)
    assert out.returncode == 0, out.stderr
    assert "> hello there" in out.stdout and "You said: hello there" in out.stdout


def test_launcher_style_invocation_takes_agent_and_log_file_from_the_environment(tmp_path):
    """`acp-mux --stdio` with ACP_MUX_AGENT / ACP_MUX_LOG, the shape some launchers and samples use."""
    log = tmp_path / "bridge.log"
    env = {**os.environ, "ACP_MUX_AGENT": "demo", "ACP_MUX_LOG": str(log), "ACP_MUX_STATE_DIR": str(tmp_path / "s")}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    out = subprocess.run(
        [sys.executable, "-m", "acp_mux", "--stdio", "--log-level", "debug"],
        env=env,
        input=json.dumps(init) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    reply = json.loads(out.stdout.splitlines()[0])
    assert reply["id"] == 1 and reply["result"]["agentInfo"]["title"].startswith("acp-mux")
    assert "initialize" in log.read_text()  # diagnostics went to the file, stdout carried JSON-RPC only
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in out.stdout.splitlines())


def test_login_hands_the_terminal_to_the_agents_own_login(tmp_path):
    fake = tmp_path / "codex"
    fake.write_text('#!/bin/sh\necho "login args: $*"\n')
    fake.chmod(0o755)
    out = subprocess.run(
        [sys.executable, "-m", "acp_mux", "--agent", "codex", "--agent-bin", str(fake), "--login"],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0 and out.stdout.strip() == "login args: login"
    demo = run("--agent", "demo", "--login")
    assert demo.returncode == 0

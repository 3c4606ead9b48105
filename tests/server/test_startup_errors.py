"""An agent that cannot start still answers ``initialize``; the editor gets the reason on session/new.

Editors hide a server's stderr and show only "server exited", so the reason must travel as a JSON-RPC error: the
unknown name, or the missing executable with how to install it, ``ACP_MUX_<NAME>_BIN`` and ``acp-mux doctor``.
The login command offered for terminal auth is this program's absolute path (an editor's PATH may lack acp-mux).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest

from acp_mux.adapters.registry import AGENT_NAMES

INIT = {"protocolVersion": 1, "clientCapabilities": {"_meta": {"terminal-auth": True}}}


def exchange(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> dict[int, dict[str, Any]]:
    """initialize then session/new, on a pipe as an editor would; the responses by id."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
        {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(cwd), "mcpServers": []}},
    ]
    full_env = {**os.environ, "ACP_MUX_STATE_DIR": str(cwd / ".state"), **(env or {})}
    out = subprocess.run(
        argv,
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    replies = [json.loads(line) for line in out.stdout.splitlines()]
    return {r["id"]: r for r in replies if "id" in r}


def bridge_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "acp_mux", *args]


def test_unknown_agent_answers_initialize_then_names_the_agents(tmp_path):
    replies = exchange(bridge_argv("--agent", "nosuch"), tmp_path)
    assert replies[1]["result"]["protocolVersion"] == 1
    error = replies[2]["error"]
    assert error["code"] == -32002  # not found; never -32603, which CodeCompanion does not show
    assert "unknown agent 'nosuch'" in error["message"] and all(name in error["message"] for name in AGENT_NAMES)


def test_unknown_transport_answers_initialize_then_lists_the_transports(tmp_path):
    replies = exchange(bridge_argv("--agent", "codex", "--transport", "carrier-pigeon"), tmp_path)
    assert "result" in replies[1]
    assert "codex has no transport 'carrier-pigeon' (choose: app-server, exec)" in replies[2]["error"]["message"]


def test_missing_binary_says_how_to_install_it_and_where_to_point(tmp_path):
    replies = exchange(bridge_argv("--agent", "claude"), tmp_path, env={"PATH": "/nonexistent"})
    assert replies[1]["result"]["authMethods"], "the login is offered even before the agent is installed"
    message = replies[2]["error"]["message"]
    assert replies[2]["error"]["code"] == -32002 and replies[2]["error"]["data"] == {"agent": "claude"}
    assert "claude not found on PATH" in message
    assert "npm install -g @anthropic-ai/claude-code" in message
    assert "ACP_MUX_CLAUDE_BIN=/path/to/claude" in message and "acp-mux doctor claude" in message
    assert not (tmp_path / ".state").exists() or not any((tmp_path / ".state").rglob("*.json"))  # no session kept


def test_a_set_but_wrong_bin_variable_is_named(tmp_path):
    replies = exchange(bridge_argv("--agent", "codex"), tmp_path, env={"ACP_MUX_CODEX_BIN": str(tmp_path / "nowhere")})
    assert (
        f"ACP_MUX_CODEX_BIN is set to {tmp_path / 'nowhere'}, which is not an executable file"
        in replies[2]["error"]["message"]
    )


def test_a_person_at_a_terminal_gets_the_error_and_status_2():
    child = pexpect.spawn(sys.executable, ["-m", "acp_mux", "--agent", "nosuch"], encoding="utf-8", timeout=30)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2 and "unknown agent 'nosuch'" in child.before


def _terminal_auth(replies: dict[int, dict[str, Any]]) -> dict[str, Any]:
    (method,) = replies[1]["result"]["authMethods"]
    return method["_meta"]["terminal-auth"]


def test_the_login_command_offered_to_the_editor_is_absolute_and_runs(tmp_path):
    fake = tmp_path / "claude"
    fake.write_text('#!/bin/sh\necho "login args: $*"\n')
    fake.chmod(0o755)
    auth = _terminal_auth(exchange(bridge_argv("--agent", "claude", "--agent-bin", str(fake)), tmp_path))
    assert os.path.isabs(auth["command"])
    # Run it the way an editor would: no shell, an empty PATH.
    ran = subprocess.run(
        [auth["command"], *auth["args"]],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "", "HOME": str(tmp_path)},
        stdin=subprocess.DEVNULL,
    )
    assert ran.stdout.strip() == "login args: auth login", ran.stderr


def test_the_installed_console_script_offers_its_own_absolute_path(tmp_path):
    script = shutil.which("acp-mux", path=os.path.dirname(sys.executable))
    if script is None:
        pytest.skip(f"no acp-mux console script next to {sys.executable} (install with pip install -e .)")
    env = {"PATH": f"{os.path.dirname(script)}{os.pathsep}{os.environ.get('PATH', '')}"}
    auth = _terminal_auth(exchange(["acp-mux", "--agent", "codex"], tmp_path, env=env))
    assert auth["command"] == os.path.abspath(script)
    assert auth["args"] == ["--agent", "codex", "--login"]

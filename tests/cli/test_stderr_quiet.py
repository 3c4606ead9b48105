"""stderr carries warnings and worse only, whatever the log level: an editor may show each stderr line to the person
(acp.el makes every one an error in agent-shell's conversation), and DEBUG holds every protocol message, the prompt
and file contents included. DEBUG goes to the log file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest


def _turn(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """initialize, session/new and one prompt of the demo agent over pipes, as an editor sends them."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    word = f"secret-{uuid.uuid4().hex}"
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(project), "mcpServers": []}},
    ]
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_MUX_")}
    full_env.update(ACP_MUX_STATE_DIR=str(tmp_path / "state"), **(env or {}))
    process = subprocess.Popen(
        [sys.executable, "-m", "acp_mux", "--agent", "demo", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        cwd=project,
    )
    assert process.stdin is not None and process.stdout is not None
    for request in requests:
        process.stdin.write(json.dumps(request) + "\n")
    process.stdin.flush()
    session_id = None
    while session_id is None:
        reply = json.loads(process.stdout.readline())
        if reply.get("id") == 2:
            session_id = reply["result"]["sessionId"]
    prompt = {"sessionId": session_id, "prompt": [{"type": "text", "text": f"say {word}"}]}
    process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": prompt}) + "\n")
    process.stdin.flush()
    while json.loads(process.stdout.readline()).get("id") != 3:
        pass
    out, err = process.communicate(timeout=30)
    return subprocess.CompletedProcess(process.args, process.returncode, word, err)


@pytest.mark.parametrize("level", ["DEBUG", "INFO"])
def test_debug_goes_to_the_file_and_stderr_stays_quiet(tmp_path: Path, level: str) -> None:
    log = tmp_path / "acp-mux.log"
    done = _turn(tmp_path, "--log-level", level, "--log-file", str(log))
    word = done.stdout
    assert word not in done.stderr and "session/prompt" not in done.stderr
    assert not [line for line in done.stderr.splitlines() if " DEBUG " in line or " INFO " in line], done.stderr
    if level == "DEBUG":
        assert word in log.read_text() and "session/prompt" in log.read_text()


def test_the_default_log_takes_debug_and_stderr_stays_quiet(tmp_path: Path) -> None:
    done = _turn(tmp_path, env={"ACP_MUX_LOG_LEVEL": "DEBUG"})
    assert done.stdout not in done.stderr and done.stderr.strip() == "", done.stderr
    assert done.stdout in (tmp_path / "state" / "logs" / "acp-mux.log").read_text()

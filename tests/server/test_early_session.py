"""The launcher answers the first ``session/new`` too, as the server would, and the bridge adopts that session.

Compared through the real stdio of ``python -m acp_mux`` (the launcher): in one run, the ``session/new`` right after
``initialize``, which the launcher answers, and a second one, which only the server sees, must get the same answer
but for the id, for every agent, with and without what an agent reported last time and a ``--mode``
or ``--model``; both sessions are then the bridge's own (listed, stored privately, prompted).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_mux.adapters.registry import ENTRIES
from acp_mux.adapters.base import get_adapter
from tests.server.test_early_init import early_answer

SUPPORTED = [(name, transport) for name in ENTRIES if ENTRIES[name].supported for transport in ENTRIES[name].transports]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
REPORTED = {  # what an agent that reports its own modes and models said last time (<state>/agents/<name>.json)
    "modes": [
        {"id": "ask", "name": "Ask", "description": "asks first"},
        {"id": "yolo", "name": "Yolo", "description": ""},
    ],
    "models": [["m-1", "Model one"], ["m-2", "Model two"]],
    "current_mode": "ask",
    "current_model": "m-2",
}


def new_session(request_id: int, cwd: Path, **extra: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "session/new",
        "params": {"cwd": str(cwd), "mcpServers": [], **extra},
    }


def run_bridge(argv: list[str], messages: list[dict[str, Any]], env: dict[str, str]) -> dict[int, dict[str, Any]]:
    out = subprocess.run(
        [sys.executable, "-m", "acp_mux", *argv],
        input="".join(json.dumps(m) + "\n" for m in messages),
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return {m["id"]: m for m in map(json.loads, out.stdout.splitlines()) if "id" in m}


def fake_executable(folder: Path) -> Path:
    """Something the binary check finds: the agent itself is never asked anything in these tests."""
    folder.mkdir(exist_ok=True)
    path = folder / "agent"
    path.write_text("#!/bin/sh\nexec sleep 30\n")
    path.chmod(0o755)
    return path


def reports_its_own(agent: str, transport: str) -> bool:
    adapter = get_adapter(agent, transport)
    return not adapter.modes and not adapter.models


FLAGS = ["--mode", "plan", "--model", "m-1"]
CASES = [  # what an agent reported last time only matters to one that reports its own modes and models
    (agent, transport, reported, flags)
    for agent, transport in SUPPORTED
    for reported, flags in [(False, []), (True, FLAGS), *([(True, [])] if reports_its_own(agent, transport) else [])]
]


@pytest.mark.parametrize("agent,transport,reported,flags", CASES)
def test_the_launchers_session_answer_is_the_servers(
    agent: str, transport: str, reported: bool, flags: list[str], tmp_path: Path
) -> None:
    state = tmp_path / "state"
    if reported:
        (state / "agents").mkdir(parents=True)
        (state / "agents" / f"{agent}.json").write_text(json.dumps(REPORTED))
    binary = fake_executable(tmp_path / "bin")
    answers = run_bridge(
        ["--agent", agent, "--transport", transport, *flags],
        [
            INIT,
            new_session(2, tmp_path),
            new_session(3, tmp_path),
            {"jsonrpc": "2.0", "id": 4, "method": "session/list", "params": {}},
        ],
        {"ACP_MUX_STATE_DIR": str(state), ENTRIES[agent].bin_env_var: str(binary)},
    )
    early, late = answers[2]["result"], answers[3]["result"]
    assert early.pop("sessionId") != late.pop("sessionId")
    assert early == late
    listed = {s["sessionId"] for s in answers[4]["result"]["sessions"]}
    assert len(listed) == 2, "both sessions are the bridge's own"


def test_the_launcher_answers_it_before_importing_the_bridge(tmp_path: Path) -> None:
    """Without the background import, nothing heavy is loaded when the session/new answer is written; the bridge
    then adopts the session: listed, its record private, and a prompt in it answered by the agent."""
    probe = """
import json, os, sys
import acp_mux.launcher.entry as launch
heavy = ("asyncio", "pydantic", "acp_mux.adapters", "acp_mux.server.sessions.bridge", "acp_mux.cli.main", "logging")
loaded = []
real_write = os.write
def write(fd, data):
    if fd == 1 and len(loaded) < 2:
        loaded.append(sorted(m for m in heavy if m in sys.modules))
    return real_write(fd, data)
os.write = write
launch.load_bridge_in_background = lambda args: (lambda: None)
code = launch.main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": loaded}), file=sys.stderr)
"""
    prompt = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "session/prompt",
        "params": {"prompt": [{"type": "text", "text": "hi"}]},
    }
    lines = [INIT, new_session(2, tmp_path), {"jsonrpc": "2.0", "id": 3, "method": "session/list", "params": {}}]
    env = {**os.environ, "ACP_MUX_STATE_DIR": str(tmp_path / "state")}
    proc = subprocess.Popen(
        [sys.executable, "-c", probe, "--agent", "demo"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in lines))
    proc.stdin.flush()
    answers: dict[int, Any] = {}
    while 3 not in answers:
        message = json.loads(proc.stdout.readline())
        answers[message.get("id", 0)] = message
    session_id = answers[2]["result"]["sessionId"]
    prompt["params"]["sessionId"] = session_id
    proc.stdin.write(json.dumps(prompt) + "\n")
    proc.stdin.flush()
    while 4 not in answers:
        message = json.loads(proc.stdout.readline())
        answers[message.get("id", 0)] = message
    proc.stdin.close()
    report = json.loads(proc.stderr.read().splitlines()[-1])
    proc.wait(30)
    assert report == {"code": 0, "loaded": [[], []]}, f"imported before an early answer: {report}"
    assert [s["sessionId"] for s in answers[3]["result"]["sessions"]] == [session_id]
    assert answers[4]["result"]["stopReason"] == "end_turn", answers[4]
    record = tmp_path / "state" / "sessions" / f"{session_id}.json"
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert json.loads(record.read_text())["cwd"] == str(tmp_path)


INIT_LINE = json.dumps(INIT).encode() + b"\n"


def test_initialize_and_session_new_in_one_write_are_both_answered(tmp_path: Path) -> None:
    rest = b'{"jsonrpc":"2.0","id":3,"method":"session/list","params":{}}\n'
    early, written = early_answer(
        ["--agent", "demo"], INIT_LINE + json.dumps(new_session(2, tmp_path)).encode() + b"\n" + rest
    )
    assert early is not None and early.session is not None and early.leftover == rest
    replies = [json.loads(line) for line in written.splitlines()]
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[1]["result"]["sessionId"] == early.session.session_id == early.session.answer["sessionId"]


@pytest.mark.parametrize(
    "params",
    [
        {"cwd": "relative/path", "mcpServers": []},
        {"cwd": "/no/such/folder", "mcpServers": []},
        {"cwd": 7},
        {"mcpServers": []},
        {"cwd": "CWD", "mcpServers": "none"},
        {"cwd": "CWD", "mcpServers": [{"name": "x"}]},  # neither a command nor a url
        {"cwd": "CWD", "mcpServers": [{"name": "x", "command": "/bin/true", "env": [{"name": "K", "value": 1}]}]},
    ],
)
def test_session_new_it_does_not_fully_understand_goes_to_the_server(params: dict[str, Any], tmp_path: Path) -> None:
    if params.get("cwd") == "CWD":
        params = {**params, "cwd": str(tmp_path)}
    line = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": params}).encode() + b"\n"
    early, written = early_answer(["--agent", "demo"], INIT_LINE + line)
    assert early is not None and early.session is None and early.leftover == line
    assert [json.loads(x)["id"] for x in written.splitlines()] == [1]


def test_an_agent_that_cannot_start_is_left_to_the_server(tmp_path: Path, monkeypatch) -> None:
    """Its answer is the error that says how to install it (tests/server/test_startup_errors.py)."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv(ENTRIES["claude"].bin_env_var, raising=False)
    line = json.dumps(new_session(2, tmp_path)).encode() + b"\n"
    early, written = early_answer(["--agent", "claude"], INIT_LINE + line)
    assert early is not None and early.session is None and early.leftover == line
    binary = fake_executable(tmp_path / "bin")
    monkeypatch.setenv(ENTRIES["claude"].bin_env_var, str(binary))
    early, written = early_answer(["--agent", "claude"], INIT_LINE + line)
    assert early is not None and early.session is not None


def test_mcp_servers_are_taken_early_and_their_secrets_never_logged(tmp_path: Path) -> None:
    secret = "sk-early-0123456789abcdef"
    server = {"name": "tools", "command": "/bin/true", "args": [], "env": [{"name": "TOKEN", "value": secret}]}
    log = tmp_path / "bridge.log"
    answers = run_bridge(
        ["--agent", "demo", "--log-file", str(log), "--log-level", "DEBUG"],
        [
            INIT,
            new_session(2, tmp_path, mcpServers=[server]),
            {"jsonrpc": "2.0", "id": 3, "method": "session/list", "params": {}},
        ],
        {"ACP_MUX_STATE_DIR": str(tmp_path / "state")},
    )
    assert answers[3]["result"]["sessions"][0]["sessionId"] == answers[2]["result"]["sessionId"]
    text = log.read_text()
    assert '"session/new"' in text or "'session/new'" in text, "the early exchange is in the protocol log"
    assert secret not in text

"""Fault class 6: no secret on any command line (/proc/*/cmdline) or in any log; private files stay private.

MCP server env values and HTTP headers from session/new are secrets. With the demo agent the log and file modes are
checked; with the real claude and codex (e2e) also every command line of every process of ours while the agent is
running, and that the MCP server really got its env (so the secret was delivered, just not in the open).
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.faults.raw import RawBridge, wait_until
from tests.procs import pids, read_proc
from tests.server.client import RecordingClient

PROBE = Path(__file__).resolve().parents[1] / "fakes" / "programs" / "mcp_probe.py"


def secret_servers(token: str, header: str, probe_out: Path) -> list[dict[str, Any]]:
    return [
        {
            "name": "probe",
            "command": sys.executable,
            "args": [str(PROBE), str(probe_out)],
            "env": [{"name": "SECRET_TOKEN", "value": token}],
        },
        {
            "type": "http",
            "name": "remote",
            "url": "http://127.0.0.1:9/mcp",
            "headers": [{"name": "Authorization", "value": header}],
        },
    ]


def ours(marker: str) -> list[int]:
    needle = f"ACP_MUX_FAULT_MARK={marker}".encode()
    return [pid for pid in pids() if needle in read_proc(pid, "environ").split(b"\0")]


def command_lines(marker: str, also: str = "") -> list[bytes]:
    """Command lines of our processes: those with the marker in their environment, and (agents may start an MCP
    server with a clean environment) those whose command line names ``also``."""
    found = [read_proc(pid, "cmdline") for pid in ours(marker)]
    if also:
        found += [line for line in (read_proc(pid, "cmdline") for pid in pids()) if also.encode() in line]
    return found


def sessions_output(state: Path, command: str, session_id: str) -> str:
    """What ``acp-mux sessions COMMAND ID`` prints for the store under ``state`` (a real process)."""
    done = subprocess.run(
        [sys.executable, "-m", "acp_mux", "sessions", command, session_id],
        capture_output=True,
        text=True,
        env={**os.environ, "ACP_MUX_STATE_DIR": str(state)},
        timeout=60,
        check=True,
    )
    return done.stdout


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_mcp_secrets_never_reach_a_log_and_files_are_private(tmp_path: Path) -> None:
    token, header = f"tok-{uuid.uuid4().hex}", f"Bearer {uuid.uuid4().hex}"
    env_key = f"sk-env-{uuid.uuid4().hex}"
    raw = RawBridge(tmp_path, "--log-level", "DEBUG", env={"SOME_API_KEY": env_key})
    raw.initialize()
    sid = raw.result("session/new", {"cwd": str(raw.cwd), "mcpServers": secret_servers(token, header, tmp_path / "p")})[
        "sessionId"
    ]
    assert raw.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": f"echo {token}"}]}, 20)
    assert raw.close() == 0
    log, stderr = raw.log(), raw.stderr()
    assert "session/new" in log and "[redacted]" in log  # the protocol log is there, masked
    for secret in (token, header, env_key):
        assert secret not in log and secret not in stderr, secret
    assert mode_of(raw.log_file) == 0o600
    state = tmp_path / "state"  # (the root may be the user's own directory; everything we create in it is private)
    assert list(state.rglob("*"))
    for path in state.rglob("*"):
        assert mode_of(path) == (0o700 if path.is_dir() else 0o600), path
    # the prompt named the token: the store keeps it masked, as the log does, and `sessions` never prints it
    stored = b"".join(p.read_bytes() for p in state.rglob("*") if p.is_file())
    assert b"[redacted]" in stored
    for secret in (token, header, env_key):
        assert secret.encode() not in stored, secret
    shown = "".join(sessions_output(state, command, sid) for command in ("show", "export"))
    assert "[redacted]" in shown and token not in shown


def test_an_existing_world_readable_log_file_is_made_private(tmp_path: Path) -> None:
    raw = RawBridge(tmp_path)
    raw.close()
    raw.log_file.chmod(0o644)
    again = RawBridge(tmp_path)
    again.initialize()
    assert again.close() == 0
    assert mode_of(again.log_file) == 0o600


async def test_sdk_client_mcp_secrets_are_masked_in_the_debug_log(tmp_path: Path) -> None:
    token = f"tok-{uuid.uuid4().hex}"
    project = tmp_path / "project"
    project.mkdir()
    log_file = tmp_path / "acp-mux.log"
    env = dict(os.environ, ACP_MUX_STATE_DIR=str(tmp_path / "state"))
    async with acp.spawn_agent_process(
        RecordingClient(),
        sys.executable,
        "-m",
        "acp_mux",
        "--agent",
        "demo",
        "--log-level",
        "DEBUG",
        "--log-file",
        str(log_file),
        env=env,
        cwd=str(project),
        transport_kwargs={"stderr": None},
    ) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=None)
        servers = [
            acp.schema.McpServerStdio(
                name="probe",
                command=sys.executable,
                args=[str(PROBE), "/dev/null"],
                env=[acp.schema.EnvVariable(name="SECRET_TOKEN", value=token)],
            )
        ]
        sid = (await conn.new_session(cwd=str(project), mcp_servers=servers)).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("hello")]), 20)
    text = log_file.read_text()
    assert "mcpServers" in text and token not in text


# ── the real agents: nothing on a command line, and the MCP server still got its env ──────────────────────────
@pytest.mark.e2e
@pytest.mark.parametrize("name", ["claude", "codex"])
async def test_real_agent_gets_mcp_secrets_without_any_command_line_showing_them(tmp_path: Path, name: str) -> None:
    from tests.e2e.harness import RealAgent, require_cli

    agent = RealAgent(name, require_cli(name), tmp_path)
    agent.serve(f"{name}_text")
    token, header = f"tok-{uuid.uuid4().hex}", f"Bearer {uuid.uuid4().hex}"
    probe_out = tmp_path / "probe.jsonl"
    marker = uuid.uuid4().hex
    seen: list[bytes] = []
    log_file = tmp_path / "acp-mux.log"
    client = RecordingClient()
    try:
        env = {**agent.env(), "ACP_MUX_FAULT_MARK": marker}
        async with acp.spawn_agent_process(
            client,
            sys.executable,
            "-m",
            "acp_mux",
            "--agent",
            name,
            "--log-level",
            "DEBUG",
            "--log-file",
            str(log_file),
            env=env,
            cwd=str(agent.cwd),
            transport_kwargs={"stderr": None},
        ) as (conn, _):
            await conn.initialize(protocol_version=1, client_capabilities=None)
            servers = secret_servers(token, header, probe_out)
            sid = (await conn.new_session(cwd=str(agent.cwd), mcp_servers=servers)).session_id
            turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Say hello.")]))
            deadline = time.monotonic() + 90
            while not turn.done() and time.monotonic() < deadline:  # sample every command line while it runs
                seen += command_lines(marker, str(probe_out))
                await asyncio.sleep(0.05)
            await asyncio.wait_for(turn, 5)
            await asyncio.get_running_loop().run_in_executor(
                None, lambda: wait_until(probe_out.exists, 30, "the MCP server to start")
            )
            seen += command_lines(marker, str(probe_out))
    finally:
        agent.close()
    assert any(b"mcp_probe.py" in line for line in seen), "the MCP server was never seen running"
    for line in seen:
        assert token.encode() not in line and header.encode() not in line, line
    started = [json.loads(line) for line in probe_out.read_text().splitlines()]
    assert started[0]["env"].get("SECRET_TOKEN") == token  # delivered, through a private channel
    log = log_file.read_text()
    assert token not in log and header not in log
    assert mode_of(log_file) == 0o600
    leftovers = list(Path(os.environ.get("XDG_RUNTIME_DIR") or "/nonexistent").glob("acp-mux/run-*/*mcp.json"))
    assert not [p for p in leftovers if token in p.read_text(errors="replace")]


# ── issue 21 class 6: a folder planted where acp-mux keeps private files is never used ─────────────────────────
def _plant(fixed: Path, kind: str, elsewhere: Path) -> None:
    if kind == "symlink":
        elsewhere.mkdir()
        fixed.symlink_to(elsewhere)
    elif kind == "other_uid":
        fixed.mkdir(mode=0o700)
        os.chown(fixed, 54321, 54321)
    else:  # everyone may write
        fixed.mkdir()
        os.chmod(fixed, 0o777)


@pytest.mark.e2e
@pytest.mark.skipif(os.getuid() != 0, reason="chown to another uid needs root (the test machine runs as root)")
@pytest.mark.parametrize("kind", ["symlink", "other_uid", "mode_0777"])
async def test_real_claude_works_and_never_uses_a_planted_private_folder(tmp_path: Path, kind: str) -> None:
    """The bridge's temp dir is the test's own (TMPDIR), never the machine's /tmp, where other bridges run."""
    from tests.e2e.harness import RealAgent, require_cli

    agent = RealAgent("claude", require_cli("claude"), tmp_path)
    agent.serve("claude_text")
    temp = tmp_path / "tmp"
    temp.mkdir()
    fixed = temp / f"acp-mux-{os.getuid()}"
    elsewhere = tmp_path / "elsewhere"
    _plant(fixed, kind, elsewhere)
    before = os.lstat(fixed)
    token = f"tok-{uuid.uuid4().hex}"
    probe_out = tmp_path / "probe.jsonl"
    client = RecordingClient()
    try:
        env = {k: v for k, v in agent.env().items() if k != "XDG_RUNTIME_DIR"}
        env["TMPDIR"] = str(temp)
        async with acp.spawn_agent_process(
            client,
            sys.executable,
            "-m",
            "acp_mux",
            "--agent",
            "claude",
            env=env,
            cwd=str(agent.cwd),
            transport_kwargs={"stderr": None},
        ) as (conn, _):
            await conn.initialize(protocol_version=1, client_capabilities=None)
            servers = [
                acp.schema.McpServerStdio(
                    name="probe",
                    command=sys.executable,
                    args=[str(PROBE), str(probe_out)],
                    env=[acp.schema.EnvVariable(name="SECRET_TOKEN", value=token)],
                )
            ]
            sid = (await conn.new_session(cwd=str(agent.cwd), mcp_servers=servers)).session_id
            result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Say hello.")]), 90)
            assert result.stop_reason == "end_turn"
            await asyncio.get_running_loop().run_in_executor(
                None, lambda: wait_until(probe_out.exists, 30, "the MCP server to start")
            )
    finally:
        agent.close()
    assert json.loads(probe_out.read_text().splitlines()[0])["env"].get("SECRET_TOKEN") == token  # delivered
    after = os.lstat(fixed)
    assert (after.st_mode, after.st_uid, after.st_ino) == (before.st_mode, before.st_uid, before.st_ino)
    planted = elsewhere if kind == "symlink" else fixed
    assert list(planted.iterdir()) == []  # nothing of ours was ever written there
    assert not any(token in p.read_text(errors="replace") for p in temp.rglob("*") if p.is_file())  # removed after

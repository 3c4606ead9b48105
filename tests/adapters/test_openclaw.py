"""openclaw's private gateway and its two transports, without the real CLI: a fake ``openclaw`` that listens like a
gateway (or dies like one that cannot start), the gateway's config and slots, the session key the ACP bridge
resumes by, and the ``agent exec`` envelope (tests/e2e/test_openclaw.py runs the real 2026.9.6)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_mux.adapters.acp_agents.acp_client import AcpRun
from acp_mux.adapters.acp_agents.openclaw.adapter import OpenclawAdapter
from acp_mux.adapters.acp_agents.openclaw.exec_transport import OpenclawExecAdapter
from acp_mux.adapters.acp_agents.openclaw.gateway import Endpoint, Gateway, GatewayError, gateway_config, user_config
from acp_mux.adapters.acp_agents.openclaw.registry import process_start
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.process.spawn import ExitStatus
from acp_mux.core.run.prompt import Prompt
from tests.adapters.helpers import FIXTURES, make_ctx
from tests.adapters.test_openclaw_shared_gateway import install_fake

EXEC_ENVELOPE = {
    "ok": True,
    "status": "ok",
    "final": "Hello from fake openclaw model.",
    "payloads": [{"text": "Hello from fake openclaw model.", "mediaUrl": None}],
    "usage": {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "total": 120, "cost": {"total": 0.25}},
    "model": "fake-model",
    "provider": "fake",
    "sessionId": "3625c077-8ece-4ff6-9483-58f3211a3659",
}

# A stand-in for `openclaw`: `gateway run --port N` records what it was given and listens on N; with
# FAKE_GATEWAY_FAIL it says why on stderr and exits 1 instead.
FAKE_OPENCLAW = f"""#!{sys.executable}
import json, os, socket, sys, time
args = sys.argv[1:]
record = os.environ["FAKE_GATEWAY_RECORD"]
with open(record, "w") as fh:
    json.dump({{"args": args, "token": os.environ.get("OPENCLAW_GATEWAY_TOKEN"),
               "state": os.environ.get("OPENCLAW_STATE_DIR"), "config": os.environ.get("OPENCLAW_CONFIG_PATH"),
               "skip_channels": os.environ.get("OPENCLAW_SKIP_CHANNELS"),
               "no_auto_update": os.environ.get("OPENCLAW_NO_AUTO_UPDATE")}}, fh)
if os.environ.get("FAKE_GATEWAY_FAIL"):
    print("Gateway failed to start: " + os.environ["FAKE_GATEWAY_FAIL"], file=sys.stderr, flush=True)
    sys.exit(1)
port = int(args[args.index("--port") + 1])
s = socket.socket(); s.bind(("127.0.0.1", port)); s.listen()
print("listening", flush=True)
while True:
    conn, _ = s.accept(); conn.close()
"""


@pytest.fixture
def fake_openclaw(tmp_path: Path) -> Path:
    return install_fake(tmp_path, FAKE_OPENCLAW)


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    home = tmp_path / "home"
    (home / ".openclaw").mkdir(parents=True, exist_ok=True)
    (home / ".openclaw" / "openclaw.json").write_text('{"agents": {"defaults": {"model": {"primary": "fake/m"}}}}')
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "ACP_MUX_STATE_DIR": str(tmp_path / "state"),
        "FAKE_GATEWAY_RECORD": str(tmp_path / "record.json"),
        "ACP_MUX_OPENCLAW_GRACE_S": "0",
        **extra,
    }  # the shared gateway goes as soon as the test detaches


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ── the private gateway ────────────────────────────────────────────────────────────────────────────────────────
@pytest.mark.asyncio
async def test_the_gateway_gets_its_token_privately_and_its_own_state(tmp_path: Path, fake_openclaw: Path) -> None:
    env = env_for(tmp_path)
    gateway = Gateway(str(fake_openclaw), env)
    try:
        endpoint = await gateway.ready(timeout=30)
        record = json.loads((tmp_path / "record.json").read_text())
        token = endpoint.token_file.read_text().strip()
        assert record["token"] == token and len(token) == 64
        assert token not in " ".join(record["args"])  # never on a command line
        assert record["args"][:2] == ["gateway", "run"] and "loopback" in record["args"]
        assert endpoint.url == f"ws://127.0.0.1:{record['args'][record['args'].index('--port') + 1]}"
        assert record["skip_channels"] == "1"  # the person's channels never answer twice
        assert record["no_auto_update"] == "1"  # no npm update check, never an update of the person's install
        state = Path(record["state"])
        assert state == tmp_path / "state" / "openclaw" / "gateway" and mode(state) == 0o700
        assert mode(endpoint.token_file) == 0o600 and mode(endpoint.config) == 0o600
        config = json.loads(endpoint.config.read_text())
        assert config["$include"] == str(tmp_path / "home" / ".openclaw" / "openclaw.json")
        assert config["gateway"]["bind"] == "loopback" and config["gateway"]["auth"] == {"mode": "token"}
        assert await gateway.ready() is endpoint  # started once
    finally:
        await gateway.stop()
    assert gateway.registration is not None
    pid, start = gateway.registration.gateway_pid, gateway.registration.gateway_start
    for _ in range(60):  # the keeper stops it once no bridge holds a lease (grace 0 here)
        if process_start(pid) != start:
            break
        await asyncio.sleep(0.05)
    assert process_start(pid) != start


@pytest.mark.asyncio
async def test_a_gateway_that_dies_says_why(tmp_path: Path, fake_openclaw: Path) -> None:
    gateway = Gateway(str(fake_openclaw), env_for(tmp_path, FAKE_GATEWAY_FAIL="port in use"))
    with pytest.raises(GatewayError, match="exited.*port in use"):
        await gateway.ready(timeout=30)


def test_acp_gets_the_gateway_state_and_config_but_not_the_token_variable(tmp_path: Path) -> None:
    endpoint = Endpoint("ws://127.0.0.1:1", tmp_path / "t", tmp_path / "s", tmp_path / "c.json", tmp_path / "inc")
    env = endpoint.acp_env({"OPENCLAW_GATEWAY_TOKEN": "secret", "HOME": "/h"})
    assert "OPENCLAW_GATEWAY_TOKEN" not in env and env["HOME"] == "/h"
    assert env["OPENCLAW_STATE_DIR"] == str(tmp_path / "s") and env["OPENCLAW_CONFIG_PATH"] == str(tmp_path / "c.json")
    assert env["OPENCLAW_INCLUDE_ROOTS"] == str(tmp_path / "inc")


def test_the_private_config_only_overrides_the_gateway(tmp_path: Path) -> None:
    config = gateway_config(4242, tmp_path / "mine.json", tmp_path / "slot")
    assert set(config) == {"$include", "gateway", "logging", "tools", "plugins"}  # the last two: asking (openclaw_asks)
    assert config["gateway"] == {
        "mode": "local",
        "port": 4242,
        "bind": "loopback",
        "auth": {"mode": "token"},
        "tailscale": {"mode": "off"},
        "controlUi": {"enabled": False},
    }
    assert "$include" not in gateway_config(4242, None, tmp_path / "slot")


def test_the_persons_config_is_found_where_openclaw_looks(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert user_config({"HOME": str(home)}) is None
    (home / ".openclaw").mkdir(parents=True)
    (home / ".openclaw" / "openclaw.json").write_text("{}")
    assert user_config({"HOME": str(home)}) == home / ".openclaw" / "openclaw.json"
    explicit = tmp_path / "elsewhere.json"
    explicit.write_text("{}")
    assert user_config({"HOME": str(home), "OPENCLAW_CONFIG_PATH": str(explicit)}) == explicit


# ── the adapter: acp through the gateway, exec when it cannot run ──────────────────────────────────────────────
@pytest.mark.asyncio
async def test_the_acp_process_reaches_the_gateway_by_url_and_token_file(tmp_path: Path, fake_openclaw: Path) -> None:
    adapter = OpenclawAdapter()
    env = env_for(tmp_path, ACP_MUX_OPENCLAW_ASK="bypass")  # the fake gateway loads no gate plugin
    options = RunOptions(agent="openclaw", cwd=str(tmp_path), binary=str(fake_openclaw), env=env)
    try:
        await adapter.prepare(options)
        spec = adapter.build_spawn(options)
        assert adapter.gateway is not None and adapter.gateway.endpoint is not None
        endpoint = adapter.gateway.endpoint
        assert spec.args[:3] == [
            "-m",
            "acp_mux.adapters.acp_agents.openclaw.relay",
            str(fake_openclaw),
        ]  # the gate's relay
        assert spec.args[3:] == ["acp", "--url", endpoint.url, "--token-file", str(endpoint.token_file)]
        assert spec.env is not None and spec.env["OPENCLAW_STATE_DIR"] == str(endpoint.state)
    finally:
        if adapter.gateway is not None:
            await adapter.gateway.stop()


@pytest.mark.asyncio
async def test_without_a_gateway_the_bridge_falls_back_to_exec_and_says_so(tmp_path: Path, fake_openclaw: Path) -> None:
    adapter = OpenclawAdapter()
    env = env_for(tmp_path, FAKE_GATEWAY_FAIL="no room")
    options = RunOptions(
        agent="openclaw", cwd=str(tmp_path), binary=str(fake_openclaw), env=env, prompt=Prompt.of_text("hi")
    )
    await adapter.prepare(options)
    spec = adapter.build_spawn(options)
    assert spec.args[:3] == ["agent", "exec", "--json"]
    ctx = make_ctx("openclaw", str(tmp_path))
    adapter.start(options, ctx)
    lines = json.dumps(EXEC_ENVELOPE, indent=2).splitlines()
    for at in range(len(lines)):  # read as the run reads a burst: an exec run's lines go to the exec adapter
        parsed, taken = adapter.parse_from(lines, at, ctx)
        assert list(parsed) == [] and taken == 1
    events = list(adapter.finish(ExitStatus(0, None), ctx))
    text = "".join(e.delta for e in events if e.type == "text_delta")
    assert "gateway could not start" in text and "no room" in text and "no streaming" in text
    assert text.endswith("Hello from fake openclaw model.")


# ── sessions resume by the gateway's key ───────────────────────────────────────────────────────────────────────
def test_a_new_session_is_named_by_its_gateway_key_once_openclaw_reports_it() -> None:
    adapter = OpenclawAdapter()
    ctx = make_ctx("openclaw")
    uuid = "4b5dc656-a18f-4f08-92c9-a0c76253ae6b"
    assert adapter.native_session_id(uuid) is None  # the ACP id does not resume
    early = {"sessionUpdate": "session_info_update", "_meta": {"sessionKey": f"acp-bridge:{uuid}", "kind": "unknown"}}
    assert [e.type for e in adapter.on_update(early, ctx)] == ["agent_update"]  # the editor still gets it
    key = f"agent:main:acp-bridge:{uuid}"
    final = {"sessionUpdate": "session_info_update", "_meta": {"sessionKey": key, "kind": "direct"}}
    start, forwarded = adapter.on_update(final, ctx)
    assert start.type == "session_start" and start.session_id == key
    assert forwarded.type == "agent_update" and forwarded.update == final
    assert adapter.native_session_id(key) == key  # a resumed session is opened by key


# ── agent exec ─────────────────────────────────────────────────────────────────────────────────────────────────
def exec_run(envelope: dict[str, Any], tmp_path: Path, code: int = 0) -> tuple[list[Any], Any]:
    adapter = OpenclawExecAdapter()
    options = RunOptions(
        agent="openclaw", cwd=str(tmp_path), prompt=Prompt.of_text("secret plan"), binary=sys.executable
    )
    spec = adapter.build_spawn(options)
    ctx = make_ctx("openclaw", str(tmp_path))
    adapter.start(options, ctx)
    for line in json.dumps(envelope, indent=2).splitlines():
        adapter.parse_line(line, ctx)
    return list(adapter.finish(ExitStatus(code, None), ctx)), spec


def test_exec_reads_the_final_envelope_with_usage_and_cost(tmp_path: Path) -> None:
    events, spec = exec_run(EXEC_ENVELOPE, tmp_path)
    types = [e.type for e in events]
    assert types[0] == "turn_start" and types[-1] == "turn_end"
    (usage,) = [e for e in events if e.type == "token_usage"]
    assert (usage.input_tokens, usage.output_tokens) == (100, 20)
    (cost,) = [e for e in events if e.type == "cost"]
    assert cost.cost.total_usd == 0.25
    ((path, text),) = spec.private_files  # the prompt goes through a private file, not the command line
    assert (
        text == "secret plan"
        and "secret plan" not in spec.args
        and spec.args[spec.args.index("--message-file") + 1] == path
    )


def test_the_recorded_exec_envelope_parses(tmp_path: Path) -> None:
    capture = FIXTURES / "openclaw" / "exec-probe.json"  # `openclaw agent exec --json` 2026.9.6, on the fake model
    events, _ = exec_run(json.loads(capture.read_text()), tmp_path)
    assert [e.text for e in events if e.type == "message_stop"][-1] == "Hello from fake openclaw model."


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("401 Unauthorized: invalid api key", "auth_error"),
        ("429 Too Many Requests", "rate_limit_error"),
        ("model produced no output", "error"),
    ],
)
def test_exec_failures_are_typed(tmp_path: Path, message: str, kind: str) -> None:
    envelope = {"ok": False, "status": "error", "final": "", "error": {"message": message, "kind": "provider"}}
    events, _ = exec_run(envelope, tmp_path, code=1)
    assert kind in [e.type for e in events] and events[-1].type == "turn_end"


# ── failures only the gateway's log tells ──────────────────────────────────────────────────────────────────────
LANE_ERROR = (
    "2026-11-23T11:06:36.603+00:00 [diagnostic] lane task error: lane=session:agent:main:acp-bridge:{uuid} "
    'durationMs=669 error="Authentication failed (provider returned HTTP 401). Your provider token may have '
    'expired." errorName=FailoverError'
)


def test_a_turn_openclaw_ends_silently_is_the_failure_the_gateway_logged(tmp_path: Path) -> None:
    """2026.9.6 ends a turn whose provider answered 401 as `end_turn` with no text; its gateway's log says why."""
    adapter = OpenclawAdapter()
    adapter.gateway = Gateway("openclaw", {}, root=tmp_path)
    ctx = make_ctx("openclaw", str(tmp_path))
    options = RunOptions(agent="openclaw", cwd=str(tmp_path), env={})
    adapter._endpoints[id(options)] = Endpoint("ws://127.0.0.1:1", tmp_path / "t", tmp_path, tmp_path / "c.json")
    adapter.start(options, ctx)  # an ACP run (the gateway was ready)
    uuid = "0c799fb7-e0c1-4190-babb-ffbfb84e5a22"
    AcpRun.of(ctx).session_id = uuid
    assert adapter.failed_turn("end_turn", ctx) is None  # nothing logged: a turn that ended well
    adapter.gateway.note_line(
        "[diagnostic] lane task error: lane=session:agent:main:acp-bridge:other "
        'durationMs=1 error="boom" errorName=Error'
    )
    adapter.gateway.note_line(LANE_ERROR.format(uuid=uuid))
    events = adapter.failed_turn("end_turn", ctx)
    assert events is not None and [e.type for e in events] == ["auth_error"]
    assert "HTTP 401" in events[0].message
    assert adapter.failed_turn("end_turn", ctx) is None  # said once
    adapter.gateway.note_line(LANE_ERROR.format(uuid=uuid).replace("Authentication failed", "Request aborted"))
    assert adapter.failed_turn("end_turn", ctx) is None  # a cancel is not a failure

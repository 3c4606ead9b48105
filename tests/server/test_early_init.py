"""The launcher answers ``initialize`` before importing the bridge, and its answer is the server's, byte for byte.

The early answer is built from a snapshot of the adapters' facts (``acp_mux/launcher/agent_facts.json``); these tests
keep the snapshot true to the adapters, the answer equal to the server's for every agent, and everything the
launcher does not fully understand left to the server, unread or handed over intact.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading

import pytest

from acp_mux.adapters.registry import ENTRIES
from acp_mux.adapters.base import get_adapter
from acp_mux.launcher import early_init
from acp_mux.server.wire.editor_edge import parse_request
from acp_mux.server.sessions.bridge import AcpServer
from acp_mux.server.sessions.live_session import BridgeConfig

SUPPORTED = [(name, transport) for name in ENTRIES if ENTRIES[name].supported for transport in ENTRIES[name].transports]
CLIENTS = [None, {"fs": {"readTextFile": True}, "terminal": True}, {"auth": {"terminal": True}}]


def test_the_snapshot_states_what_the_adapters_state() -> None:
    """An agent missing from the snapshot is only answered the slow way; a stale one would be answered wrongly."""
    with open(early_init.FACTS_FILE, encoding="utf-8") as fh:
        snapshot = json.load(fh)
    current = early_init.current_facts()
    stale = {name for name in snapshot if snapshot[name] != current.get(name)}
    assert not stale, f"stale facts for {sorted(stale)}: run `python -m acp_mux.launcher.early_init`"


def early_answer(argv: list[str], first: bytes) -> tuple[early_init.Early | None, bytes]:
    """Run answer_early on pipes: (what it returned, what it wrote)."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()

    def feed() -> None:  # from a thread: a first line longer than the pipe's buffer (64 KiB) would block here
        try:
            view = memoryview(first)
            while view:
                view = view[os.write(in_w, view) :]
        except BrokenPipeError:  # the reader stopped early (nothing read, or a line too long)
            pass
        finally:
            os.close(in_w)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        early = early_init.answer_early(argv, in_r, out_w)
    finally:
        os.close(in_r)
        os.close(out_w)
        writer.join(5)
    with os.fdopen(out_r, "rb") as fh:
        return early, fh.read()


@pytest.mark.parametrize("agent,transport", SUPPORTED)
@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("binary", [None, "/opt/agent/bin/x"])
def test_the_early_answer_is_the_servers(
    agent: str, transport: str, client: dict | None, binary: str | None, tmp_path
) -> None:
    params = {"protocolVersion": 1, **({"clientCapabilities": client} if client is not None else {})}
    request = {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": params}
    argv = ["--agent", agent, "--transport", transport, *(["--agent-bin", binary] if binary else [])]
    assert early_init.load_facts(agent, transport) is not None, (
        f"{agent} is not in the early-initialize snapshot: run `python tools/sync_agents.py`"
    )
    early, written = early_answer(argv, json.dumps(request).encode() + b"\n")
    assert early is not None and early.params == params and early.leftover == b""

    server = AcpServer.__new__(AcpServer)  # just what initialize reads: no connection, no sessions
    server.adapter, server.choices, server.client_capabilities = get_adapter(agent, transport), None, {}
    server.config = BridgeConfig(agent=agent, binary=binary)
    expected = asyncio.run(server.initialize(parse_request("initialize", params)))  # as the bridge's edge reads it
    assert json.loads(written) == {"jsonrpc": "2.0", "id": 7, "result": expected}


def test_what_follows_the_initialize_is_handed_to_the_server_intact() -> None:
    init = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n'
    rest = b'{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}}\n{"partial'
    early, written = early_answer(["--agent", "demo"], init + rest)
    assert early is not None and early.leftover == rest and early.request_id == 1
    assert json.loads(written)["id"] == 1


@pytest.mark.parametrize(
    "first",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}\n',  # not an initialize
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n',  # no protocolVersion: the server's -32602
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":[]}}\n',
        b'{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":1}}\n',  # a notification
        b"not json\n",
        b"[" * 30_000 + b"]" * 30_000 + b"\n",  # too deep to parse (and small enough for a pipe's buffer)
        b'{"jsonrpc":"2.0","id":"\\ud800","method":"initialize","params":{"protocolVersion":1}}\n',  # lone surrogate
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}',  # no newline: input ended
    ],
)
def test_anything_else_is_left_to_the_server_unanswered(first: bytes) -> None:
    early, written = early_answer(["--agent", "demo"], first)
    assert written == b""
    assert early is not None and early.params is None and early.leftover == first


# A known agent without an adapter yet (or, once every row has one, an unknown name): not answered early either.
UNSUPPORTED = next((name for name, row in ENTRIES.items() if not row.supported), "no-such-agent")


@pytest.mark.parametrize(
    "argv",
    [
        ["doctor"],
        ["demo"],
        ["--agent", "claude", "--login"],
        ["--help"],
        ["--version"],
        ["--agent", "auto"],
        [],
        ["--agent", "claude", "--log-level", "LOUD"],
        ["--agent", "claude", "--inactivity-timeout", "soon"],
        ["--agent", "claude", "--unknown"],
        ["--agent"],
        ["--agent", UNSUPPORTED],
        ["--agent", "codex", "--transport", "x"],
    ],
)
def test_command_lines_it_does_not_fully_understand_are_not_read_at_all(argv: list[str], monkeypatch) -> None:
    monkeypatch.delenv("ACP_MUX_AGENT", raising=False)
    init = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n'
    early, written = early_answer(argv, init)
    assert early is None and written == b""


def test_serve_command_lines_it_understands(monkeypatch) -> None:
    monkeypatch.setenv("ACP_MUX_CODEX_TRANSPORT", "exec")
    target = early_init.serve_target
    assert target(["--agent=codex", "--stdio", "--model", "m", "--", "--anything"], os.environ) == (
        "codex",
        "exec",
        {"--agent": "codex", "--model": "m"},
    )
    assert target(["--agent", "claude", "--agent-bin", "/x/claude", "--log-level", "debug"], {}) == (
        "claude",
        None,
        {"--agent": "claude", "--agent-bin": "/x/claude", "--log-level": "debug"},
    )
    assert target([], {"ACP_MUX_AGENT": "gemini"}) == ("gemini", None, {})


PROBE = """
import json, os, sys
heavy = ("asyncio", "pydantic", "acp_mux.adapters", "acp_mux.server.sessions.bridge", "acp_mux.cli.main", "logging")
loaded_at_answer = []
real_write = os.write
def write(fd, data):
    if fd == 1 and not loaded_at_answer:
        loaded_at_answer.append(sorted(m for m in heavy if m in sys.modules))
    return real_write(fd, data)
os.write = write
from acp_mux.launcher.entry import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": loaded_at_answer}), file=sys.stderr)
"""


def test_the_launcher_answers_before_importing_the_bridge_and_the_bridge_carries_on(tmp_path) -> None:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(tmp_path), "mcpServers": []}},
        {"jsonrpc": "2.0", "id": 3, "method": "session/list", "params": {}},
    ]
    out = subprocess.run(
        [sys.executable, "-c", PROBE, "--agent", "demo"],
        input="".join(json.dumps(m) + "\n" for m in lines),
        capture_output=True,
        text=True,
        env={**os.environ, "ACP_MUX_STATE_DIR": str(tmp_path / "state")},
        timeout=60,
    )
    answers = {m["id"]: m for m in map(json.loads, out.stdout.splitlines()) if "id" in m}
    assert answers[1]["result"]["agentInfo"]["title"] == "acp-mux: Scripted demo agent", out.stderr
    assert answers[3]["result"]["sessions"][0]["sessionId"] == answers[2]["result"]["sessionId"]
    report = json.loads(out.stderr.splitlines()[-1])
    assert report == {"code": 0, "loaded": [[]]}, f"imported before the initialize answer: {report}"


def _false_flags(value: object, path: str = "") -> list[str]:
    if value is False:
        return [path]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _false_flags(item, f"{path}.{key}")]
    return []


@pytest.mark.parametrize("agent,transport", SUPPORTED)
def test_only_offered_capabilities_are_sent(agent: str, transport: str) -> None:
    """agent-shell lists every capability flag present, ``false`` ones too ("audio" for an agent that takes none):
    a declined capability is left out, in the launcher's answer (equal to the server's, above)."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    early, written = early_answer(["--agent", agent, "--transport", transport], json.dumps(request).encode() + b"\n")
    assert early is not None
    capabilities = json.loads(written)["result"]["agentCapabilities"]
    assert _false_flags(capabilities) == []
    assert capabilities["loadSession"] is True

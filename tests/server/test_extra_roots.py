"""additionalDirectories (issue 23): checked on session/new, load and resume, kept with the session, listed by
session/list, refused clearly for an agent that cannot take them, and handed to the agent as its own flags.

In process, through the bridge's typed edge (``AcpServer.call``) with a real session store; the agent is the bundled
demo one, whose adapter is given the hook for the tests that need an agent that takes extra roots. The real claude
and gemini CLIs getting the folder are proven in tests/e2e/test_extra_roots_e2e.py.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_mux.adapters.base import get_adapter
from acp_mux.server.sessions.bridge import AcpServer
from acp_mux.server.sessions.live_session import BridgeConfig
from acp_mux.server.wire.rpc import INVALID_PARAMS, Connection, RpcError
from acp_mux.server.records.store import SessionStore


@pytest.fixture(autouse=True)
def _demo_as_it_is() -> Any:
    """The registry hands out one demo adapter: what a test gave it is taken back after the test."""
    yield
    get_adapter("demo").__dict__.pop("extra_directory_args", None)


def _server(tmp_path: Path, takes: bool) -> AcpServer:
    adapter = get_adapter("demo")
    if takes:  # an instance attribute: the demo agent as an agent with an --add-dir of its own
        adapter.extra_directory_args = lambda dirs: [a for d in dirs for a in ("--add-dir", d)]  # type: ignore[method-assign]
    server = AcpServer(Connection(-1, -1), adapter, BridgeConfig(agent="demo"), SessionStore(tmp_path / "state"))
    asyncio.run(server.call("initialize", {"protocolVersion": 1}))
    return server


def _new(server: AcpServer, cwd: Path, dirs: Any) -> str:
    answer = asyncio.run(server.call("session/new", {"cwd": str(cwd), "mcpServers": [], "additionalDirectories": dirs}))
    return str(answer.result["sessionId"])


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path, Path]:
    cwd, one, two = tmp_path / "project", tmp_path / "docs", tmp_path / "lib, shared"
    for folder in (cwd, one, two):
        folder.mkdir()
    return cwd, one, two


def test_kept_listed_and_handed_to_the_agent(tmp_path: Path, roots: tuple[Path, Path, Path]) -> None:
    cwd, one, two = roots
    server = _server(tmp_path, takes=True)
    sid = _new(server, cwd, [str(one), str(two)])
    listed = asyncio.run(server.call("session/list", {}))["sessions"]
    assert [s["additionalDirectories"] for s in listed if s["sessionId"] == sid] == [[str(one), str(two)]]
    options = server.sessions[sid]._run_options(None)
    assert options.extra_args[-4:] == ["--add-dir", str(one), "--add-dir", str(two)]
    assert SessionStore(tmp_path / "state").get(sid).additional_directories == [str(one), str(two)]  # type: ignore[union-attr]


def test_load_replaces_the_list_and_omitting_it_means_none(tmp_path: Path, roots: tuple[Path, Path, Path]) -> None:
    cwd, one, two = roots
    sid = _new(_server(tmp_path, takes=True), cwd, [str(one)])
    again = _server(tmp_path, takes=True)  # a fresh bridge on the same store
    asyncio.run(again.call("session/resume", {"sessionId": sid, "cwd": str(cwd), "additionalDirectories": [str(two)]}))
    assert again.sessions[sid].record.additional_directories == [str(two)]
    third = _server(tmp_path, takes=True)
    asyncio.run(third.call("session/load", {"sessionId": sid, "cwd": str(cwd)}))
    assert third.sessions[sid].record.additional_directories == []
    asyncio.run(third.call("session/load", {"sessionId": sid, "cwd": str(cwd), "additionalDirectories": [str(one)]}))
    assert third.sessions[sid].record.additional_directories == [str(one)]  # loaded again while open: replaced too


def test_an_agent_that_cannot_take_them_is_named_in_the_refusal(tmp_path: Path, roots: tuple[Path, Path, Path]) -> None:
    cwd, one, _ = roots
    server = _server(tmp_path, takes=False)
    with pytest.raises(RpcError) as caught:
        _new(server, cwd, [str(one)])
    assert caught.value.code == INVALID_PARAMS and server.adapter.display_name in caught.value.message
    assert _new(server, cwd, [])  # none asked for: served
    result = asyncio.run(server.call("initialize", {"protocolVersion": 1}))
    assert "additionalDirectories" not in result["agentCapabilities"]["sessionCapabilities"]  # never advertised


def test_advertised_where_the_agent_takes_them(tmp_path: Path) -> None:
    result = asyncio.run(_server(tmp_path, takes=True).call("initialize", {"protocolVersion": 1}))
    assert result["agentCapabilities"]["sessionCapabilities"]["additionalDirectories"] == {}


@given(root=st.text(max_size=30))
def test_only_absolute_existing_directories_pass(tmp_path_factory: pytest.TempPathFactory, root: str) -> None:
    """Whatever string an attacker names (relative, NUL, a file, a missing path, ..), it is refused with -32602
    unless it is an absolute path of an existing directory; nothing else reaches the agent's command line."""
    tmp = tmp_path_factory.mktemp("roots")
    cwd = tmp / "project"
    cwd.mkdir()
    server = _server(tmp, takes=True)
    try:
        sid = _new(server, cwd, [root])
    except RpcError as exc:
        assert exc.code == INVALID_PARAMS
        assert not ("\0" not in root and os.path.isabs(root) and os.path.isdir(root))
        return
    assert os.path.isabs(root) and os.path.isdir(root)
    assert server.sessions[sid].record.additional_directories == [root]


@pytest.mark.parametrize("agent, flag", [("claude", "--add-dir"), ("gemini", "--include-directories")])
def test_claude_and_gemini_flags(agent: str, flag: str) -> None:
    assert get_adapter(agent).extra_directory_args(["/a", "/b"]) == [flag, "/a", flag, "/b"]


def test_gemini_refuses_a_root_its_flag_would_split() -> None:
    assert get_adapter("gemini").extra_directory_args(["/lib, shared"]) is None

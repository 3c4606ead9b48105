"""Every mode offers a sign-in in ``initialize`` (the ACP registry lists only agents that do), and ``authenticate``
accepts exactly the methods offered.

An agent with a login command of its own offers that login; one without (omp, openclaw, the demo), and the
every-agent mode when none of the agents found has one, offer ``acp-mux doctor [NAME]`` in a terminal: how the
agent signs in, and whether it is installed and signed in here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.adapters.registry import ENTRIES
from acp_mux.adapters.base import get_adapter
from acp_mux.server.sessions.agent_choice import AgentChoices
from acp_mux.server.sessions.bridge import AcpServer
from acp_mux.launcher.early_init import CHECKUP_METHOD
from acp_mux.server.sessions.live_session import BridgeConfig
from acp_mux.server.wire.rpc import RpcError

SUPPORTED = sorted(name for name in ENTRIES if ENTRIES[name].supported)
CLIENTS = [{}, {"auth": {"terminal": True}}, {"_meta": {"terminal-auth": True}}]


def server_for(agent: str, client: dict[str, Any], choices: tuple[str, ...] | None = None) -> AcpServer:
    """Just what initialize and authenticate read: no connection, no sessions."""
    server = AcpServer.__new__(AcpServer)
    server.adapter, server.client_capabilities = get_adapter(agent), client
    server.choices = AgentChoices(choices, Path("/nonexistent")) if choices is not None else None
    server.config = BridgeConfig(agent=agent)
    return server


def offered(server: AcpServer, client: dict[str, Any]) -> list[dict[str, Any]]:
    params = {"protocolVersion": 1, "clientCapabilities": client}
    methods: list[dict[str, Any]] = asyncio.run(server.call("initialize", params))["authMethods"]
    return methods


def accepted(server: AcpServer, method_id: str) -> bool:
    try:
        asyncio.run(server.call("authenticate", {"methodId": method_id}))
    except RpcError:
        return False
    return True


def _terminal_args(method: dict[str, Any]) -> list[str]:
    if method.get("type") == "terminal":
        return list(method["args"])
    return list(method["_meta"]["terminal-auth"]["args"])


@pytest.mark.parametrize("agent", SUPPORTED)
@pytest.mark.parametrize("client", CLIENTS)
def test_every_agent_offers_a_sign_in_run_in_a_terminal(agent, client):
    server = server_for(agent, client)
    (method,) = offered(server, client)
    args = _terminal_args(method)
    if ENTRIES[agent].login_args:
        assert method["id"] == f"{agent}-login" and args[-3:] == ["--agent", agent, "--login"]
    else:
        assert method["id"] == CHECKUP_METHOD and args[-2:] == ["doctor", agent]
        assert ENTRIES[agent].auth_hint.split(".")[0] in method["description"]  # how it signs in, said up front
    assert accepted(server, method["id"])


@settings(max_examples=40, deadline=None)
@given(
    found=st.lists(st.sampled_from(SUPPORTED), unique=True, max_size=4),
    client=st.sampled_from(CLIENTS),
    asked=st.sampled_from([CHECKUP_METHOD, *(f"{n}-login" for n in SUPPORTED), "nosuch", ""]),
)
def test_the_every_agent_mode_accepts_exactly_what_it_offered(found, client, asked):
    """Whatever agents were found: a sign-in is offered, and authenticate takes an id only when it was offered."""
    server = server_for(found[0] if found else "demo", client, tuple(found))
    methods = offered(server, client)
    assert methods
    ids = {m["id"] for m in methods}
    assert accepted(server, asked) == (asked in ids)
    if not any(ENTRIES[n].login_args for n in found):
        assert ids == {CHECKUP_METHOD} and _terminal_args(methods[0])[-1] == "doctor"

"""Fault class (issue 39, round 3, class 3): the launcher answers exactly as the server would.

The launcher answers ``initialize`` and the first ``session/new`` from the standard library, before the bridge is
imported (:mod:`acp_mux.launcher.early_init`, :mod:`acp_mux.launcher.early_session`). Whatever it answers must be the
server's answer to the same line: the same result (but for a new session's id), never a result where the server
answers an error. hypothesis generates the lines — protocol versions in and out of uint16, of other JSON types,
``_meta`` and ``clientCapabilities`` of every shape, MCP servers with fields missing or mistyped, a stray field
under its Python name, ids and envelopes of every kind — and each goes down both paths: the launcher on real pipes,
the server through its real JSON-RPC connection and typed edge. The launcher may leave any line to the server (it
then writes nothing); what it does write is compared, answer by answer.

ACP's version rule is held on both paths too: a client asking for a version the agent does not support gets the
latest it supports (1), never an echo of an unsupported one (0, say).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from acp_mux.adapters.base import get_adapter
from acp_mux.launcher import early_init, early_session, early_shapes
from acp_mux.server.wire import editor_edge
from acp_mux.server.sessions.bridge import AcpServer
from acp_mux.server.sessions.live_session import BridgeConfig, LiveSession
from acp_mux.server.wire.rpc import Connection
from acp_mux.server.records.store import SessionStore
from tests.server.test_early_init import early_answer

AGENT = "demo"
MISSING = object()  # a field left out


def mostly(fine: st.SearchStrategy[Any], other: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``fine`` three times in four, ``other`` else: enough requests the launcher answers to compare answers."""
    return st.integers(0, 3).flatmap(lambda pick: fine if pick < 3 else other)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
# Keys the models would also read as fields, under their Python names, and others they do not know
stray_keys = mostly(
    st.dictionaries(st.sampled_from(["extra", "cwd_", "x-y"]), json_values, max_size=1),
    st.dictionaries(
        st.sampled_from(["protocol_version", "client_capabilities", "field_meta", "mcp_servers", "clientinfo"]),
        json_values,
        max_size=2,
    ),
)
metas = mostly(
    st.one_of(st.just(MISSING), st.none(), st.dictionaries(st.text(max_size=4), json_values, max_size=2)), json_values
)
flags = mostly(st.one_of(st.just(MISSING), st.none(), st.booleans()), json_values)
small_caps = mostly(
    st.one_of(
        st.just(MISSING), st.none(), st.builds(lambda meta: {"_meta": meta} if meta is not MISSING else {}, metas)
    ),
    json_values,
)


def fields(**parts: Any) -> st.SearchStrategy[dict[str, Any]]:
    """An object whose fields are drawn from ``parts``, each left out when MISSING is drawn."""
    return st.fixed_dictionaries(parts).map(lambda d: {k: v for k, v in d.items() if v is not MISSING})


capabilities = st.one_of(
    st.just(MISSING),
    st.none(),
    json_values,
    fields(
        fs=st.one_of(small_caps, fields(readTextFile=flags, writeTextFile=flags, _meta=metas)),
        terminal=flags,
        auth=st.one_of(small_caps, fields(terminal=flags, _meta=metas)),
        _meta=metas,
    ),
    fields(
        fs=st.one_of(small_caps, fields(readTextFile=flags, writeTextFile=flags, _meta=metas)),
        terminal=flags,
        auth=st.one_of(small_caps, fields(terminal=flags, _meta=metas)),
        session=st.one_of(small_caps, fields(configOptions=small_caps, _meta=metas)),
        elicitation=st.one_of(small_caps, fields(form=small_caps, url=small_caps, _meta=metas)),
        _meta=metas,
    ),
)
versions = mostly(
    st.one_of(st.just(1), st.integers(0, 65535), st.sampled_from([0, 2, 65535])),
    st.one_of(
        st.just(MISSING), st.sampled_from([-1, 65536, 2**63, 1.0, True, "1"]), st.integers(-(2**70), 2**70), json_values
    ),
)
client_info = mostly(
    st.one_of(st.just(MISSING), st.none(), fields(name=st.text(max_size=5), version=st.text(max_size=5))),
    st.one_of(json_values, fields(name=st.one_of(st.text(max_size=5), json_values), version=flags)),
)
initialize_params = st.builds(
    lambda version, caps, info, meta, stray: {
        **stray,
        **{
            k: v
            for k, v in {
                "protocolVersion": version,
                "clientCapabilities": caps,
                "clientInfo": info,
                "_meta": meta,
            }.items()
            if v is not MISSING
        },
    },
    versions,
    capabilities,
    client_info,
    metas,
    stray_keys,
)
ids = mostly(st.one_of(st.integers(-5, 2**64), st.text(max_size=4)), st.sampled_from([None, True, 1.5, [1], MISSING]))
envelopes = mostly(st.just({}), st.fixed_dictionaries({"jsonrpc": st.sampled_from(["1.0", 2, None])}))


def request_line(method: str, params: Any, request_id: Any, envelope: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", **envelope, "method": method, "params": params}
    if request_id is not MISSING:
        message["id"] = request_id
    return json.dumps(message).encode() + b"\n"


# ── the server's answer to a line ────────────────────────────────────────────────────────────────────────────────
class Captured(Connection):
    """The server's real connection (parser, classification, dispatch), its answers kept instead of written."""

    def __init__(self) -> None:
        super().__init__(-1, -1)
        self.sent: list[Any] = []

    def _send(self, message: Any) -> None:
        self.sent.append(json.loads(json.dumps(message)))


class Server(AcpServer):
    """The server as it answers; a new session's agent is not started (the answer is what is compared)."""

    async def _announce(self, session: LiveSession) -> None:
        return None

    async def _retain_once(self) -> None:
        return None


def server_answers(state: Path, *lines: bytes) -> list[Any]:
    async def run() -> list[Any]:
        conn = Captured()
        Server(conn, get_adapter(AGENT), BridgeConfig(agent=AGENT), SessionStore(state))
        for line in lines:
            conn._dispatch_line(line.rstrip(b"\n"))
            while conn._tasks:
                await asyncio.wait(list(conn._tasks))
        return conn.sent

    return asyncio.run(run())


def launcher_answers(*lines: bytes) -> list[Any]:
    early, written = early_answer(["--agent", AGENT], b"".join(lines))
    return [json.loads(line) for line in written.splitlines()]


def without_session_id(answer: dict[str, Any]) -> dict[str, Any]:
    result = dict(answer["result"])
    assert isinstance(result.pop("sessionId"), str)
    return {**answer, "result": result}


# ── initialize ───────────────────────────────────────────────────────────────────────────────────────────────────
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@PROPERTY
@given(params=initialize_params, request_id=ids, envelope=envelopes)
@example(params={"protocolVersion": -1}, request_id=1, envelope={})
@example(params={"protocolVersion": 70000}, request_id=1, envelope={})
@example(params={"protocolVersion": 1, "_meta": "x"}, request_id=1, envelope={})
@example(params={"protocolVersion": 0}, request_id=1, envelope={})
def test_what_the_launcher_answers_to_initialize_is_the_servers_answer(
    params: dict[str, Any], request_id: Any, envelope: dict[str, Any], tmp_path: Path
) -> None:
    line = request_line("initialize", params, request_id, envelope)
    launcher = launcher_answers(line)
    server = server_answers(tmp_path / "state", line)
    if launcher:
        assert launcher == server, f"the launcher answered {launcher}, the server {server}"
    for answer in server:
        if isinstance(answer, dict) and "result" in answer:
            assert answer["result"]["protocolVersion"] == 1, "ACP: the latest version served, when not the one asked"


# ── session/new after the launcher's initialize ─────────────────────────────────────────────────────────────────
def mcp_servers(folder: str) -> st.SearchStrategy[Any]:
    text = mostly(st.text(min_size=1, max_size=5), json_values)
    pair = mostly(fields(name=text, value=text), st.one_of(json_values, fields(name=json_values, value=flags)))
    stdio = fields(
        name=mostly(st.just("docs"), st.one_of(st.just(MISSING), json_values)),
        command=mostly(st.just("/bin/true"), st.one_of(st.just(MISSING), st.just(""), json_values)),
        args=mostly(st.lists(text, max_size=2), st.one_of(st.just(MISSING), json_values)),
        env=mostly(st.lists(pair, max_size=2), st.one_of(st.just(MISSING), json_values)),
        _meta=metas,
    )
    remote = fields(
        type=mostly(st.sampled_from(["http", "sse"]), st.one_of(st.just(MISSING), text)),
        name=mostly(st.just("web"), st.one_of(st.just(MISSING), json_values)),
        url=mostly(st.just("https://example.invalid/mcp"), st.one_of(st.just(MISSING), st.just(""), json_values)),
        headers=mostly(st.lists(pair, max_size=2), st.one_of(st.just(MISSING), json_values)),
        command=mostly(st.just(MISSING), text),
        _meta=metas,
    )
    return mostly(
        st.one_of(st.just(MISSING), st.just([]), st.lists(st.one_of(stdio, remote), max_size=2)),
        st.one_of(st.none(), json_values, st.lists(json_values, min_size=1, max_size=2)),
    )


@st.composite
def session_params(draw: st.DrawFn, folder: str) -> dict[str, Any]:
    parts = {
        "cwd": draw(mostly(st.just(folder), st.one_of(st.sampled_from(["relative", "/no/such/dir"]), json_values))),
        "mcpServers": draw(mcp_servers(folder)),
        "additionalDirectories": draw(
            mostly(st.one_of(st.just(MISSING), st.none(), st.just([])), st.one_of(st.just([folder]), json_values))
        ),
        "_meta": draw(metas),
    }
    return {**draw(stray_keys), **{k: v for k, v in parts.items() if v is not MISSING}}


INIT_LINE = request_line("initialize", {"protocolVersion": 1}, 0, {})


@PROPERTY
@given(data=st.data(), request_id=ids, envelope=envelopes)
def test_what_the_launcher_answers_to_session_new_is_the_servers_answer(
    data: st.DataObject, request_id: Any, envelope: dict[str, Any], tmp_path: Path
) -> None:
    params = data.draw(session_params(str(tmp_path)))
    line = request_line("session/new", params, request_id, envelope)
    launcher = launcher_answers(INIT_LINE, line)
    assert launcher[:1] and launcher[0]["id"] == 0  # the initialize, answered
    if len(launcher) == 1:
        return  # left to the server
    [server] = server_answers(tmp_path / "state", line)
    assert "result" in server, f"the launcher answered {launcher[1]}, the server {server}"
    assert without_session_id(launcher[1]) == without_session_id(server)


@pytest.mark.parametrize(
    "params",
    [
        {"cwd": "CWD", "mcpServers": [{"name": "docs", "command": "/bin/true"}]},  # no args, no env
        {"cwd": "CWD", "mcpServers": [{"name": "docs", "url": "https://x.invalid", "type": "http"}]},  # no headers
        {"cwd": "CWD", "mcpServers": [], "_meta": "x"},
        {"cwd": "CWD", "mcpServers": [], "additionalDirectories": 0},
    ],
)
def test_session_new_the_server_refuses_is_left_to_it(params: dict[str, Any], tmp_path: Path) -> None:
    params = {k: (str(tmp_path) if v == "CWD" else v) for k, v in params.items()}
    line = request_line("session/new", params, 2, {})
    assert [a["id"] for a in launcher_answers(INIT_LINE, line)] == [0]
    [server] = server_answers(tmp_path / "state", line)
    assert server["error"]["code"] == -32602


# ── the launcher's snapshot of the models ────────────────────────────────────────────────────────────────────────
def test_the_shapes_snapshot_is_the_models():
    """A stale snapshot would let the launcher answer what the models now refuse (or refuse what they take)."""
    with open(early_shapes.SHAPES_FILE, encoding="utf-8") as fh:
        assert json.load(fh) == early_shapes.current_shapes(), "run `python -m acp_mux.launcher.early_shapes`"


def test_what_an_omitted_field_means_is_the_same_on_both_paths():
    assert early_session.OMITTED_MEANS == editor_edge.OMITTED_MEANS["session/new"]


def test_a_version_not_served_is_answered_with_the_latest_served():
    assert [early_init.negotiated_version(v) for v in (0, 1, 2, 65535)] == [1, 1, 1, 1]

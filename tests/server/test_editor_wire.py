"""Issue 23, the editor side: every message the editor sends is read by the v1 model at the edge, a shape error is a
-32602 naming the method and the field (never a traceback, never a stall), and initialize advertises exactly what is
served.

The unit tests call the edge itself; the property tests throw generated JSON at every method of a real bridge
(``python -m acp_mux --agent demo``, spoken to line by line), where an answer that never comes fails the test.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.adapters.base import get_adapter
from acp_mux.protocol import v1, wire
from acp_mux.server.sessions.bridge import AcpServer
from acp_mux.launcher.early_init import SESSION_CAPABILITIES
from acp_mux.server.wire.editor_edge import asking, parse_request
from acp_mux.server.sessions.live_session import BridgeConfig
from acp_mux.server.wire.rpc import INVALID_PARAMS, RpcError
from tests.faults.raw import RawBridge

PYTHON_LEAKS = ("Traceback", "object has no attribute", "KeyError", "TypeError", "AttributeError", "NoneType")
EDITOR_METHODS = sorted(wire.methods("agent"))  # every request and notification the schema lets an editor send
# What every ACP agent serves without advertising it (the schema's baseline), and session/load (``loadSession``).
BASELINE = {
    "initialize",
    "authenticate",
    "session/new",
    "session/prompt",
    "session/set_mode",
    "session/set_config_option",
}


def _server() -> AcpServer:
    """A server with a connection that is never served: enough for what initialize and the method table say."""
    from acp_mux.server.wire.rpc import Connection
    from acp_mux.server.records.store import SessionStore

    return AcpServer(
        Connection(-1, -1), get_adapter("demo"), BridgeConfig(agent="demo"), SessionStore.__new__(SessionStore)
    )


# ── the edge itself ────────────────────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize(
    "method, params, field",
    [
        ("initialize", {"protocolVersion": "1"}, "protocolVersion"),
        ("initialize", {"protocolVersion": 1.5}, "protocolVersion"),
        ("session/prompt", {"sessionId": "s", "prompt": [{"type": "video"}]}, "prompt.0"),
        ("session/prompt", {"sessionId": "s"}, "prompt"),
        ("session/new", {"cwd": "/tmp", "additionalDirectories": [3]}, "additionalDirectories.0"),
        ("session/new", {"cwd": "/tmp", "mcpServers": [{"name": "x", "command": "y", "env": {"K": "V"}}]}, "env"),
        ("session/set_config_option", {"sessionId": "s", "configId": "x", "value": 3}, "value"),
        ("session/cancel", {"sessionId": 7}, "sessionId"),
        ("$/cancel_request", {"requestId": [1]}, "requestId"),
    ],
)
def test_a_shape_error_names_the_method_and_the_field(method: str, params: dict[str, Any], field: str) -> None:
    with pytest.raises(RpcError) as caught:
        parse_request(method, params)
    assert caught.value.code == INVALID_PARAMS
    message = caught.value.message
    assert message.startswith(f"Invalid params: {method}: ") and field in message, message


def test_an_omitted_mcp_servers_means_none_as_on_the_launchers_path() -> None:
    request = parse_request("session/new", {"cwd": "/tmp"})
    assert isinstance(request, v1.NewSessionRequest) and request.mcp_servers == []


@pytest.mark.parametrize("client_info", [{"name": "zed"}, {"name": 7, "version": "1"}, "zed", None, {"version": "1.0"}])
def test_a_client_info_that_does_not_fit_is_left_out_not_the_handshake(client_info: Any) -> None:
    """The launcher answers initialize whatever clientInfo holds; the bridge's own path agrees (it is for logs)."""
    request = parse_request("initialize", {"protocolVersion": 1, "clientInfo": client_info})
    assert isinstance(request, v1.InitializeRequest) and request.protocol_version == 1
    with pytest.raises(RpcError) as refused:  # anything else wrong is still refused, naming it
        parse_request("initialize", {"protocolVersion": "1", "clientInfo": client_info})
    assert refused.value.code == INVALID_PARAMS and "protocolVersion" in refused.value.message


def test_what_the_edge_reads_is_kept_whole() -> None:
    """``_meta`` and fields this schema does not know reach the handler as the editor sent them."""
    params = {"sessionId": "s", "prompt": [{"type": "text", "text": "hi", "x-new": 1}], "_meta": {"k": [1]}, "z": 2}
    request = parse_request("session/prompt", params)
    assert wire.dump(request) == params


@given(value=st.one_of(st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(), st.none()))
def test_a_json_scalar_never_passes_for_an_identifier(value: Any) -> None:
    """An attacker's type confusion: no scalar other than a string is read as a session id, or as a mode."""
    params = {"sessionId": value, "modeId": "m"}
    if isinstance(value, str):
        assert parse_request("session/set_mode", params).session_id == value  # type: ignore[attr-defined]
    else:
        with pytest.raises(RpcError):
            parse_request("session/set_mode", params)


# ── the editor's answers to our requests ───────────────────────────────────────────────────────────────────────
def _ask(answer: Any, method: str = "session/request_permission") -> Any:
    async def request(_method: str, _params: dict[str, Any]) -> Any:
        return answer

    return asyncio.run(asking(request)(method, {}))


def test_a_fitting_answer_reaches_the_session_as_sent() -> None:
    sent = {"outcome": {"outcome": "selected", "optionId": "allow", "_meta": {"a": 1}}, "extra": True}
    assert _ask(sent) == sent


@pytest.mark.parametrize(
    "answer",
    [
        {"outcome": "allow"},
        {"outcome": {"outcome": "selected"}},
        [],
        "yes",
        {"outcome": {"outcome": "selected", "optionId": 3}},
    ],
)
def test_a_malformed_permission_answer_is_a_typed_failure(answer: Any) -> None:
    """The session reads it as a failed request (it then denies), never as an approval."""
    with pytest.raises(RpcError) as caught:
        _ask(answer)
    assert "session/request_permission" in caught.value.message


def test_a_void_answer_of_null_is_the_empty_object() -> None:
    assert _ask(None, "fs/write_text_file") == {}


# ── advertised versus served ───────────────────────────────────────────────────────────────────────────────────
def test_every_advertised_session_method_is_served_and_every_served_one_advertised() -> None:
    server = _server()
    result = asyncio.run(server.call("initialize", {"protocolVersion": 1}))
    capabilities = result["agentCapabilities"]
    advertised = {f"session/{name}" for name in capabilities["sessionCapabilities"]}
    advertised |= {"session/load"} if capabilities["loadSession"] else set()
    assert "auth" not in capabilities  # the demo agent has no sign-out: logout refused (test below), not advertised
    assert set(SESSION_CAPABILITIES) <= set(capabilities["sessionCapabilities"])
    assert advertised <= set(server.HANDLERS)
    assert set(server.HANDLERS) - BASELINE - {"logout"} == advertised
    assert set(server.HANDLERS) | set(server.NOTIFICATIONS) <= set(EDITOR_METHODS)


def test_the_initialize_answer_fits_the_schema() -> None:
    server = _server()
    result = asyncio.run(
        server.call("initialize", {"protocolVersion": 1, "clientCapabilities": {"auth": {"terminal": True}}})
    )
    assert wire.dump(wire.parse_result("initialize", result)) == result  # type: ignore[arg-type]


# ── logout ─────────────────────────────────────────────────────────────────────────────────────────────────────
def test_logout_where_the_agent_has_no_sign_out_is_refused_in_words() -> None:
    with pytest.raises(RpcError) as caught:
        asyncio.run(_server().call("logout", {}))
    assert caught.value.code == -32601 and "keeps no sign-in of its own" in caught.value.message


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "demo"])
def test_logout_is_advertised_exactly_where_it_is_served(agent: str) -> None:
    from acp_mux.launcher.early_init import caps_of, initialize_result, takes_extra_directories

    adapter = get_adapter(agent)
    caps = caps_of(adapter.capabilities, takes_extra_directories(adapter), bool(adapter.logout_args))
    result = initialize_result(1, {}, caps, [], "t", ["acp-mux"], "0", None)
    assert ("logout" in result["agentCapabilities"].get("auth", {})) == (agent in ("claude", "codex"))
    assert wire.parse_result("initialize", result) is not None


# ── a real bridge: generated JSON at every method ──────────────────────────────────────────────────────────────
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_IDS = itertools.count()
_FIELDS = [
    "sessionId",
    "cwd",
    "mcpServers",
    "prompt",
    "modeId",
    "configId",
    "value",
    "type",
    "cursor",
    "methodId",
    "protocolVersion",
    "clientCapabilities",
    "additionalDirectories",
    "requestId",
    "_meta",
]


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawBridge]:
    bridge = RawBridge(tmp_path_factory.mktemp("editor-wire"))
    bridge.initialize()
    yield bridge
    assert bridge.close() == 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    method=st.sampled_from(EDITOR_METHODS), params=st.one_of(_json, st.dictionaries(st.sampled_from(_FIELDS), _json))
)
def test_any_json_at_any_method_is_answered_and_the_connection_goes_on(
    raw: RawBridge, method: str, params: Any
) -> None:
    """Every request gets a result or a readable error (never -32603, never a Python message); notifications get
    nothing; the bridge serves the next message either way."""
    if method in wire.methods("agent", "result"):
        message = {"jsonrpc": "2.0", "id": f"h-{next(_IDS)}", "method": method, "params": params}
        answer = raw.call_raw(message, timeout=10)
        assert ("result" in answer) != ("error" in answer), answer
        if "error" in answer:
            assert answer["error"]["code"] != -32603, answer
            assert not any(leak in answer["error"]["message"] for leak in PYTHON_LEAKS), answer
    else:
        raw.notify(method, params)
    assert raw.serves()


# ── $/cancel_request ───────────────────────────────────────────────────────────────────────────────────────────
async def _serve_pipes(lines: list[dict[str, Any]], setup: Any, wait: float = 0.3) -> list[dict[str, Any]]:
    """A Connection on pipes: ``lines`` written to it (one message each, ``{"sleep": s}`` pauses), what it answered."""
    import json
    import os

    from acp_mux.server.wire.rpc import Connection

    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    conn = Connection(in_r, out_w)
    setup(conn)
    served = asyncio.ensure_future(conn.serve())
    for line in lines:
        if "sleep" in line:
            await asyncio.sleep(line["sleep"])
        else:
            os.write(in_w, json.dumps(line).encode() + b"\n")
    await asyncio.sleep(wait)
    os.close(in_w)
    await served
    await conn.cancel_handlers()
    os.close(out_w)
    with os.fdopen(out_r, "rb") as fh:
        return [json.loads(line) for line in fh.read().splitlines()]


@pytest.mark.asyncio
@pytest.mark.parametrize("request_id", [7, "seven"])
async def test_cancel_request_cancels_that_handler_and_answers_it_cancelled(request_id: Any) -> None:
    started: list[str] = []

    async def slow(params: dict[str, Any]) -> dict[str, Any]:
        started.append("slow")
        await asyncio.sleep(30)
        return {}

    async def quick(params: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True}

    def setup(conn: Any) -> None:
        conn.method("slow", slow)
        conn.method("quick", quick)

    answers = await _serve_pipes(
        [
            {"jsonrpc": "2.0", "id": request_id, "method": "slow", "params": {}},
            {"jsonrpc": "2.0", "id": 8, "method": "quick", "params": {}},
            {"sleep": 0.1},
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 8}},  # finished: ignored
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": str(request_id) + "x"}},  # unknown
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": request_id}},
            {"sleep": 0.1},
            {"jsonrpc": "2.0", "id": 9, "method": "quick", "params": {}},
        ],
        setup,
    )
    by_id = {answer["id"]: answer for answer in answers}
    assert started == ["slow"]
    assert by_id[request_id]["error"]["code"] == -32800
    assert by_id[8]["result"] == {"ok": True} and by_id[9]["result"] == {"ok": True}  # the connection goes on
    assert len(answers) == 3


@pytest.mark.asyncio
async def test_the_same_id_of_another_json_type_is_not_that_request() -> None:
    """``"1"`` does not cancel request ``1``: JSON-RPC ids compare with their type."""

    async def slow(params: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0.5)
        return {"done": True}

    answers = await _serve_pipes(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "slow", "params": {}},
            {"sleep": 0.05},
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "1"}},
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": True}},
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": [1]}},
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": []},
        ],
        lambda conn: conn.method("slow", slow),
        wait=0.8,
    )
    assert answers == [{"jsonrpc": "2.0", "id": 1, "result": {"done": True}}]


@pytest.mark.asyncio
async def test_cancel_request_of_a_running_prompt_ends_the_turn_cancelled(tmp_path) -> None:
    """Through the SDK client against the bundled scripted agent: ``$/cancel_request`` naming the prompt's request
    id ends the turn exactly as session/cancel does (the prompt answers stopReason cancelled, the next one works)."""
    import time

    import acp

    from tests.server.client import RecordingClient, bridge

    cwd = tmp_path / "project"
    cwd.mkdir()
    client = RecordingClient()
    async with bridge(client, "--agent", "demo", cwd=str(cwd), state_dir=str(tmp_path / "state")) as (conn, _):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=str(cwd), mcp_servers=[])).session_id
        prompt_id = conn._conn._next_request_id  # the id the SDK gives the next request
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("slow please")]))
        while "word5" not in client.text():
            await asyncio.sleep(0.02)
        started = time.monotonic()
        await conn._conn.send_notification("$/cancel_request", {"requestId": prompt_id})
        result = await asyncio.wait_for(turn, 5)
        assert result.stop_reason == "cancelled"
        assert time.monotonic() - started < 5 and "word399" not in client.text()
        again = await conn.prompt(session_id=sid, prompt=[acp.text_block("hello there")])
        assert again.stop_reason == "end_turn" and "You said: hello there" in client.text()


def test_every_advertised_method_answers_on_a_real_bridge(raw: RawBridge) -> None:
    """What initialize advertises is answered by the running bridge (a result or a reasoned error, never -32601)."""
    capabilities = raw.result("initialize", {"protocolVersion": 1})["agentCapabilities"]
    advertised = [f"session/{name}" for name in capabilities["sessionCapabilities"]]
    advertised += ["session/load"] if capabilities["loadSession"] else []
    advertised += ["logout"] if "logout" in (capabilities.get("auth") or {}) else []
    assert {"session/list", "session/delete", "session/resume", "session/close", "session/load"} <= set(advertised)
    for method in advertised:
        answer = raw.call(method, {"sessionId": "01NOSUCHSESSION", "cwd": str(raw.cwd), "mcpServers": []})
        assert "result" in answer or answer["error"]["code"] != -32601, (method, answer)

"""Fault class 1: any line a client sends gets the JSON-RPC answer it deserves, and the bridge keeps serving.

Driven through the real stdio of ``acp-mux --agent demo`` with a raw client (tests/faults/raw.py checks that every
line the bridge writes is strict, valid JSON-RPC 2.0).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.faults.raw import RawBridge

PYTHON_LEAKS = (
    "Traceback",
    "object has no attribute",
    "object is not",
    "unhashable",
    "KeyError",
    "TypeError",
    "AttributeError",
    "NoneType",
    "object of type",
)


@pytest.fixture
def bridge(tmp_path: Path) -> Iterator[RawBridge]:
    raw = RawBridge(tmp_path)
    yield raw
    assert raw.close() == 0


def error_of(response: dict[str, Any]) -> dict[str, Any]:
    assert "error" in response, response
    message = response["error"]["message"]
    assert not any(leak in message for leak in PYTHON_LEAKS), message
    return response["error"]


# ── valid JSON that used to stop the bridge ────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("odd_id", [[1], {"a": 1}, True, [], {}, [[[]]]])
def test_a_response_with_an_unusable_id_is_dropped_and_the_bridge_serves(bridge: RawBridge, odd_id: Any) -> None:
    bridge.write({"jsonrpc": "2.0", "id": odd_id, "result": {}})
    bridge.write({"jsonrpc": "2.0", "id": odd_id, "error": {"code": 1, "message": "x"}})
    assert bridge.serves()


@pytest.mark.parametrize("depth", [500, 5_000, 200_000])
def test_nesting_too_deep_is_a_parse_error_not_an_exit(bridge: RawBridge, depth: int) -> None:
    for opener, closer in (("[", "]"), ('{"a":', "}")):
        bridge.send_bytes((opener * depth + "1" + closer * depth).encode())
    deep_request = '{"jsonrpc":"2.0","id":"deep","method":"initialize","params":' + "[" * depth + "]" * depth + "}"
    bridge.send_bytes(deep_request.encode())
    assert bridge.serves()
    answers = [m for m in bridge.lines if isinstance(m, dict) and "error" in m and not str(m["id"]).startswith("t-")]
    assert answers, "a line too deep to parse must still be answered"
    assert all(m["error"]["code"] in (-32700, -32600, -32602) for m in answers)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e999"])
def test_non_finite_numbers_are_refused_never_echoed(bridge: RawBridge, literal: str) -> None:
    bridge.send_bytes(
        f'{{"jsonrpc":"2.0","id":{literal},"method":"initialize","params":{{"protocolVersion":1}}}}'.encode()
    )
    answer = bridge.other()
    assert answer["id"] is None and error_of(answer)["code"] == -32700
    assert bridge.serves()


def test_id_without_method_is_an_invalid_request(bridge: RawBridge) -> None:
    answer = bridge.call_raw({"jsonrpc": "2.0", "id": "lonely"})
    assert error_of(answer)["code"] == -32600 and answer["id"] == "lonely"


@pytest.mark.parametrize("version", [None, "1.0", 2, "2"])
def test_jsonrpc_field_is_checked(bridge: RawBridge, version: Any) -> None:
    message: dict[str, Any] = {"id": "v", "method": "initialize", "params": {"protocolVersion": 1}}
    if version is not None:
        message["jsonrpc"] = version
    answer = bridge.call_raw(message)
    assert error_of(answer)["code"] == -32600 and answer["id"] == "v"


def test_batches_are_answered(bridge: RawBridge) -> None:
    bridge.write([])
    empty = bridge.other()
    assert empty["id"] is None and error_of(empty)["code"] == -32600
    bridge.write(
        [
            {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": 1}},
            {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "x"}},
            {"jsonrpc": "2.0", "id": "b", "method": "session/list"},
            5,
        ]
    )
    answer = bridge.other()
    assert isinstance(answer, list)
    assert [(m["id"], m["error"]["code"]) for m in answer] == [(7, -32600), ("b", -32600), (None, -32600)]
    assert bridge.serves()


@pytest.mark.parametrize(
    "method, params, field",
    [
        ("initialize", {"protocolVersion": "1"}, "protocolVersion"),
        ("initialize", {"protocolVersion": 1, "clientCapabilities": []}, "clientCapabilities"),
        ("initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": "yes"}}, "fs"),
        ("initialize", {"protocolVersion": 1, "clientCapabilities": {"_meta": 3}}, "_meta"),
        ("authenticate", {"methodId": ["x"]}, "methodId"),
        ("session/new", {"cwd": 5, "mcpServers": []}, "cwd"),
        ("session/new", {"cwd": "/tmp", "mcpServers": {"a": 1}}, "mcpServers"),
        ("session/new", {"cwd": "/tmp", "mcpServers": [{"name": "x", "command": "y", "env": {"K": "V"}}]}, "env"),
        ("session/new", {"cwd": "/tmp", "mcpServers": [{"name": 3, "command": "y"}]}, "name"),
        ("session/load", {"sessionId": {"a": 1}, "cwd": "/tmp", "mcpServers": []}, "sessionId"),
        ("session/list", {"cwd": 3}, "cwd"),
        ("session/list", {"cursor": 3}, "cursor"),
        ("session/prompt", {"sessionId": ["s"], "prompt": []}, "sessionId"),
        ("session/set_mode", {"sessionId": 1, "modeId": "x"}, "sessionId"),
        ("session/set_config_option", {"sessionId": None, "configId": "mode"}, "sessionId"),
        ("session/close", {"sessionId": 3.5}, "sessionId"),
        ("session/delete", {"sessionId": []}, "sessionId"),
    ],
)
def test_wrong_param_types_are_invalid_params_with_a_readable_message(
    bridge: RawBridge, method: str, params: dict[str, Any], field: str
) -> None:
    error = error_of(bridge.call(method, params))
    assert error["code"] == -32602 and field in error["message"]


def test_prompt_blocks_of_the_wrong_shape_are_invalid_params(bridge: RawBridge) -> None:
    bridge.initialize()
    sid = bridge.new_session()
    for prompt in (
        "hello",
        [1],
        [{"type": "text", "text": {"a": 1}}],
        [{"type": "image", "data": 5}],
        [{"type": "resource", "resource": {"uri": ["x"]}}],
        [],
    ):
        error = error_of(bridge.call("session/prompt", {"sessionId": sid, "prompt": prompt}))
        assert error["code"] == -32602, (prompt, error)
    answer = bridge.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}, 30)
    assert answer["stopReason"] == "end_turn"


def test_params_of_the_wrong_type_are_refused(bridge: RawBridge) -> None:
    assert (
        error_of(bridge.call_raw({"jsonrpc": "2.0", "id": 1, "method": "session/list", "params": [1]}))["code"]
        == -32602
    )
    assert (
        error_of(bridge.call_raw({"jsonrpc": "2.0", "id": 2, "method": "session/list", "params": "x"}))["code"]
        == -32600
    )
    assert error_of(bridge.call_raw({"jsonrpc": "2.0", "id": 3, "method": 5}))["code"] == -32600


def test_invalid_utf8_is_replaced_not_fatal(bridge: RawBridge) -> None:
    bridge.send_bytes(b'{"jsonrpc":"2.0","id":"u","method":"nope\xff\xfe","params":{}}')
    answer = bridge.other()
    assert answer["id"] == "u" and error_of(answer)["code"] == -32601
    assert bridge.serves()


def test_strange_but_valid_ids_are_echoed_exactly(bridge: RawBridge) -> None:
    for request_id in (0, -1, 2**80, 1.5, "", "é\u2028", None):
        answer = bridge.call_raw({"jsonrpc": "2.0", "id": request_id, "method": "nope"})
        assert answer["id"] == request_id and type(answer["id"]) is type(request_id)


# ── generated: whatever the line, the bridge answers what deserves an answer and keeps serving ─────────────────
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(st.characters(codec=None), max_size=20),
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=20,
)
_methods = st.one_of(
    st.sampled_from(
        [
            "initialize",
            "authenticate",
            "session/list",
            "session/load",
            "session/resume",
            "session/close",
            "session/prompt",
            "session/set_mode",
            "session/set_config_option",
            "session/cancel",
            "session/delete",
            "$/cancel_request",
            "nope",
        ]
    ),
    _scalars,
)
_ids = st.one_of(
    st.integers(),
    st.text(max_size=10).map(lambda s: "gen-" + s),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(st.integers(), max_size=2),
)
_messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.one_of(st.just("2.0"), _scalars),
        "id": _ids,
        "method": _methods,
        "params": _json,
        "result": _json,
        "error": _json,
    },
)
_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)


def _deserves_answer(message: dict[str, Any]) -> bool:
    """A request whose id can be echoed: it must get exactly one answer with that id."""
    rid = message.get("id")
    return (
        "method" in message
        and "id" in message
        and not isinstance(rid, (bool, list))
        and message["method"] != "session/prompt"
    )  # prompts need a session: they are answered, but may wait


def test_generated_messages_never_stop_the_bridge(tmp_path: Path) -> None:
    raw = RawBridge(tmp_path)
    raw.initialize()

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(message=st.one_of(_messages, _json), lone=st.lists(_surrogates, max_size=2))
    def check(message: Any, lone: list[str]) -> None:
        if isinstance(message, dict) and lone and isinstance(message.get("params"), dict):
            message["params"]["text"] = "x" + "".join(lone)
        if isinstance(message, dict) and _deserves_answer(message):
            answer = raw.call_raw(message, timeout=10)
            assert ("result" in answer) != ("error" in answer)
            if "error" in answer:
                error_of(answer)
                assert answer["error"]["code"] != -32603, answer
        else:
            raw.send_bytes(json.dumps(message).encode())
        assert raw.serves()

    check()
    assert raw.close() == 0


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=200))
def test_generated_bytes_never_stop_the_bridge(data: bytes, tmp_path_factory: pytest.TempPathFactory) -> None:
    raw = _shared_bridge(tmp_path_factory)
    raw.send_bytes(data.replace(b"\n", b" "))
    assert raw.serves()


_SHARED: dict[str, RawBridge] = {}


def _shared_bridge(factory: pytest.TempPathFactory) -> RawBridge:
    if "bytes" not in _SHARED or _SHARED["bytes"].proc.poll() is not None:
        _SHARED["bytes"] = RawBridge(factory.mktemp("bytes"))
    return _SHARED["bytes"]


def teardown_module() -> None:
    for raw in _SHARED.values():
        assert raw.close() == 0


def test_an_unexpected_stop_says_why_on_stderr_with_a_failing_status(tmp_path: Path) -> None:
    """Never a silent exit 0: an editor shows only "server exited" and our stderr."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from acp_mux.server.wire import rpc\n"
        "async def broken(self):\n"
        "    raise RuntimeError('the reader fell over')\n"
        "rpc.Connection.serve = broken\n"
        "from acp_mux.cli.main import main\n"
        "sys.exit(main(['--agent', 'demo']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=b"",
        capture_output=True,
        timeout=30,
        cwd=tmp_path,
        env={**__import__("os").environ, "ACP_MUX_STATE_DIR": str(tmp_path / "state")},
    )
    assert done.returncode == 1
    assert b"the reader fell over" in done.stderr


def test_a_cursor_of_unicode_digits_is_invalid_params(bridge: RawBridge) -> None:
    """ "¹".isdigit() is True, but int("¹") raises: such a cursor is refused, readably, and the bridge serves."""
    bridge.initialize()
    error = error_of(bridge.call("session/list", {"cursor": "¹"}))
    assert error["code"] == -32602 and "cursor" in error["message"]
    assert bridge.serves()

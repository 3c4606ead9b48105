"""JsonRpcPeer: what it queues, how it classifies incoming messages, and how responses reach their callbacks."""

from __future__ import annotations

import json

import pytest

from acp_mux.core.events.union import DebugEvent
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.adapters.json_rpc_peer import METHOD_NOT_FOUND, JsonRpcPeer, error_message


def _ctx() -> ParseContext:
    return ParseContext(run_id="r", agent="test", cwd="/tmp")


def _sent(ctx: ParseContext) -> list[dict]:
    out = ctx.take_outbox()
    assert all(chunk.endswith("\n") and chunk.count("\n") == 1 for chunk in out), "one JSON object per line"
    return [json.loads(chunk) for chunk in out]


def test_request_ids_increment_and_params_are_optional() -> None:
    ctx, peer = _ctx(), JsonRpcPeer()
    assert peer.request(ctx, "initialize", {"clientInfo": {"name": "x"}}) == 1
    assert peer.request(ctx, "ping") == 2
    assert _sent(ctx) == [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "x"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]
    assert peer.pending_method(1) == "initialize" and peer.is_pending(2)


def test_notify_respond_and_respond_error_shapes() -> None:
    ctx, peer = _ctx(), JsonRpcPeer()
    peer.notify(ctx, "initialized")
    peer.notify(ctx, "session/cancel", {"sessionId": "s"})
    peer.respond(ctx, 0, {"decision": "accept"})
    peer.respond(ctx, "req-7", None)  # ids are echoed as they came, whatever their type
    peer.respond_error(ctx, 3, METHOD_NOT_FOUND, "nope", data={"method": "x"})
    assert _sent(ctx) == [
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}},
        {"jsonrpc": "2.0", "id": 0, "result": {"decision": "accept"}},
        {"jsonrpc": "2.0", "id": "req-7", "result": None},
        {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "nope", "data": {"method": "x"}}},
    ]
    assert not peer.pending  # answering the other side's requests registers nothing of ours


def test_jsonrpc_field_can_be_omitted() -> None:
    ctx, peer = _ctx(), JsonRpcPeer(jsonrpc_field=False)
    peer.request(ctx, "turn/start", {"threadId": "t"})
    assert _sent(ctx) == [{"id": 1, "method": "turn/start", "params": {"threadId": "t"}}]


@pytest.mark.parametrize(
    ("msg", "kind"),
    [
        ({"id": 1, "result": {}}, "response"),
        ({"id": 1, "result": None}, "response"),
        ({"jsonrpc": "2.0", "id": "a", "error": {"code": 1, "message": "x"}}, "response"),
        ({"id": None, "error": {"code": -32700, "message": "parse error"}}, "response"),
        ({"method": "item/commandExecution/requestApproval", "id": 0, "params": {}}, "request"),
        ({"method": "x", "id": "abc"}, "request"),
        ({"method": "turn/started", "params": {}}, "notification"),
        ({"method": "initialized"}, "notification"),
        ({"method": 5}, "invalid"),
        ({"method": ""}, "invalid"),
        ({"method": "x", "id": {"nested": 1}}, "invalid"),
        ({"method": "x", "id": True}, "invalid"),
        ({"id": 1}, "invalid"),
        ({"result": 1}, "invalid"),
        ({}, "invalid"),
        ([], "invalid"),
        ("text", "invalid"),
        (None, "invalid"),
    ],
)
def test_classify(msg, kind) -> None:
    assert JsonRpcPeer.classify(msg) == kind


def test_handle_response_dispatches_result_and_returns_callback_events() -> None:
    ctx, peer = _ctx(), JsonRpcPeer()
    seen = []

    def on_result(result, error):
        seen.append((result, error))
        peer.request(ctx, "follow-up")  # a continuation may queue more requests on the same context
        return [DebugEvent(message="got it")]

    peer.request(ctx, "first", on_result=on_result)
    ctx.take_outbox()
    events = peer.handle_response({"id": 1, "result": {"thread": {"id": "t1"}}})
    assert seen == [({"thread": {"id": "t1"}}, None)]
    assert [e.message for e in events] == ["got it"]
    assert [m["method"] for m in _sent(ctx)] == ["follow-up"]
    assert not peer.is_pending(1) and peer.is_pending(2)
    assert peer.handle_response({"id": 1, "result": {}}) == []  # answered once only


def test_handle_response_passes_errors_and_normalizes_odd_ones() -> None:
    ctx, peer = _ctx(), JsonRpcPeer()
    seen = []
    peer.request(ctx, "a", on_result=lambda r, e: seen.append((r, e)))
    peer.request(ctx, "b", on_result=lambda r, e: seen.append((r, e)))
    peer.handle_response({"id": 1, "error": {"code": -32000, "message": "boom"}})
    peer.handle_response({"id": 2, "error": "just a string"})
    assert seen == [
        (None, {"code": -32000, "message": "boom"}),
        (None, {"code": -32603, "message": "just a string"}),
    ]


def test_handle_response_matches_ids_across_int_and_str_and_ignores_strangers() -> None:
    ctx, peer = _ctx(), JsonRpcPeer()
    seen = []
    peer.request(ctx, "a", on_result=lambda r, e: seen.append(r))
    assert peer.handle_response({"id": "1", "result": "ok"}) == []
    assert seen == ["ok"]
    assert peer.handle_response({"id": 99, "result": 1}) == []
    assert peer.handle_response({"id": None, "error": {"code": -32700, "message": "x"}}) == []
    assert peer.handle_response({"id": True, "result": 1}) == []
    peer.request(ctx, "b")  # no callback: the response is simply consumed
    assert peer.handle_response({"id": 2, "result": 1}) == [] and not peer.pending


def test_fail_pending_resolves_everything_with_an_error() -> None:
    ctx, peer = _ctx(), JsonRpcPeer()
    seen = []
    peer.request(ctx, "a", on_result=lambda r, e: [DebugEvent(message=e["message"])])
    peer.request(ctx, "b", on_result=lambda r, e: seen.append(e["code"]))
    peer.request(ctx, "c")
    events = peer.fail_pending("connection closed")
    assert [e.message for e in events] == ["connection closed"]
    assert seen == [-32603] and not peer.pending


def test_error_message() -> None:
    assert error_message({"code": -32601, "message": "Method not found"}) == "Method not found (-32601)"
    assert error_message({"message": "bad"}) == "bad"
    assert error_message(None) == "request failed"
    assert error_message({}, "fallback") == "fallback"

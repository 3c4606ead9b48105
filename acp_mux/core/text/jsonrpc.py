"""What one decoded JSON-RPC 2.0 message is, and what an invalid one deserves as an answer: one pure function.

Both ends of the bridge read JSON-RPC from a peer they do not control — the editor (``acp_mux.server.wire.rpc``) and
protocol agents (``adapters.json_rpc_peer``: codex app-server, ACP agents). A message of the wrong shape must
never raise where it is read, never be answered with invalid JSON, and never leave the sender waiting when it
can be answered. :func:`classify` decides that once, for both:

* a request (``method`` + ``id``) whose id is usable and whose params are an object (or absent) is a request;
  params of another type make it invalid (-32602 for an array: named params only; -32600 otherwise);
* a notification (``method``, no ``id``) with non-object params is invalid and gets no answer (there is nobody
  to answer);
* a response (``result`` or ``error``, no ``method``) is a response, even with a strange id (it then matches
  nothing and is dropped: answering a response would start a ping-pong);
* ``id`` without ``method``, ``result`` or ``error`` is an invalid request (-32600);
* ids are strings, integers, finite numbers or null; a bool, object or array id is invalid, answered with id null.

``strict`` (the editor side) also requires ``"jsonrpc": "2.0"`` on requests and notifications; codex omits the
field, so the agent side is lenient about it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
# ACP's own code for something named that is not there. acp-mux answers it too for a session whose agent cannot
# start here (its CLI missing or unusable, or an agent this version cannot run): editors show it, while CodeCompanion
# shows no -32603 (an internal error) at all, only "Failed to create session".
RESOURCE_NOT_FOUND = -32002

Kind = Literal["request", "notification", "response", "invalid"]


@dataclass(frozen=True)
class Message:
    """A classified message. For ``invalid`` ones, ``error`` is what to answer (``None``: answer nothing), sent
    with ``id`` (``None`` when the message's own id was unusable)."""

    kind: Kind
    id: Any = None
    method: str | None = None
    params: dict[str, Any] | None = None
    error: tuple[int, str] | None = None


def valid_id(value: Any) -> bool:
    """A JSON-RPC id we can echo back: a string, an integer, a finite number, or null."""
    if value is None or isinstance(value, str):
        return True
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def classify(message: Any, *, strict: bool = True) -> Message:
    if not isinstance(message, dict):
        return Message("invalid", error=(INVALID_REQUEST, "Invalid Request: a message must be a JSON object"))
    has_id = "id" in message
    raw_id = message.get("id")
    usable_id = raw_id if has_id and valid_id(raw_id) else None
    if "method" in message:
        method = message["method"]
        if has_id and not valid_id(raw_id):
            return Message("invalid", error=(INVALID_REQUEST, "Invalid Request: id must be a string, a number or null"))
        answer = has_id  # a notification of the wrong shape has nobody to answer
        if not isinstance(method, str) or not method:
            return Message(
                "invalid",
                usable_id,
                error=(INVALID_REQUEST, "Invalid Request: method must be a non-empty string") if answer else None,
            )
        if strict and message.get("jsonrpc") != "2.0":
            return Message(
                "invalid",
                usable_id,
                method,
                error=(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"') if answer else None,
            )
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            if isinstance(params, list):
                error = (INVALID_PARAMS, f"Invalid params for {method}: params must be an object (named parameters)")
            else:
                error = (INVALID_REQUEST, "Invalid Request: params must be an object")
            return Message("invalid", usable_id, method, error=error if answer else None)
        return Message("request" if has_id else "notification", usable_id, method, params or {})
    if "result" in message or "error" in message:
        if not has_id:
            return Message("invalid")  # a response to no request at all: dropped, never answered
        if not valid_id(raw_id):
            return Message("response", None)  # matches nothing: dropped, never answered
        return Message("response", raw_id)
    if has_id:
        return Message("invalid", usable_id, error=(INVALID_REQUEST, "Invalid Request: a request needs a method"))
    return Message(
        "invalid", error=(INVALID_REQUEST, "Invalid Request: neither a request, a notification nor a response")
    )


def response_error(message: dict[str, Any]) -> tuple[int, str, Any] | None:
    """The ``(code, message, data)`` of an error response, normalized; None for a success.

    An ``error`` that is not an object (or a response with neither a result nor an error object) counts as an
    error: the waiting side must hear "failed" rather than act on a malformed success.
    """
    error = message.get("error")
    if error is None and "result" in message:
        return None
    if not isinstance(error, dict):
        return (INTERNAL_ERROR, "malformed error response", None)
    code = error.get("code")
    code = code if isinstance(code, int) and not isinstance(code, bool) else INTERNAL_ERROR
    text = error.get("message")
    return (code, text if isinstance(text, str) else "error", error.get("data"))

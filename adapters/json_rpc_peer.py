"""A small synchronous JSON-RPC 2.0 peer for protocol agents (codex app-server, pi rpc, an ACP client later).

Why synchronous: adapters never do I/O. The runtime hands each stdout line to ``parse_line`` and writes whatever
the adapter queued on ``ctx.outbox`` afterwards, so a request is "sent" by queueing it and "answered" when its
response line comes back through ``parse_line``. The peer only has to remember which id belongs to which
continuation; the continuation runs inside ``parse_line`` and returns the normalized events that response implies
(e.g. ``session_start`` once ``thread/start`` answers), and may queue follow-up requests on the same context.

The peer is per run, so it is a field of the adapter's per-run state (``PerRun`` in ``base.py``): adapter instances
are shared between runs and must stay stateless.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal

from acp_mux.core.text import jsonrpc
from acp_mux.core.run.parse_context import ParseContext

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "JsonRpcPeer",
    "MessageKind",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "ResultCallback",
    "error_message",
]

MessageKind = Literal["response", "request", "notification", "invalid"]

# result, error → events. Exactly one of the two is not None (a JSON-RPC result may itself be null).
ResultCallback = Callable[[Any, "dict[str, Any] | None"], "Iterable[BaseEvent] | None"]

PARSE_ERROR = jsonrpc.PARSE_ERROR
INVALID_REQUEST = jsonrpc.INVALID_REQUEST
METHOD_NOT_FOUND = jsonrpc.METHOD_NOT_FOUND
INVALID_PARAMS = jsonrpc.INVALID_PARAMS
INTERNAL_ERROR = jsonrpc.INTERNAL_ERROR


_INT_ID = re.compile(r"-?[0-9]+")  # ASCII digits only: "¹".isdigit() is True but int("¹") raises


@dataclass
class _Pending:
    method: str
    on_result: ResultCallback | None


@dataclass
class JsonRpcPeer:
    """Our side of one JSON-RPC connection: outgoing ids, pending callbacks, and message classification.

    ``jsonrpc_field`` controls whether outgoing messages carry ``"jsonrpc": "2.0"``. ACP requires it; codex's
    app-server omits it on the wire but accepts it (verified in the captures), so the default is to send it.
    """

    jsonrpc_field: bool = True
    next_id: int = 1
    pending: dict[Any, _Pending] = field(default_factory=dict)

    # ── outgoing ───────────────────────────────────────────────────────────────────────────────────────────────
    def _envelope(self, **fields: Any) -> dict[str, Any]:
        msg: dict[str, Any] = {"jsonrpc": "2.0"} if self.jsonrpc_field else {}
        msg.update(fields)
        return msg

    def request(
        self,
        ctx: ParseContext,
        method: str,
        params: Any = None,
        on_result: ResultCallback | None = None,
    ) -> int:
        """Queue a request; ``on_result(result, error)`` runs when its response is handled. Returns the id."""
        request_id = self.next_id
        self.next_id += 1
        self.pending[request_id] = _Pending(method, on_result)
        msg = self._envelope(id=request_id, method=method)
        if params is not None:
            msg["params"] = params
        ctx.send(msg)
        return request_id

    def side_request(
        self, ctx: ParseContext, request_id: str, method: str, params: Any, on_result: ResultCallback | None
    ) -> None:
        """A request under a caller's own string id: a side request that must not move the numbering of the
        conversation's own requests (recorded sessions replay by number). The caller keeps the ids unique."""
        self.pending[request_id] = _Pending(method, on_result)
        ctx.send(self._envelope(id=request_id, method=method, params=params))

    def notify(self, ctx: ParseContext, method: str, params: Any = None) -> None:
        msg = self._envelope(method=method)
        if params is not None:
            msg["params"] = params
        ctx.send(msg)

    def respond(self, ctx: ParseContext, request_id: Any, result: Any) -> None:
        """Answer a request the other side sent us (ids are echoed exactly, whatever their type)."""
        ctx.send(self._envelope(id=request_id, result=result))

    def respond_error(self, ctx: ParseContext, request_id: Any, code: int, message: str, data: Any = None) -> None:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        ctx.send(self._envelope(id=request_id, error=error))

    # ── incoming ───────────────────────────────────────────────────────────────────────────────────────────────
    @staticmethod
    def classify(msg: Any) -> MessageKind:
        """What a decoded message is (one rule for both ends of the bridge: ``acp_mux.core.text.jsonrpc``), tolerant of
        a missing ``jsonrpc`` field (codex omits it)."""
        return jsonrpc.classify(msg, strict=False).kind

    def answer_invalid(self, ctx: ParseContext, msg: Any) -> bool:
        """Answer a message :meth:`classify` called invalid when it deserves an answer (a request with a usable id
        but the wrong shape), so the agent never waits for a reply that will not come. True if answered."""
        verdict = jsonrpc.classify(msg, strict=False)
        if verdict.kind != "invalid" or verdict.error is None or verdict.id is None:
            return False
        self.respond_error(ctx, verdict.id, *verdict.error)
        return True

    def is_pending(self, request_id: Any) -> bool:
        return self._key(request_id) is not None

    def pending_method(self, request_id: Any) -> str | None:
        key = self._key(request_id)
        return self.pending[key].method if key is not None else None

    def handle_response(self, msg: dict[str, Any]) -> list[BaseEvent]:
        """Dispatch a response to its callback and return the callback's events; unknown ids are ignored."""
        key = self._key(msg.get("id"))
        if key is None:
            return []
        entry = self.pending.pop(key)
        if entry.on_result is None:
            return []
        error = msg.get("error")
        if error is not None and not isinstance(error, dict):
            error = {"code": INTERNAL_ERROR, "message": str(error)}
        result = None if error is not None else msg.get("result")
        return list(entry.on_result(result, error) or ())

    def fail_pending(self, message: str, code: int = INTERNAL_ERROR) -> list[BaseEvent]:
        """Resolve every outstanding request with an error (the connection is gone); returns their events."""
        events: list[BaseEvent] = []
        entries, self.pending = list(self.pending.values()), {}
        for entry in entries:
            if entry.on_result is not None:
                events += list(entry.on_result(None, {"code": code, "message": message}) or ())
        return events

    def _key(self, request_id: Any) -> Any:
        """The pending key for an id as it came back: ``3`` and ``"3"`` both find request 3."""
        if request_id is None or not jsonrpc.valid_id(
            request_id
        ):  # a list, an object, inf: matches nothing, never raises
            return None
        if request_id in self.pending:
            return request_id
        if isinstance(request_id, str) and _INT_ID.fullmatch(request_id) and int(request_id) in self.pending:
            return int(request_id)
        if isinstance(request_id, (int, float)) and str(int(request_id)) in self.pending:
            return str(int(request_id))
        return None


def error_message(error: dict[str, Any] | None, default: str = "request failed") -> str:
    """A human-readable line for a JSON-RPC error object."""
    if not error:
        return default
    message = error.get("message")
    text = message if isinstance(message, str) and message else default
    code = error.get("code")
    return f"{text} ({code})" if isinstance(code, int) else text

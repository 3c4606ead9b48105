"""The editor's side of the typed ACP edge: every request the editor sends is read into the v1 model here, and
every answer the editor gives to a request of ours is read the same way.

Why here and not in each handler: a shape error then has one answer everywhere, ``-32602`` naming the method and
the field (never a traceback, never a stall, and the connection goes on), and a handler only ever sees a model it
can trust (``v1.PromptRequest``, ...), from which it pulls the plain values the session needs.

One leniency, on purpose: ``mcpServers`` is required by the schema on ``session/new``, ``session/load`` and
``session/resume``, yet editors omit it when they have none; the launcher's early ``session/new`` answer
(:mod:`acp_mux.launcher.early_session`) takes its absence as "none", and so does this edge, so the two paths agree.
Likewise ``initialize``'s ``clientInfo`` (the editor's name and version, for logs): the launcher answers an
``initialize`` whatever its ``clientInfo`` holds, so a ``clientInfo`` that does not fit (no ``version``, a number for
a name) is left out here, with a warning, rather than refusing the editor's handshake.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from acp_mux.protocol import wire
from acp_mux.protocol.base import AcpModel
from acp_mux.server.wire.rpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError

M = TypeVar("M", bound=AcpModel)
log = logging.getLogger(__name__)

# Fields an editor may leave out although the schema requires them, and what their absence means.
OMITTED_MEANS: dict[str, dict[str, Any]] = {
    method: {"mcpServers": []} for method in ("session/new", "session/load", "session/resume")
}


def parse_request(method: str, params: object) -> AcpModel:
    """The typed params of the editor's ``method`` request or notification; RpcError -32602 when they do not fit."""
    if isinstance(params, dict) and method in OMITTED_MEANS:
        params = {**OMITTED_MEANS[method], **params}
    try:
        model = wire.parse_params(method, params, strict=True)  # JSON's types: "1" is no protocolVersion
    except wire.AcpShapeError as error:
        if method == "initialize" and isinstance(params, dict) and "clientInfo" in params:
            without = {key: value for key, value in params.items() if key != "clientInfo"}
            try:
                model = wire.parse_params(method, without, strict=True)
            except wire.AcpShapeError:
                pass  # something else is wrong too: refused below, naming the first problem
            else:
                log.warning("initialize: the editor's clientInfo does not fit ACP (%s); left out", error.reason)
                assert model is not None
                return model
        raise RpcError(INVALID_PARAMS, f"Invalid params: {method}: {error.reason}"[:500], {"method": method}) from None
    if model is None:  # only schema methods are routed here; a caller that breaks that is a bug, said plainly
        raise RpcError(INTERNAL_ERROR, f"{method} is not an ACP v1 method")
    return model


def typed(method: str, handler: Callable[[Any], Awaitable[Any]]) -> Callable[[dict[str, Any]], Awaitable[Any]]:
    """A JSON-RPC handler for ``method`` that reads its params into the model and calls ``handler`` with it."""

    async def call(params: dict[str, Any]) -> Any:
        return await handler(parse_request(method, params))

    call.__name__ = getattr(handler, "__name__", method)
    return call


def answer(model_type: type[M], result: Mapping[str, object]) -> dict[str, Any]:
    """A result the bridge writes, built as its v1 model and dumped by :func:`wire.dump` (fields kept as set)."""
    return wire.dump(model_type.model_validate(result))


def asking(
    request: Callable[[str, Mapping[str, object]], Awaitable[Any]],
) -> Callable[[str, Mapping[str, object]], Awaitable[Any]]:
    """``request`` (the connection's, asking the editor), with the editor's answer read by the v1 result model.

    The session keeps reading a dict (the model dumped: what the editor sent, field for field); an answer that does
    not fit is a ``RpcError`` -32603 naming the method and field, which the session treats as any failed request
    (a permission is then denied, never granted by accident; an agent's file read gets the error). Methods outside
    the schema, and answers that only carry a kind this version does not know, pass as they came.
    """

    async def ask(method: str, params: Mapping[str, object]) -> Any:
        result = await request(method, params)
        try:
            model = wire.parse_result(method, result)
        except wire.AcpShapeError as error:
            if error.unknown_kinds:
                return result
            raise RpcError(
                INTERNAL_ERROR, f"the editor's answer to {method} does not fit ACP: {error.reason}"[:500]
            ) from None
        return result if model is None else wire.dump(model)

    return ask

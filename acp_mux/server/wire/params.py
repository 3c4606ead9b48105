"""Typed reads of ACP request params: a wrong type is a -32602 that names the field, never a Python exception.

The JSON-RPC layer guarantees ``params`` is an object; what is inside is the client's business. Every method of the
bridge reads its params through these helpers, so a hostile or buggy editor gets "Invalid params: sessionId must
be a string" instead of ``'list' object has no attribute 'get'`` from deep inside a handler.
"""

from __future__ import annotations

from typing import Any

from acp_mux.server.wire.param_shapes import mcp_servers_problem, type_problem
from acp_mux.server.wire.rpc import INVALID_PARAMS, RpcError


def invalid(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, f"Invalid params: {message}")


def _check(value: Any, kind: type, name: str) -> Any:
    problem = type_problem(value, kind, name)
    if problem:
        raise invalid(problem)
    return value


def required(params: dict[str, Any], name: str, kind: type) -> Any:
    if params.get(name) is None:
        raise invalid(f"{name} is required")
    return _check(params[name], kind, name)


def optional(params: dict[str, Any], name: str, kind: type, default: Any = None) -> Any:
    value = params.get(name)
    return default if value is None else _check(value, kind, name)


def session_id(params: dict[str, Any]) -> str:
    value = required(params, "sessionId", str)
    assert isinstance(value, str)  # _check refused anything else
    return value


def mcp_servers(params: dict[str, Any]) -> list[dict[str, Any]]:
    """``mcpServers``, refused with the first problem in its shape (:func:`param_shapes.mcp_servers_problem`)."""
    servers = optional(params, "mcpServers", list, [])
    problem = mcp_servers_problem(servers)
    if problem:
        raise invalid(problem)
    assert isinstance(servers, list)  # _check refused anything else
    return servers

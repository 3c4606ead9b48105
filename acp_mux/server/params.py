"""Typed reads of ACP request params: a wrong type is a -32602 that names the field, never a Python exception.

The JSON-RPC layer guarantees ``params`` is an object; what is inside is the client's business. Every method of the
bridge reads its params through these helpers, so a hostile or buggy editor gets "Invalid params: sessionId must
be a string" instead of ``'list' object has no attribute 'get'`` from deep inside a handler.
"""

from __future__ import annotations

from typing import Any

from acp_mux.server.rpc import INVALID_PARAMS, RpcError

_TYPE_NAMES = {str: "a string", int: "an integer", list: "an array", dict: "an object", bool: "a boolean"}


def invalid(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, f"Invalid params: {message}")


def _check(value: Any, kind: type, name: str) -> Any:
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value
    raise invalid(f"{name} must be {_TYPE_NAMES.get(kind, kind.__name__)}")


def required(params: dict[str, Any], name: str, kind: type) -> Any:
    if params.get(name) is None:
        raise invalid(f"{name} is required")
    return _check(params[name], kind, name)


def optional(params: dict[str, Any], name: str, kind: type, default: Any = None) -> Any:
    value = params.get(name)
    return default if value is None else _check(value, kind, name)


def session_id(params: dict[str, Any]) -> str:
    return required(params, "sessionId", str)


def mcp_servers(params: dict[str, Any]) -> list[dict[str, Any]]:
    """``mcpServers``: an array of objects, each with a string ``name`` and either a ``command`` or a ``url``.

    Values inside (args, env, headers) are normalized by ``adapters.mcp``; only shapes that could not be are refused.
    """
    servers = optional(params, "mcpServers", list, [])
    for index, server in enumerate(servers):
        where = f"mcpServers[{index}]"
        _check(server, dict, where)
        for key in ("name", "command", "url", "type"):
            if server.get(key) is not None:
                _check(server[key], str, f"{where}.{key}")
        if not server.get("command") and not server.get("url"):
            raise invalid(f"{where} needs a command (stdio) or a url (http/sse)")
        for key in ("args", "env", "headers"):
            if server.get(key) is not None:
                _check(server[key], list, f"{where}.{key}")
        for key in ("env", "headers"):
            for pair_index, pair in enumerate(server.get(key) or ()):
                pair_name = f"{where}.{key}[{pair_index}]"
                _check(pair, dict, pair_name)
                _check(pair.get("name"), str, f"{pair_name}.name")
                if pair.get("value") is not None:
                    _check(pair["value"], str, f"{pair_name}.value")
        for arg_index, arg in enumerate(server.get("args") or ()):
            _check(arg, str, f"{where}.args[{arg_index}]")
    return servers

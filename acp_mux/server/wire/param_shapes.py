"""What is wrong with a request's params, as a message: the standard library only, so the launcher checks the
``session/new`` it answers early (:mod:`acp_mux.launcher.early_session`) exactly as the server does
(:mod:`acp_mux.server.wire.params` raises these messages as -32602)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TYPE_NAMES = {str: "a string", int: "an integer", list: "an array", dict: "an object", bool: "a boolean"}


def type_problem(value: Any, kind: type, name: str) -> str | None:
    """``"<name> must be <kind>"`` unless ``value`` is one (a bool is not an integer here)."""
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return None
    return f"{name} must be {TYPE_NAMES.get(kind, kind.__name__)}"


def mcp_servers_problem(servers: list[Any]) -> str | None:
    """``mcpServers``: objects, each with a string ``name`` and either a ``command`` or a ``url``; None when fine.

    Values inside (args, env, headers) are normalized by ``adapters.mcp``; only shapes that could not be are refused.
    """
    for index, server in enumerate(servers):
        where = f"mcpServers[{index}]"
        problem = type_problem(server, dict, where)
        if problem:
            return problem
        for key in ("name", "command", "url", "type"):
            if server.get(key) is not None and (problem := type_problem(server[key], str, f"{where}.{key}")):
                return problem
        if not server.get("command") and not server.get("url"):
            return f"{where} needs a command (stdio) or a url (http/sse)"
        for key in ("args", "env", "headers"):
            if server.get(key) is not None and (problem := type_problem(server[key], list, f"{where}.{key}")):
                return problem
        for key in ("env", "headers"):
            for pair_index, pair in enumerate(server.get(key) or ()):
                pair_name = f"{where}.{key}[{pair_index}]"
                problem = type_problem(pair, dict, pair_name) or type_problem(
                    pair.get("name"), str, f"{pair_name}.name"
                )
                if problem:
                    return problem
                if pair.get("value") is not None and (
                    problem := type_problem(pair["value"], str, f"{pair_name}.value")
                ):
                    return problem
        for arg_index, arg in enumerate(server.get("args") or ()):
            if problem := type_problem(arg, str, f"{where}.args[{arg_index}]"):
                return problem
    return None

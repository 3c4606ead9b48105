"""ACP ``McpServer`` entries from session/new, normalized once, then written in each agent's own config shape.

ACP sends a list of ``{name, command, args, env:[{name,value}]}`` (stdio) or ``{type:"http"|"sse", name, url,
headers:[{name,value}]}``; agents want name-keyed maps (Claude's ``--mcp-config`` JSON, Codex's ``mcp_servers``
TOML table). Both are derived from :func:`mcp_servers_by_name` so a quirk is fixed in one place.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["mcp_servers_by_name", "claude_mcp_config", "codex_mcp_overrides"]


def _pairs(items: Any) -> dict[str, str]:
    """ACP ``[{name, value}]`` (or an already name-keyed dict) → ``{name: value}``."""
    if isinstance(items, dict):
        return {str(k): str(v) for k, v in items.items()}
    if not isinstance(items, list):
        return {}
    return {str(p["name"]): str(p.get("value", "")) for p in items if isinstance(p, dict) and "name" in p}


def mcp_servers_by_name(servers: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``{name: {"type": "stdio", command, args, env} | {"type": "http"|"sse", url, headers}}``."""
    out: dict[str, dict[str, Any]] = {}
    for i, server in enumerate(servers):
        if not isinstance(server, dict):
            continue
        name = str(server.get("name") or f"server{i + 1}")
        kind = server.get("type")
        if kind in ("http", "sse") or (server.get("url") and not server.get("command")):
            out[name] = {"type": kind or "http", "url": str(server.get("url") or ""),
                         "headers": _pairs(server.get("headers"))}
        else:
            args = server.get("args")
            out[name] = {
                "type": "stdio",
                "command": str(server.get("command") or ""),
                "args": [str(a) for a in args] if isinstance(args, list) else [],
                "env": _pairs(server.get("env")),
            }
    return out


def claude_mcp_config(servers: list[dict[str, Any]]) -> dict[str, Any]:
    """Claude's ``--mcp-config`` document: ``{"mcpServers": {name: {...}}}`` (stdio, http and sse)."""
    return {"mcpServers": mcp_servers_by_name(servers)}


_BARE_KEY = re.compile(r"[^A-Za-z0-9_-]")


def _toml(value: Any) -> str:
    """A TOML value for ``codex -c``: JSON strings and string arrays are valid TOML; tables become inline.

    ``ensure_ascii=False`` because TOML has no surrogate-pair escapes for characters beyond the BMP.
    """
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


def codex_mcp_overrides(servers: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """``-c mcp_servers.<name>.<key>=<toml>`` arguments for codex, and the names it cannot take.

    Codex speaks stdio and streamable HTTP MCP, not SSE; a skipped server is reported rather than silently lost.
    Names are reduced to TOML bare-key characters because ``-c`` splits its key on dots.
    """
    args: list[str] = []
    skipped: list[str] = []
    for name, spec in mcp_servers_by_name(servers).items():
        if spec["type"] == "sse":
            skipped.append(name)
            continue
        key = "mcp_servers." + (_BARE_KEY.sub("_", name) or "server")
        if spec["type"] == "stdio":
            fields: dict[str, Any] = {"command": spec["command"], "args": spec["args"]}
            if spec["env"]:
                fields["env"] = spec["env"]
        else:
            fields = {"url": spec["url"]}
            if spec["headers"]:
                fields["http_headers"] = spec["headers"]
        for field, value in fields.items():
            args += ["-c", f"{key}.{field}={_toml(value)}"]
    return args, skipped

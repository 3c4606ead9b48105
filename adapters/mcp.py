"""ACP ``McpServer`` entries from session/new, normalized once, then written in each agent's own config shape.

ACP sends a list of ``{name, command, args, env:[{name,value}]}`` (stdio) or ``{type:"http"|"sse", name, url,
headers:[{name,value}]}``; agents want name-keyed maps (Claude's ``--mcp-config`` JSON, Codex's ``mcp_servers``
table). All are derived from :func:`mcp_servers_by_name` so a quirk is fixed in one place.

Env values and headers are secrets (API tokens): they never go on an agent's command line, which every local user
can read. Claude reads its config from a private 0600 file, codex app-server gets it in-protocol, codex exec through
its environment; :func:`mcp_secrets` lists them for the log redaction.
"""

from __future__ import annotations

import json
import re
from typing import Any

from acp_mux.core.text.shapes import as_dict, as_list

__all__ = ["mcp_servers_by_name", "claude_mcp_config", "codex_mcp_config", "codex_exec_mcp", "mcp_secrets"]


def _pairs(items: Any) -> dict[str, str]:
    """ACP ``[{name, value}]`` (or an already name-keyed dict) → ``{name: value}``."""
    if isinstance(items, dict):
        return {str(k): str(v) for k, v in items.items()}
    if not isinstance(items, list):
        return {}
    return {str(p["name"]): str(p.get("value", "")) for p in items if isinstance(p, dict) and "name" in p}


def mcp_servers_by_name(servers: object) -> dict[str, dict[str, Any]]:
    """``{name: {"type": "stdio", command, args, env} | {"type": "http"|"sse", url, headers}}``.

    The parsing edge for the editor's ``mcpServers``: it takes whatever was sent and skips what is not an entry."""
    out: dict[str, dict[str, Any]] = {}
    for i, item in enumerate(as_list(servers)):
        server = as_dict(item)
        if not server:
            continue
        name = str(server.get("name") or f"server{i + 1}")
        kind = server.get("type")
        if kind in ("http", "sse") or (server.get("url") and not server.get("command")):
            out[name] = {
                "type": kind or "http",
                "url": str(server.get("url") or ""),
                "headers": _pairs(server.get("headers")),
            }
        else:
            args = server.get("args")
            out[name] = {
                "type": "stdio",
                "command": str(server.get("command") or ""),
                "args": [str(a) for a in args] if isinstance(args, list) else [],
                "env": _pairs(server.get("env")),
            }
    return out


def claude_mcp_config(servers: object) -> dict[str, Any]:
    """Claude's ``--mcp-config`` document: ``{"mcpServers": {name: {...}}}`` (stdio, http and sse)."""
    return {"mcpServers": mcp_servers_by_name(servers)}


_BARE_KEY = re.compile(r"[^A-Za-z0-9_-]")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _toml(value: Any) -> str:
    """A TOML value for ``codex -c``: JSON strings and string arrays are valid TOML; tables become inline.

    ``ensure_ascii=False`` because TOML has no surrogate-pair escapes for characters beyond the BMP.
    """
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


def _codex_name(name: str) -> str:
    """A codex server key: TOML bare-key characters (``-c`` splits its key on dots)."""
    return _BARE_KEY.sub("_", name) or "server"


def codex_mcp_config(servers: object) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The ``mcp_servers`` table for codex's in-protocol ``config`` (``thread/start``/``thread/resume``), and the
    names it cannot take (codex speaks stdio and streamable HTTP MCP, not SSE).

    In-protocol, so env values and headers — an MCP server's secrets — never reach a command line (verified on
    codex 0.169.0: the server starts with that env, on start and on resume).
    """
    table: dict[str, dict[str, Any]] = {}
    skipped: list[str] = []
    for name, spec in mcp_servers_by_name(servers).items():
        if spec["type"] == "sse":
            skipped.append(name)
            continue
        if spec["type"] == "stdio":
            fields: dict[str, Any] = {"command": spec["command"], "args": spec["args"]}
            if spec["env"]:
                fields["env"] = spec["env"]
        else:
            fields = {"url": spec["url"]}
            if spec["headers"]:
                fields["http_headers"] = spec["headers"]
        table[_codex_name(name)] = fields
    return table, skipped


def codex_exec_mcp(servers: object) -> tuple[list[str], dict[str, str], list[str]]:
    """For ``codex exec`` (no protocol to carry them): ``-c`` arguments naming only what is public, the environment
    that carries the secrets, and the names skipped.

    A stdio server's env values travel in codex's own environment and are handed on by name (``env_vars``); header
    values travel in generated variables (``env_http_headers``). Command and arguments stay on the command line:
    they are on the MCP server's own command line anyway. The price: codex itself also sees those variables.
    """
    args: list[str] = []
    env: dict[str, str] = {}
    skipped: list[str] = []
    for index, (name, spec) in enumerate(mcp_servers_by_name(servers).items()):
        if spec["type"] == "sse":
            skipped.append(name)
            continue
        key = "mcp_servers." + _codex_name(name)
        if spec["type"] == "stdio":
            fields: dict[str, Any] = {"command": spec["command"], "args": spec["args"]}
            names = [n for n in spec["env"] if _ENV_NAME.match(n)]
            skipped += [f"{name} (env {n!r} is not a variable name)" for n in spec["env"] if not _ENV_NAME.match(n)]
            if names:
                fields["env_vars"] = names
                env.update({n: spec["env"][n] for n in names})
        else:
            fields = {"url": spec["url"]}
            if spec["headers"]:
                carriers = {header: f"ACP_MUX_MCP_{index}_H{i}" for i, header in enumerate(spec["headers"])}
                fields["env_http_headers"] = carriers
                env.update({var: spec["headers"][header] for header, var in carriers.items()})
        for field, value in fields.items():
            args += ["-c", f"{key}.{field}={_toml(value)}"]
    return args, env, skipped


def mcp_secrets(servers: object) -> list[str]:
    """Every env value and header value of ``servers`` (ACP shape): what logs must never show."""
    found: list[str] = []
    for spec in mcp_servers_by_name(servers).values():
        found += [v for v in (spec.get("env") or {}).values() if v]
        found += [v for v in (spec.get("headers") or {}).values() if v]
    return found

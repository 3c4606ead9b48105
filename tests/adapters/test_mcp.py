"""ACP MCP server entries → each agent's config: one normalization, two renderings (and the real codex parses it)."""

from __future__ import annotations

import json
import subprocess

import pytest

from acp_mux.core.contract import RunOptions
from acp_mux.adapters.codex import CodexAdapter
from acp_mux.adapters.mcp import claude_mcp_config, codex_mcp_overrides, mcp_servers_by_name

SERVERS = [
    {"name": "fs tool", "command": "mcp-fs", "args": ["--root", "/é😀"], "env": [{"name": "TOKEN", "value": 't"x'}]},
    {"type": "http", "name": "gh", "url": "http://127.0.0.1:9/mcp", "headers": [{"name": "Authorization", "value": "b"}]},
    {"type": "sse", "name": "old", "url": "http://127.0.0.1:9/sse", "headers": []},
    "not a server",
]


def test_normalized_once() -> None:
    by_name = mcp_servers_by_name(SERVERS)
    assert by_name == {
        "fs tool": {"type": "stdio", "command": "mcp-fs", "args": ["--root", "/é😀"], "env": {"TOKEN": 't"x'}},
        "gh": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "b"}},
        "old": {"type": "sse", "url": "http://127.0.0.1:9/sse", "headers": {}},
    }
    assert claude_mcp_config(SERVERS) == {"mcpServers": by_name}


def test_codex_overrides_skip_sse_and_sanitize_names() -> None:
    args, skipped = codex_mcp_overrides(SERVERS)
    assert skipped == ["old"]
    assert args == [
        "-c", 'mcp_servers.fs_tool.command="mcp-fs"',
        "-c", 'mcp_servers.fs_tool.args=["--root", "/é😀"]',
        "-c", 'mcp_servers.fs_tool.env={"TOKEN" = "t\\"x"}',
        "-c", 'mcp_servers.gh.url="http://127.0.0.1:9/mcp"',
        "-c", 'mcp_servers.gh.http_headers={"Authorization" = "b"}',
    ]  # fmt: skip
    spec = CodexAdapter().build_spawn(RunOptions(agent="codex", cwd="/w", binary="/opt/codex", mcp_servers=SERVERS))
    assert spec.args == [*args, "app-server"]


@pytest.mark.e2e
def test_the_real_codex_reads_the_overrides(tmp_path) -> None:
    from tests.e2e.harness import require_cli

    codex = require_cli("codex")
    args, _ = codex_mcp_overrides(SERVERS)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    out = subprocess.run([str(codex), *args, "mcp", "list", "--json"], capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(home), "CODEX_HOME": str(home / ".codex")})
    assert out.returncode == 0, out.stderr
    listed = {s["name"]: s["transport"] for s in json.loads(out.stdout)}
    assert listed["fs_tool"]["command"] == "mcp-fs" and listed["fs_tool"]["args"] == ["--root", "/é😀"]
    assert listed["fs_tool"]["env"] == {"TOKEN": 't"x'}
    assert listed["gh"] == {**listed["gh"], "type": "streamable_http", "url": "http://127.0.0.1:9/mcp",
                            "http_headers": {"Authorization": "b"}}

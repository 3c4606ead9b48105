"""ACP MCP server entries → each agent's config: one normalization, two renderings (and the real codex parses it)."""

from __future__ import annotations

import json
import subprocess

import pytest

from acp_mux.core.run.contract import RunOptions
from acp_mux.adapters.rpc_agents.codex import CodexAdapter
from acp_mux.adapters.stream_agents.codex_exec import CodexExecAdapter
from acp_mux.adapters.mcp import claude_mcp_config, codex_exec_mcp, codex_mcp_config, mcp_secrets, mcp_servers_by_name
from tests.adapters.helpers import make_ctx

SERVERS = [
    {"name": "fs tool", "command": "mcp-fs", "args": ["--root", "/é😀"], "env": [{"name": "TOKEN", "value": 't"x'}]},
    {
        "type": "http",
        "name": "gh",
        "url": "http://127.0.0.1:9/mcp",
        "headers": [{"name": "Authorization", "value": "b"}],
    },
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


def test_codex_gets_mcp_servers_in_protocol_never_on_its_command_line() -> None:
    table, skipped = codex_mcp_config(SERVERS)
    assert skipped == ["old"]
    assert table == {
        "fs_tool": {"command": "mcp-fs", "args": ["--root", "/é😀"], "env": {"TOKEN": 't"x'}},
        "gh": {"url": "http://127.0.0.1:9/mcp", "http_headers": {"Authorization": "b"}},
    }
    adapter = CodexAdapter()
    options = RunOptions(agent="codex", cwd="/w", binary="/opt/codex", mcp_servers=SERVERS)
    spec = adapter.build_spawn(options)
    assert spec.args == ["app-server"]
    ctx = make_ctx("codex", "/w")
    adapter.start(options, ctx)
    adapter.parse_line(json.dumps({"id": 1, "result": {}}), ctx)  # initialize answered: thread/start goes out
    start = [json.loads(line) for line in ctx.take_outbox() if '"thread/start"' in line][0]
    assert start["params"]["config"] == {"mcp_servers": table}


def test_codex_exec_carries_mcp_secrets_in_its_environment() -> None:
    args, env, skipped = codex_exec_mcp(SERVERS)
    assert skipped == ["old"]
    assert env == {"TOKEN": 't"x', "ACP_MUX_MCP_1_H0": "b"}
    assert args == [
        "-c", 'mcp_servers.fs_tool.command="mcp-fs"',
        "-c", 'mcp_servers.fs_tool.args=["--root", "/é😀"]',
        "-c", 'mcp_servers.fs_tool.env_vars=["TOKEN"]',
        "-c", 'mcp_servers.gh.url="http://127.0.0.1:9/mcp"',
        "-c", 'mcp_servers.gh.env_http_headers={"Authorization" = "ACP_MUX_MCP_1_H0"}',
    ]  # fmt: skip
    assert not any('t"x' in a or a.endswith('"b"}') for a in args)
    spec = CodexExecAdapter().build_spawn(
        RunOptions(agent="codex", cwd="/w", binary="/opt/codex", mcp_servers=SERVERS, env={"PATH": "/bin"})
    )
    assert spec.env == {"PATH": "/bin", **env}
    assert not any('t"x' in a for a in spec.args)


def test_mcp_secrets_lists_env_and_header_values() -> None:
    assert sorted(mcp_secrets(SERVERS)) == ["b", 't"x']
    assert mcp_secrets("junk") == []


@pytest.mark.e2e
def test_the_real_codex_reads_the_exec_overrides(tmp_path) -> None:
    from tests.e2e.harness import require_cli

    codex = require_cli("codex")
    args, env, _ = codex_exec_mcp(SERVERS)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    out = subprocess.run(
        [str(codex), *args, "mcp", "list", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), "CODEX_HOME": str(home / ".codex"), **env},
    )
    assert out.returncode == 0, out.stderr
    listed = {s["name"]: s["transport"] for s in json.loads(out.stdout)}
    assert listed["fs_tool"]["command"] == "mcp-fs" and listed["fs_tool"]["args"] == ["--root", "/é😀"]
    assert listed["fs_tool"]["env_vars"] in (["TOKEN"], [{"name": "TOKEN"}]) or "TOKEN" in json.dumps(listed["fs_tool"])
    assert listed["gh"]["type"] == "streamable_http" and listed["gh"]["url"] == "http://127.0.0.1:9/mcp"
    assert "ACP_MUX_MCP_1_H0" in json.dumps(listed["gh"])

#!/usr/bin/env python3
"""A minimal stdio MCP server that records what it was started with.

usage: mcp_probe.py OUT_FILE   — appends {"argv", "env"} (variables starting with PROBE_ or SECRET_) as one JSON
line to OUT_FILE, then answers initialize and tools/list (no tools) until stdin closes. Lets a test prove an agent
started the editor's MCP server with the env it was given, without that env ever being on a command line.
"""

import json
import os
import sys

with open(sys.argv[1], "a") as fh:
    env = {k: v for k, v in os.environ.items() if k.startswith(("PROBE_", "SECRET_"))}
    fh.write(json.dumps({"argv": sys.argv, "env": env}) + "\n")
for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if "id" not in message:
        continue
    if message.get("method") == "initialize":
        version = (message.get("params") or {}).get("protocolVersion", "2025-06-18")
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "probe", "version": "1"},
        }
    elif message.get("method") == "tools/list":
        result = {"tools": []}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()

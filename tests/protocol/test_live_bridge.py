"""acp-mux's own wire, both ways, fits the v1 model and round-trips: the SDK's client (the one the e2e tests use)
drives ``acp-mux --agent demo`` through a tee that keeps every line each side wrote, then every message read there
goes through the edge. A message acp-mux writes that the schema refuses would fail here, as would any loss.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import Annotations, TextContentBlock

from acp_mux.protocol import wire
from tests.server.client import RecordingClient

pytestmark = pytest.mark.asyncio


def _messages(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _round_trip_all(sent_by_editor: list[dict[str, Any]], sent_by_mux: list[dict[str, Any]]) -> set[str]:
    """Parse and dump every message of both streams; the methods seen, as `method part`."""
    asked = {("editor", m["id"]): m["method"] for m in sent_by_editor if "method" in m and "id" in m}
    asked |= {("mux", m["id"]): m["method"] for m in sent_by_mux if "method" in m and "id" in m}
    seen: set[str] = set()
    for sender, other, stream in (("editor", "mux", sent_by_editor), ("mux", "editor", sent_by_mux)):
        for message in stream:
            if "method" in message:
                method, part, payload = message["method"], "params", message.get("params")
                model = wire.parse_params(method, payload)
            elif "result" in message:
                method, part, payload = asked[(other, message["id"])], "result", message["result"]
                model = wire.parse_result(method, payload)
            else:
                continue  # a JSON-RPC error: not a method's type
            assert model is not None, f"{sender} sent {method}, which the v1 schema does not have"
            assert wire.dump(model) == (payload if payload is not None else {}), f"{sender} {method} {part}"
            seen.add(f"{method} {part}")
    return seen


async def test_the_bridge_wire_with_the_sdk_client_fits_the_model_both_ways(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    editor_log, mux_log = tmp_path / "editor.jsonl", tmp_path / "mux.jsonl"
    command = (
        f"tee {shlex.quote(str(editor_log))} | {shlex.quote(sys.executable)} -m acp_mux --agent demo"
        f" | tee {shlex.quote(str(mux_log))}"
    )
    client = RecordingClient()
    env = {"ACP_MUX_STATE_DIR": str(tmp_path / "state"), "PATH": "/usr/bin:/bin", "SCRIPTED_AGENT_ECHO": "1"}
    async with acp.spawn_agent_process(
        client, "/bin/sh", "-c", command, env=env, cwd=str(cwd), transport_kwargs={"stderr": None}
    ) as (conn, _):
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=str(cwd), mcp_servers=[])).session_id
        rich = TextContentBlock(
            type="text",
            text="write the demo",
            annotations=Annotations(priority=0.5),
            field_meta={"editor": {"selection": [1, 2]}},
        )
        link = acp.resource_link_block(name="notes.txt", uri=f"file://{cwd}/notes.txt", title="Notes")
        assert (await conn.prompt(session_id=sid, prompt=[rich, link])).stop_reason == "end_turn"
        assert (await conn.prompt(session_id=sid, prompt=[acp.text_block("hello")])).stop_reason == "end_turn"
        await conn.list_sessions()
    assert client.permissions, "the demo's write turn asks for permission (so the editor's answers are covered)"
    seen = _round_trip_all(_messages(editor_log), _messages(mux_log))
    assert {
        "initialize params",
        "initialize result",
        "session/new result",
        "session/prompt params",
        "session/update params",
        "session/request_permission params",
        "session/request_permission result",
        "session/list result",
    } <= seen, seen
    prompt = next(m for m in _messages(editor_log) if m.get("method") == "session/prompt")
    assert prompt["params"]["prompt"][1]["title"] == "Notes" and "_meta" in prompt["params"]["prompt"][0]

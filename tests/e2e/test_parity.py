"""Parity: an agent that speaks ACP itself never shows less through acp-mux than through its own ACP mode.

The same scripted scenario runs twice on the real CLI, against the same scripted model: once with the SDK client
talking to ``gemini --acp`` directly, once through ``acp-mux --agent gemini``. Every tool call the agent announced
must arrive with the same kind, title, locations and diff content; every text and thought the agent streamed must
arrive; the commands it offered must be offered. Then what only the bridge adds is checked: the tool call shown
before its permission question, four options, usage, a rejected-or-completed end for every call.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.clis import cli_env
from tests.e2e.harness import SCENARIOS, RealAgent, require_cli
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

PROMPT = "Create notes.txt with the lines alpha and beta, then change beta to gamma."
TIMEOUT = 90


def allow_once(options: list[Any], call: Any) -> str:
    """The allow-once option by its kind (agents name their option ids as they like)."""
    return next(o.option_id for o in options if o.kind == "allow_once")


def tool_faces(client: RecordingClient) -> list[tuple[Any, ...]]:
    """Per tool call, in order of first sight: what the editor could show about it (merged over the tool_call,
    its updates and the permission question that carried it)."""
    faces: dict[str, dict[str, Any]] = {}

    def take(call: Any) -> None:
        face = faces.setdefault(call.tool_call_id, {"kind": None, "title": None, "paths": set(), "diffs": set()})
        face["kind"] = call.kind or face["kind"]
        face["title"] = call.title or face["title"]
        face["paths"] |= {loc.path for loc in (call.locations or [])}
        face["diffs"] |= {(c.path, c.old_text or "", c.new_text) for c in (call.content or []) if c.type == "diff"}

    for update in client.updates:
        if update.session_update in ("tool_call", "tool_call_update"):
            take(update)
    for call, _ in client.permissions:
        take(call)
    return [(f["kind"], f["title"], frozenset(f["paths"]), frozenset(f["diffs"])) for f in faces.values()]


async def run_direct(binary: Path, env: dict[str, str], cwd: Path) -> RecordingClient:
    client = RecordingClient(choose=allow_once)
    async with acp.spawn_agent_process(
        client, str(binary), "--acp", env=env, cwd=str(cwd), transport_kwargs={"stderr": None}
    ) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(cwd), mcp_servers=[])
        result = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[acp.text_block(PROMPT)]), TIMEOUT
        )
        assert result.stop_reason == "end_turn"
        await asyncio.sleep(0.5)  # commands arrive on a timer
    return client


async def test_gemini_shows_no_less_through_acp_mux_than_through_its_own_acp_mode(tmp_path: Path) -> None:
    binary = require_cli("gemini")
    direct_root, mux_root = tmp_path / "direct", tmp_path / "mux"
    for root in (direct_root, mux_root):
        (root / "project").mkdir(parents=True)

    with ModelServer(
        SCENARIOS / "gemini_write_edit.json", variables={"cwd": str(direct_root / "project")}, delta_delay=0
    ) as srv:
        direct = await run_direct(
            binary,
            cli_env("gemini", srv.url, direct_root / "home", cwd=direct_root / "project"),
            direct_root / "project",
        )
    assert (direct_root / "project" / "notes.txt").read_text() == "alpha\ngamma\n"

    agent = RealAgent("gemini", binary, mux_root)
    agent.serve("gemini_write_edit", delta_delay=0)
    mux = RecordingClient(choose=allow_once)
    try:
        async with agent.bridge(mux) as (conn, _):
            sid = await agent.session(conn)
            result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(PROMPT)]), TIMEOUT)
            await asyncio.sleep(0.5)
    finally:
        agent.close()
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"

    # Everything gemini showed, shown the same (paths differ only by the two project folders).
    def here(faces: list[tuple[Any, ...]], root: Path) -> list[tuple[Any, ...]]:
        swap = lambda text: text.replace(str(root), "ROOT") if isinstance(text, str) else text  # noqa: E731
        return [
            (k, t, frozenset(swap(p) for p in ps), frozenset(tuple(swap(x) for x in d) for d in ds))
            for k, t, ps, ds in faces
        ]

    direct_faces, mux_faces = here(tool_faces(direct), direct_root), here(tool_faces(mux), mux_root)
    assert len(direct_faces) == 3 and all(f[0] and f[1] for f in direct_faces), direct_faces
    assert mux_faces == direct_faces
    assert any(f[3] for f in mux_faces) and all(f[2] for f in mux_faces if f[0] == "edit")
    assert mux.text() == direct.text()
    assert mux.text("agent_thought_chunk") == direct.text("agent_thought_chunk")
    commands = lambda c: {x.name for u in c.of("available_commands_update") for x in u.available_commands}  # noqa: E731
    assert commands(direct) and commands(direct) <= commands(mux)
    # Same questions, plus what the bridge adds.
    assert len(mux.permissions) == len(direct.permissions) >= 2
    shown_first = {u.tool_call_id for u in mux.of("tool_call")}
    assert all(call.tool_call_id in shown_first for call, _ in mux.permissions)
    assert all(
        sorted(o.kind for o in options) == ["allow_always", "allow_once", "reject_always", "reject_once"]
        for _, options in mux.permissions
    )
    assert mux.of("usage_update") and not direct.of("usage_update")
    statuses: dict[str, str] = {}
    for u in mux.updates:
        if u.session_update in ("tool_call", "tool_call_update") and u.status:
            statuses[u.tool_call_id] = u.status
    assert set(statuses.values()) == {"completed"}

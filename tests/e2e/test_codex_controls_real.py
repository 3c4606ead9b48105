"""codex's own controls through acp-mux, on the real pinned codex 0.169.0 and the SDK client (issue 38).

What the editor is shown comes from codex (its ``model/list``: models the adapter's fixed table does not have, each
with its reasoning efforts and fast tier), and what the editor chooses reaches the model: the scripted model
server's request log shows ``reasoning.effort``, ``service_tier`` (codex sends fast as ``priority``) and codex's
plan-mode instructions. codex's slash commands are listed and work when sent as prompts; the session's extra
workspace roots are writable roots of codex's sandbox (codex tells the model so in its permission instructions).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.controls import noting, options_of, wait_for
from tests.e2e.harness import RealAgent, current_values, require_cli
from tests.fakes.model_server import ModelServer, load_scenario
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

PLAN_MARK = "<collaboration_mode># Plan Mode"


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[RealAgent]:
    real = noting(RealAgent("codex", require_cli("codex"), tmp_path))
    yield real
    real.close()


def model_requests(server: ModelServer) -> list[dict[str, Any]]:
    return [r["body"] for r in server.requests if r.get("path", "").endswith("/responses")]


async def prompt(conn: Any, sid: str, text: str) -> Any:
    return await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), 180)


async def test_the_editor_sees_codexs_models_and_its_choices_reach_the_model(agent: RealAgent) -> None:
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        await wait_for(lambda: "reasoning_effort" in options_of(client))
        shown = options_of(client)
        models = [o["value"] for o in shown["model"]["options"]]
        assert "gpt-6.1-sol" in models and "gpt-5.2-codex" not in models  # codex's model/list, not the fixed table
        assert shown["model"]["currentValue"] == "gpt-5.5"
        assert [o["value"] for o in shown["reasoning_effort"]["options"]] == ["low", "medium", "high", "xhigh"]
        assert (shown["reasoning_effort"]["category"], shown["fast-mode"]["category"]) == ("thought_level", "model_config")  # fmt: skip
        assert shown["collaboration_mode"]["currentValue"] == "default"

        answer = await conn.set_config_option(session_id=sid, config_id="reasoning_effort", value="high")
        assert current_values(answer)["reasoning_effort"] == "high"
        await conn.set_config_option(session_id=sid, config_id="fast-mode", value="on")
        await conn.set_config_option(session_id=sid, config_id="collaboration_mode", value="plan")
        assert (await prompt(conn, sid, "Plan it.")).stop_reason == "end_turn"
        first = model_requests(agent.server)[-1]
        assert first["reasoning"]["effort"] == "high"
        assert first["service_tier"] == "priority"
        assert PLAN_MARK in json.dumps(first["input"])

        await conn.set_config_option(session_id=sid, config_id="reasoning_effort", value="low")
        await conn.set_config_option(session_id=sid, config_id="fast-mode", value="off")
        await conn.set_config_option(session_id=sid, config_id="collaboration_mode", value="default")
        await conn.set_config_option(session_id=sid, config_id="model", value="gpt-6-luna")
        assert (await prompt(conn, sid, "Do it.")).stop_reason == "end_turn"
        second = model_requests(agent.server)[-1]
        assert second["model"] == "gpt-6-luna"
        assert second["reasoning"]["effort"] == "low"
        assert second.get("service_tier") is None
        assert PLAN_MARK not in json.dumps(second["input"])
    assert options_of(client)["model"]["currentValue"] == "gpt-6-luna"


async def test_codexs_commands_are_listed_and_work_as_prompts(agent: RealAgent) -> None:
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        await wait_for(lambda: client.of("available_commands_update"))
        names = {c.name for c in client.of("available_commands_update")[-1].available_commands}
        assert {"status", "compact", "review", "plan", "mcp", "skills", "$imagegen"} <= names

        asked = len(model_requests(agent.server))
        assert (await prompt(conn, sid, "/status")).stop_reason == "end_turn"
        assert "**Model:** gpt-5.5" in client.text() and "**Approval:** untrusted" in client.text()
        assert len(model_requests(agent.server)) == asked  # answered by acp-mux from codex's state

        assert (await prompt(conn, sid, "Hello.")).stop_reason == "end_turn"
        asked = len(model_requests(agent.server))
        assert (await prompt(conn, sid, "/compact")).stop_reason == "end_turn"
        assert len(model_requests(agent.server)) == asked + 1  # codex asked the model for the summary
        compacted = model_requests(agent.server)[-1]
        assert "Hello." in json.dumps(compacted["input"])  # codex summarised the conversation so far

        agent.server.scenario = load_scenario({"steps": [{"blocks": [{"text": "Looks fine: nothing to fix."}]}]})
        assert (await prompt(conn, sid, "/review check the notes")).stop_reason == "end_turn"
        review = model_requests(agent.server)[-1]
        assert "check the notes" in json.dumps(review["input"])
        assert client.text().count("Looks fine: nothing to fix.") == 1  # codex's own message after its review

        assert (await prompt(conn, sid, "/plan")).stop_reason == "end_turn"
        assert options_of(client)["collaboration_mode"]["currentValue"] == "plan"


async def test_an_additional_directory_is_a_writable_root_of_codexs_sandbox(agent: RealAgent, tmp_path: Path) -> None:
    extra = tmp_path / "elsewhere"
    extra.mkdir()
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        init = await conn.initialize(protocol_version=1, client_capabilities=None)
        assert init.agent_capabilities.session_capabilities.additional_directories is not None
        session = await conn.new_session(cwd=str(agent.cwd), mcp_servers=[], additional_directories=[str(extra)])
        assert (await prompt(conn, session.session_id, "Where may you write?")).stop_reason == "end_turn"
        await conn.set_session_mode(session_id=session.session_id, mode_id="auto")  # a new sandbox policy keeps it
        assert (await prompt(conn, session.session_id, "And now?")).stop_reason == "end_turn"
    for body in model_requests(agent.server)[-2:]:
        permissions = json.dumps(body["input"])
        assert "writable roots" in permissions and str(extra) in permissions, permissions[-3000:]


async def test_an_effort_chosen_in_one_bridge_is_set_in_codex_after_load(agent: RealAgent) -> None:
    """codex takes no effort when it starts: the reopened session sets the kept choice in it once codex reports its
    options (``thread/settings/update``), and the load answer shows it from the session record."""
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        await wait_for(lambda: "reasoning_effort" in options_of(client))
        await conn.set_config_option(session_id=sid, config_id="reasoning_effort", value="high")
        assert (await prompt(conn, sid, "First.")).stop_reason == "end_turn"
        assert model_requests(agent.server)[-1]["reasoning"]["effort"] == "high"

    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=None)
        loaded = await conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
        assert {o.id: o.current_value for o in loaded.config_options or ()}["reasoning_effort"] == "high"
        assert (await prompt(conn, sid, "Second.")).stop_reason == "end_turn"
        assert model_requests(agent.server)[-1]["reasoning"]["effort"] == "high"
    assert options_of(client)["reasoning_effort"]["currentValue"] == "high"

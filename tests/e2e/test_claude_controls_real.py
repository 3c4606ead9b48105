"""Claude's own controls through acp-mux on the pinned CLI (2.1.332): what the editor is shown comes from the CLI, and
what the editor changes reaches the model request the CLI sends next (the scripted model server's request log).

- The models, modes and options are the CLI's (its ``initialize`` answer), not acp-mux's fixed table: 2.1.332 lists
  fable and offers ``auto``; effort lists the model's levels; Fast mode and ultracode are booleans for an editor that
  declared boolean config options.
- effort → ``output_config.effort``, Fast mode → ``speed: "fast"``, the model → ``model`` (each changed mid-session,
  in place: the same process); a model without Fast mode drops the toggle and the ``speed``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]

TURN_TIMEOUT = 90
BOOLEAN_OPTIONS = acp.schema.ClientCapabilities(
    session=acp.schema.ClientSessionCapabilities(
        config_options=acp.schema.SessionConfigOptionsCapabilities(boolean=acp.schema.BooleanConfigOptionCapabilities())
    )
)


def options_of(client: RecordingClient) -> list[dict[str, Any]]:
    """The config options of the last ``config_option_update`` the editor got (wire shape)."""
    updates = client.of("config_option_update")
    if not updates:
        return []
    return [o.model_dump(mode="json", by_alias=True, exclude_none=True) for o in updates[-1].config_options]


def option(options: list[dict[str, Any]], option_id: str) -> dict[str, Any] | None:
    return next((o for o in options if o["id"] == option_id), None)


async def until(check: Any, timeout: float = 60) -> Any:
    for _ in range(int(timeout / 0.05)):
        if value := check():
            return value
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


def model_requests(agent: RealAgent) -> list[dict[str, Any]]:
    """The bodies of the conversation requests Claude sent (the ones with tools: not titles, not token counts)."""
    assert agent.server is not None
    bodies = [r.get("body") for r in agent.server.requests if "/v1/messages" in str(r.get("path"))]
    return [b for b in bodies if isinstance(b, dict) and b.get("tools")]


async def test_effort_fast_and_the_model_reach_the_model_request(tmp_path: Path) -> None:
    agent = RealAgent("claude", require_cli("claude"), tmp_path)
    agent.serve("claude_text")
    agent.rescript("claude_text", steps=[{"blocks": [{"text": "ok"}]}])
    client = RecordingClient()
    try:
        async with agent.bridge(client) as (conn, _proc):
            await conn.initialize(protocol_version=1, client_capabilities=BOOLEAN_OPTIONS)
            new = await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])
            sid = new.session_id
            # the CLI's own lists replace the fixed table as soon as it answers initialize (before any prompt)
            effort = await until(lambda: option(options_of(client), "effort"))
            shown = options_of(client)
            models = [o["value"] for o in (option(shown, "model") or {})["options"]]
            assert models[:5] == ["default", "opus", "fable", "sonnet", "haiku"]
            modes = [o["value"] for o in (option(shown, "mode") or {})["options"]]
            assert "auto" in modes
            assert effort["category"] == "thought_level" and effort["currentValue"] == "default"
            assert [o["value"] for o in effort["options"]] == ["default", "low", "medium", "high", "xhigh", "max"]
            fast = option(shown, "fast")
            assert fast is not None and fast["type"] == "boolean" and fast["category"] == "model_config"
            assert (option(shown, "ultracode") or {}).get("type") == "boolean"

            with pytest.raises(acp.RequestError):  # a level the model does not offer never reaches the CLI
                await conn.set_config_option(config_id="effort", session_id=sid, value="extreme")
            answer = await conn.set_config_option(config_id="effort", session_id=sid, value="high")
            assert next(o for o in answer.config_options if o.id == "effort").current_value == "high"
            await conn.set_config_option(config_id="fast", session_id=sid, value=True)
            reply = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[acp.text_block("hi")]), timeout=TURN_TIMEOUT
            )
            assert reply.stop_reason == "end_turn"
            first = model_requests(agent)[-1]
            sent = {k: first.get(k) for k in ("model", "output_config", "speed")}
            assert first["output_config"]["effort"] == "high" and first.get("speed") == "fast", sent

            await conn.set_config_option(config_id="model", session_id=sid, value="sonnet")
            await conn.set_config_option(config_id="effort", session_id=sid, value="max")
            await until(lambda: option(options_of(client), "fast") is None)  # sonnet has no Fast mode
            await conn.set_session_mode(session_id=sid, mode_id="auto")
            reply = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[acp.text_block("again")]), timeout=TURN_TIMEOUT
            )
            assert reply.stop_reason == "end_turn"
            second = model_requests(agent)[-1]
            sent = {k: second.get(k) for k in ("model", "output_config", "speed")}
            assert second["model"].startswith("claude-sonnet") and second["model"] != first["model"], sent
            assert second["output_config"]["effort"] == "max" and "speed" not in second, sent
            assert "claude: unsupported" not in agent.log()
    finally:
        agent.close()


async def test_effort_and_fast_chosen_in_one_bridge_reach_the_model_after_load_and_resume(tmp_path: Path) -> None:
    """The session record keeps the person's choices: a second bridge that loads the session (and a third that
    resumes it) shows them in its answer and gives them to its new Claude process."""
    agent = RealAgent("claude", require_cli("claude"), tmp_path)
    agent.serve("claude_text")
    agent.rescript("claude_text", steps=[{"blocks": [{"text": "ok"}]}])

    def chosen(options: Any) -> dict[str, Any]:
        return {o.id: o.current_value for o in options or ()}

    async def ask(conn: Any, sid: str, text: str) -> dict[str, Any]:
        reply = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), TURN_TIMEOUT)
        assert reply.stop_reason == "end_turn"
        body = model_requests(agent)[-1]
        return {k: body.get(k) for k in ("output_config", "speed")}

    try:
        client = RecordingClient()
        async with agent.bridge(client) as (conn, _proc):
            await conn.initialize(protocol_version=1, client_capabilities=BOOLEAN_OPTIONS)
            sid = (await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])).session_id
            await until(lambda: option(options_of(client), "effort"))
            await conn.set_config_option(config_id="effort", session_id=sid, value="high")
            await conn.set_config_option(config_id="fast", session_id=sid, value=True)
            sent = await ask(conn, sid, "hi")
            assert sent["output_config"]["effort"] == "high" and sent["speed"] == "fast", sent

        client = RecordingClient()
        async with agent.bridge(client) as (conn, _proc):
            await conn.initialize(protocol_version=1, client_capabilities=BOOLEAN_OPTIONS)
            loaded = await conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
            assert {"effort": "high", "fast": True}.items() <= chosen(loaded.config_options).items()
            sent = await ask(conn, sid, "again")
            assert sent["output_config"]["effort"] == "high" and sent["speed"] == "fast", sent
            assert {"effort": "high", "fast": True}.items() <= chosen(client.of("config_option_update")[-1].config_options).items()  # fmt: skip

        client = RecordingClient()
        async with agent.bridge(client) as (conn, _proc):
            await conn.initialize(protocol_version=1, client_capabilities=BOOLEAN_OPTIONS)
            resumed = await conn.resume_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
            assert chosen(resumed.config_options)["effort"] == "high"
            sent = await ask(conn, sid, "once more")
            assert sent["output_config"]["effort"] == "high" and sent["speed"] == "fast", sent
    finally:
        agent.close()

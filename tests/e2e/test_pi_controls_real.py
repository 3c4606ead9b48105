"""pi's own controls through acp-mux, on the real pinned pi 0.73.1 and the SDK client (issue 38).

What the editor is offered comes from pi itself (the models pi lists, ``pi --list-models``, with the same private
HOME; its thinking level), and what the editor chooses reaches the model: the scripted model server's request log
shows the ``model`` and ``reasoning_effort`` of pi's next request. pi's ``fake`` provider is told here that it takes
``reasoning_effort`` (the shared e2e config says it does not), so a level is visible in the request at all.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.controls import noting, options_of, wait_for
from tests.e2e.harness import RealAgent, current_values, require_cli
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]


class PiWithEffort(RealAgent):
    """pi whose fake provider sends ``reasoning_effort`` (``compat.supportsReasoningEffort``)."""

    def env(self) -> dict[str, str]:
        env = super().env()
        models = self.home / ".pi" / "agent" / "models.json"
        config = json.loads(models.read_text())
        config["providers"]["fake"]["compat"]["supportsReasoningEffort"] = True
        models.write_text(json.dumps(config))
        return env


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[RealAgent]:
    real = noting(PiWithEffort("pi", require_cli("pi"), tmp_path))
    yield real
    real.close()


def pi_lists(agent: RealAgent) -> list[str]:
    """``provider/id`` of every model ``pi --list-models`` prints (a table: provider, model, ...), same HOME."""
    out = subprocess.run(
        [str(agent.binary), "--list-models"], env=agent.env(), cwd=agent.cwd, capture_output=True, text=True, timeout=60
    )
    rows = [line.split() for line in (out.stdout + out.stderr).splitlines()]
    listed = [f"{row[0]}/{row[1]}" for row in rows[1:] if len(row) >= 2]
    assert listed, out
    return listed


def chat_requests(server: ModelServer) -> list[dict[str, Any]]:
    return [r["body"] for r in server.requests if r.get("path", "").endswith("/chat/completions")]


async def prompt(conn: Any, sid: str, text: str) -> Any:
    return await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), 180)


async def test_the_editor_sees_pis_models_and_its_choices_reach_the_model(agent: RealAgent) -> None:
    listed = pi_lists(agent)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        await wait_for(lambda: "thinking_level" in options_of(client))
        shown = options_of(client)
        assert sorted(o["value"] for o in shown["model"]["options"]) == sorted(listed)
        assert shown["model"]["currentValue"] == "fake/fake-model"
        level = shown["thinking_level"]
        assert level["category"] == "thought_level"
        assert [o["value"] for o in level["options"]] == ["off", "minimal", "low", "medium", "high"]

        answer = await conn.set_config_option(session_id=sid, config_id="thinking_level", value="high")
        assert current_values(answer)["thinking_level"] == "high"
        assert (await prompt(conn, sid, "Think hard.")).stop_reason == "end_turn"
        first = chat_requests(agent.server)[-1]
        assert (first["model"], first.get("reasoning_effort")) == ("fake-model", "high")

        await conn.set_config_option(session_id=sid, config_id="model", value="fake/other-model")
        answer = await conn.set_config_option(session_id=sid, config_id="thinking_level", value="low")
        now = current_values(answer)
        assert (now["model"], now["thinking_level"]) == ("fake/other-model", "low")
        assert (await prompt(conn, sid, "Now lightly.")).stop_reason == "end_turn"
        second = chat_requests(agent.server)[-1]
        assert (second["model"], second.get("reasoning_effort")) == ("other-model", "low")

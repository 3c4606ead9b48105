"""What the real-CLI tests of an agent's own controls share: an agent whose scripted model only says "Noted." (the
tests read the model requests, not the answers), the config options the editor was shown last, and a wait."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.e2e.harness import RealAgent
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient


def noting(real: RealAgent) -> RealAgent:
    """``real`` with its model server started: every turn is answered "Noted."."""
    real.server = ModelServer({"steps": [{"blocks": [{"text": "Noted."}]}], "done_text": "Noted."}, delta_delay=0)
    real.server.start()
    return real


def options_of(client: RecordingClient) -> dict[str, Any]:
    """The config options the editor was shown last, by id (as plain dicts)."""
    updates = client.of("config_option_update")
    shown = updates[-1].config_options if updates else []
    return {o["id"]: o for o in (option.model_dump(by_alias=True, exclude_none=True) for option in shown)}


async def wait_for(predicate: Any, timeout: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.1)

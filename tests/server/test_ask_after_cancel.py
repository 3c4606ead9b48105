"""A question the agent asks after the person cancelled the turn is never put to the person.

omp (seen on the real CLI under load) hears "cancelled" for the open question and goes on to its next step — a new
model request and a new question — before it reads ``session/cancel``. The person already said stop: acp-mux answers
that question "no" itself, and the editor sees one dialog (the one the cancel closed), never a second one flashing
open and shut. Driven through the real session (``LiveSession``: its run, its permission flow) with an agent in
memory that asks again after each answer, as omp did.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.server.sessions.live_session import BridgeConfig, LiveSession
from acp_mux.server.records.store import SessionRecord, SessionStore
from tests.server.memory_agents import AsksAgainAdapter, AsksAgainAgent


@dataclass
class Editor:
    """Holds every dialog open (the person has not answered yet)."""

    asked: list[dict[str, Any]] = field(default_factory=list)
    never: asyncio.Future[object] = field(default_factory=lambda: asyncio.get_running_loop().create_future())

    async def request(self, method: str, params: Any) -> object:
        assert method == "session/request_permission"
        self.asked.append(dict(params))
        return await self.never


async def test_a_question_asked_after_the_cancel_is_answered_no_without_asking_the_person(tmp_path: Path) -> None:
    editor = Editor()
    agent = AsksAgainAgent(questions=3)
    session = LiveSession(
        SessionRecord(session_id="s1", agent="a", cwd=str(tmp_path)),
        AsksAgainAdapter("a"),
        BridgeConfig(agent="a"),
        SessionStore(tmp_path),
        send_update=lambda _sid, _payload: None,
        request=editor.request,
    )

    async def spawn(_spec: SpawnSpec) -> AsksAgainAgent:
        return agent

    with mock.patch("acp_mux.core.run.handle.spawn", spawn):
        session.warm()
        try:
            turn = asyncio.ensure_future(session.prompt([{"type": "text", "text": "go"}]))
            while not editor.asked:
                await asyncio.sleep(0.01)
            await session.cancel()
            result = await asyncio.wait_for(turn, 5)
        finally:
            await session.close()
    assert result == {"stopReason": "cancelled"}
    assert agent.cancels == 1
    # one dialog, about the first step; the agent's later questions were answered without the person
    assert len(editor.asked) == 1, editor.asked
    assert [(a["answer"], a["approve"]) for a in agent.answers] == [("1", False), ("2", False), ("3", False)]
    assert {a["reason"] for a in agent.answers} == {"The turn was cancelled."}

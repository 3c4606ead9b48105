"""Through ``import acp_mux``: after ``run.cancel()`` no policy decides anything more. A question the agent asks once
the turn is cancelled (omp goes on to its next step before it reads the cancel) is answered "no" without calling
the callback, whatever the callback or a rule would have said: a stop is never followed by an allow."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any
from unittest import mock

import acp_mux
from acp_mux.api.session import CANCEL_WAIT_S, Run
from acp_mux.core.process.spawn import SpawnSpec
from tests.server.memory_agents import AsksAgainAdapter, AsksAgainAgent, MemoryProcess


async def test_no_question_after_the_cancel_reaches_the_callback(tmp_path: Path) -> None:
    agent = AsksAgainAgent(questions=3)
    asked: list[acp_mux.ApprovalRequest] = []
    first_asked = asyncio.Event()
    never: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    async def callback(request: acp_mux.ApprovalRequest) -> bool:
        asked.append(request)
        if len(asked) == 1:
            first_asked.set()
            return await never  # the person has not answered yet when the cancel comes
        return True  # anything asked later would be allowed, if it were asked

    async def spawn(_spec: SpawnSpec) -> AsksAgainAgent:
        return agent

    with (
        mock.patch.object(Run, "_adapter_for", staticmethod(lambda *_args: AsksAgainAdapter("a"))),
        mock.patch("acp_mux.core.run.handle.spawn", spawn),
    ):
        policy = acp_mux.ask(callback, allow=("execute:echo step-2",))
        async with acp_mux.run("a", "go", cwd=tmp_path, approvals=policy, state_dir=tmp_path / "state") as run:
            reading = asyncio.ensure_future(run.wait())  # the caller reads the turn while it cancels
            await asyncio.wait_for(first_asked.wait(), 5)
            started = time.monotonic()
            await run.cancel()
            cancelling = time.monotonic() - started
            result = await asyncio.wait_for(reading, 5)
    assert result.stop_reason == "cancelled"
    assert cancelling < CANCEL_WAIT_S  # the turn ended at once: cancel() does not wait out its limit
    assert len(asked) == 1
    assert [(a["answer"], a["approve"]) for a in agent.answers] == [("1", False), ("2", False), ("3", False)]
    assert {a["reason"] for a in agent.answers} == {"The turn was cancelled."}


class AcpAgentInMemory(MemoryProcess):
    """An ACP agent (gemini's protocol) that asks one permission on a prompt and answers the prompt ``cancelled``
    once it reads ``session/cancel``; it keeps what it heard back for its question."""

    QUESTION_ID = 100

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[dict[str, Any]] = []
        self.prompt_id: Any = None

    def _say(self, message: dict[str, Any]) -> None:
        self.say(json.dumps({"jsonrpc": "2.0", **message}))

    async def write(self, data: str | bytes) -> None:
        for text in (data.decode() if isinstance(data, bytes) else data).splitlines():
            message = json.loads(text)
            method = message.get("method")
            if method == "initialize":
                self._say({"id": message["id"], "result": {"protocolVersion": 1, "agentCapabilities": {}}})
            elif method == "session/new":
                self._say({"id": message["id"], "result": {"sessionId": "s-1"}})
            elif method == "session/prompt":
                self.prompt_id = message["id"]
                tool_call = {"toolCallId": "t1", "title": "rm -rf build", "kind": "execute", "status": "pending"}
                options = [
                    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
                ]
                params = {"sessionId": "s-1", "toolCall": tool_call, "options": options}
                self._say({"id": self.QUESTION_ID, "method": "session/request_permission", "params": params})
            elif message.get("id") == self.QUESTION_ID and "method" not in message:
                self.answers.append(message)
            elif method == "session/cancel":
                self._say({"id": self.prompt_id, "result": {"stopReason": "cancelled"}})


async def test_a_cancel_answers_an_acp_agents_open_question_cancelled_as_acp_says(tmp_path: Path) -> None:
    """ACP: on ``session/cancel`` the client answers every pending permission request with the ``cancelled``
    outcome. From Python, the open question is answered that way once, never with the agent's "reject" option
    first (the agent would take it as the person refusing and go on)."""
    from acp_mux.adapters.acp_agents.gemini import GeminiAdapter

    agent = AcpAgentInMemory()
    asked = asyncio.Event()
    never: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    async def callback(request: acp_mux.ApprovalRequest) -> bool:
        asked.set()
        return await never

    async def spawn(_spec: SpawnSpec) -> AcpAgentInMemory:
        return agent

    with (
        mock.patch.object(Run, "_adapter_for", staticmethod(lambda *_args: GeminiAdapter())),
        mock.patch("acp_mux.core.run.handle.spawn", spawn),
    ):
        policy = acp_mux.ask(callback)
        async with acp_mux.run("gemini", "go", cwd=tmp_path, approvals=policy, state_dir=tmp_path / "state") as run:
            reading = asyncio.ensure_future(run.wait())
            await asyncio.wait_for(asked.wait(), 5)
            await run.cancel()
            result = await asyncio.wait_for(reading, 5)
    assert result.stop_reason == "cancelled"
    assert [a["result"] for a in agent.answers] == [{"outcome": {"outcome": "cancelled"}}]

"""Through ``import acp_mux``: after ``run.cancel()`` no policy decides anything more. A question the agent asks once
the turn is cancelled (omp goes on to its next step before it reads the cancel) is answered "no" without calling
the callback, whatever the callback or a rule would have said: a stop is never followed by an allow."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from unittest import mock

import acp_mux
from acp_mux.api.session import CANCEL_WAIT_S, Run
from acp_mux.core.process import SpawnSpec
from tests.server.memory_agents import AsksAgainAdapter, AsksAgainAgent


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
        mock.patch("acp_mux.core.run.spawn", spawn),
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

"""An agent process the adapter says is spent (``ParseContext.process_spent``: copilot after a turn it stopped by
itself) never gets another prompt: the next prompt goes to a new process, started with the agent's session to
resume, and the spent one is gone before it starts (never two processes of one session). Through the real session
(``LiveSession``) with agents in memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable
from unittest import mock

from acp_mux.core.events import union as ev
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.core.run.prompt import Prompt
from acp_mux.server.sessions.live_session import BridgeConfig, LiveSession
from acp_mux.server.records.store import SessionRecord, SessionStore
from tests.server.memory_agents import MemoryAdapter, MemoryProcess


class OnceAgent(MemoryProcess):
    """Answers every prompt; the first answer of each process stops the turn "by itself" when ``spends``."""

    def __init__(self, spends: bool) -> None:
        super().__init__()
        self.spends, self.prompts = spends, 0
        self.say("ready")

    async def write(self, data: str | bytes) -> None:
        if "prompt" in json.loads(data):
            self.prompts += 1
            self.say("stopped-itself" if self.spends and self.prompts == 1 else "answer")


class SpendingAdapter(MemoryAdapter):
    def __init__(self, resumed: list[str | None]) -> None:
        super().__init__("a")
        self.resumed = resumed

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        self.resumed.append(options.session_id)  # the session each new process is to resume
        return SpawnSpec(command="a", args=[])

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        ctx.send({"prompt": prompt.as_text()})

    def parse_other(self, line: str, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        if line == "stopped-itself":
            ctx.process_spent = True
            return ctx.begin_turn() + ctx.text_delta("cut") + ctx.end_text() + [ev.InterruptedEvent()] + ctx.end_turn()
        return ctx.begin_turn() + ctx.text_delta("whole answer") + ctx.end_text() + ctx.end_turn()


async def test_the_prompt_after_a_spent_process_goes_to_a_new_one_that_resumes_the_session(tmp_path: Path) -> None:
    processes: list[OnceAgent] = []
    resumed: list[str | None] = []

    async def spawn(_spec: SpawnSpec) -> OnceAgent:
        alive = [p for p in processes if not p.exited]
        assert not alive, "a new process while the spent one still runs"
        processes.append(OnceAgent(spends=not processes))
        return processes[-1]

    session = LiveSession(
        SessionRecord(session_id="s1", agent="a", cwd=str(tmp_path)),
        SpendingAdapter(resumed),
        BridgeConfig(agent="a"),
        SessionStore(tmp_path),
        send_update=lambda _sid, _payload: None,
        request=lambda _method, _params: None,
    )
    with mock.patch("acp_mux.core.run.handle.spawn", spawn):
        session.warm()
        try:
            first = await session.prompt([{"type": "text", "text": "long reply"}])
            second = await session.prompt([{"type": "text", "text": "again"}])
            third = await session.prompt([{"type": "text", "text": "and again"}])
        finally:
            await session.close()
    assert first == {"stopReason": "cancelled"}
    assert second == third == {"stopReason": "end_turn"}
    assert [p.prompts for p in processes] == [1, 2]  # the spent process got no second prompt; the new one both
    assert processes[0].exited
    assert resumed == [None, "native-a"]  # the new process resumes the agent's own session

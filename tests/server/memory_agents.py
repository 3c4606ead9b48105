"""An agent in memory for the session tests that drive the real ``LiveSession`` (its gate, run, switch, failover):
the process the run reads and writes, and the adapter whose session opens on the line ``ready``.

Each test says what its agent does with a prompt (``write``) and what its other lines mean (``parse_line``); the
process life (its output queue, its end, terminate/kill/wait) and the opening of its session are the same for all,
so they live here once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

from acp_mux.adapters.base import AgentAdapter, AgentCapabilities, PerRun, ToolSpec, ToolTable
from acp_mux.core.events import union as ev
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import ExitStatus, SpawnSpec
from acp_mux.core.run.prompt import Prompt


class MemoryProcess:
    """An agent process in memory: what the run writes goes to :meth:`write`, what :meth:`say` puts is its output."""

    def __init__(self) -> None:
        self.agent_pid = self.pid = 0
        self.on_stderr_line: Any = None
        self._out: asyncio.Queue[str | None] = asyncio.Queue()
        self._exit: ExitStatus | None = None

    def say(self, line: str) -> None:
        """The agent writes ``line`` on its stdout."""
        self._out.put_nowait(line)

    def stderr_tail(self) -> str:
        return ""

    async def line_batches(self, most: int) -> AsyncIterator[list[str]]:
        """As the real process: every line already said at once (at most ``most``), else the next one."""
        while (line := await self._out.get()) is not None:
            batch = [line]
            while len(batch) < most and not self._out.empty():
                if (more := self._out.get_nowait()) is None:
                    yield batch
                    return
                batch.append(more)
            yield batch

    def hold_output(self, seconds: float) -> None:
        """The run asks for a pause in reading after streamed text: lines in memory cost no wake-up, so none."""

    async def write(self, data: str | bytes) -> None:
        """What the run sent the agent (a test's agent overrides this to answer)."""

    @property
    def exited(self) -> bool:
        return self._exit is not None

    def _end(self, status: ExitStatus) -> None:
        if self._exit is None:
            self._exit = status
            self._out.put_nowait(None)

    async def close_stdin(self) -> None:
        self._end(ExitStatus(code=0, signal=None))

    async def terminate(self, grace: float = 5.0) -> ExitStatus:
        self._end(ExitStatus(code=None, signal="SIGTERM"))
        return await self.wait()

    def kill(self) -> None:
        self._end(ExitStatus(code=None, signal="SIGKILL"))

    def interrupt(self) -> None:
        pass

    async def wait(self) -> ExitStatus:
        while self._exit is None:
            await asyncio.sleep(0)
        return self._exit


@dataclass
class OpenedRun(PerRun):
    """Whether the run's agent said ``ready`` (its session is open: it takes prompts)."""

    ready: bool = False
    KEY = "memory_agent_ready"


class MemoryAdapter(AgentAdapter):
    """An adapter for a :class:`MemoryProcess`: one persistent process, prompts only once it said ``ready``."""

    capabilities = AgentCapabilities(persistent_process=True)

    def __init__(self, name: str) -> None:
        self.name = name

    def startup_problem(self, override: str | None = None, env: dict[str, str] | None = None) -> str | None:
        return None

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        return SpawnSpec(command=self.name, args=[])

    def accepts_prompts(self, ctx: ParseContext) -> bool:
        return OpenedRun.of(ctx).ready

    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        """``ready`` opens the agent's session; a test's agent reads its other lines."""
        if line == "ready":
            OpenedRun.of(ctx).ready = True
            return ctx.session_start(f"native-{self.name}")
        return self.parse_other(line, ctx)

    def parse_other(self, line: str, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        return []


class AsksAgainAgent(MemoryProcess):
    """An agent that asks about ``bash`` on a prompt and, after any answer to question N, asks question N+1 (its next
    step), up to ``questions``, then ends the turn. A cancel is only noted: it comes too late, as omp's did under load
    (tests/server/test_ask_after_cancel.py)."""

    def __init__(self, questions: int) -> None:
        super().__init__()
        self.questions = questions
        self.answers: list[dict[str, Any]] = []
        self.cancels = 0
        self.say("ready")

    async def write(self, data: str | bytes) -> None:
        message = json.loads(data)
        if "prompt" in message:
            self.say("begin")
            self.say("ask:1")
        elif "answer" in message:
            self.answers.append(message)
            asked = int(message["answer"])
            self.say(f"ask:{asked + 1}" if asked < self.questions else "end")
        elif "cancel" in message:
            self.cancels += 1


class AsksAgainAdapter(MemoryAdapter):
    """The adapter of an :class:`AsksAgainAgent`: ``ask:N`` is a question, ``begin``/``end`` the turn's edges."""

    tool_table = ToolTable({"bash": ToolSpec(kind="execute", title="{command}", command_arg="command")})

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        ctx.send({"prompt": prompt.as_text()})

    def interrupt(self, ctx: ParseContext) -> bool:
        ctx.send({"cancel": 1})
        return True

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        ctx.send({"answer": interaction_id, "approve": decision.approve, "reason": decision.reason})

    def parse_other(self, line: str, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        if line == "begin":
            return ctx.begin_turn()
        if line == "end":
            return ctx.end_turn()
        number = line.removeprefix("ask:")
        command = f"echo step-{number}"
        return [
            ev.ApprovalRequestEvent(interaction_id=number, action=command, tool_name="bash", input={"command": command})
        ]

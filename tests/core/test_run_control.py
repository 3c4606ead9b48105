"""The rest of RunHandle's spec surface (spec 002 §2, §4) over a real child process: deferred prompts
(``queue``/``steer`` and their boundaries), ``off``, the model a switch leaves, and the token summary of the result.

The agent is ``echo_stdin.py``: every line written to its stdin comes back as ``echo:<line>``, so what the handle
writes is exactly what the adapter sees next. The adapter below turns each echoed JSON object into events:
``{"say": t}`` a whole message, ``{"tool": id}`` a finished tool call, ``{"end": 1}`` a turn end,
``{"ask": id}`` an approval request, ``{"question": id}`` a question, ``{"usage": [in, out, thinking]}`` token usage.
A prompt the handle delivers (``continue_``, or a queued one) is written as ``{"say": <prompt text>}``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterable

import pytest

from acp_mux.adapters.base import AgentAdapter
from acp_mux.core.events import union as ev
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.core.run.prompt import Prompt
from acp_mux.core.run.handle import RunHandle, start_run

PROGRAMS = Path(__file__).parent.parent / "fakes" / "programs"
pytestmark = pytest.mark.asyncio


class EchoAdapter(AgentAdapter):
    name = "echo"

    def __init__(self, models: tuple[str, ...] = ()) -> None:
        self.answers: list[tuple[str, bool, str | None]] = []
        self.switchable = models

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        return SpawnSpec(sys.executable, [str(PROGRAMS / "echo_stdin.py")], cwd=options.cwd)

    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        if not line.startswith("echo:"):
            return []
        m = json.loads(line[len("echo:") :])
        if "say" in m:
            return ctx.text_delta(m["say"]) + ctx.end_text()
        if "tool" in m:
            return ctx.tool_start(m["tool"], "Bash", {"command": "true"}) + ctx.tool_result(m["tool"], "ok")
        if "end" in m:
            return ctx.end_turn()
        if "ask" in m:
            return [ev.ApprovalRequestEvent(interaction_id=m["ask"], action="run")]
        if "question" in m:
            return [ev.InputRequiredEvent(interaction_id=m["question"], question="which file?")]
        if "usage" in m:
            i, o, t = m["usage"]
            return ctx.begin_turn() + [ev.TokenUsageEvent(input_tokens=i, output_tokens=o, thinking_tokens=t)]
        return []

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        ctx.send({"say": prompt.as_text()})

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        self.answers.append((interaction_id, decision.approve, decision.reason))

    def set_model(self, model: str, ctx: ParseContext) -> bool:
        return model in self.switchable


def _start(tmp_path: Path, adapter: EchoAdapter | None = None) -> tuple[RunHandle, EchoAdapter]:
    adapter = adapter or EchoAdapter()
    return start_run(adapter, RunOptions(agent="echo", cwd=str(tmp_path), model="m-1")), adapter


async def _until(events: AsyncIterator[ev.BaseEvent], done: Callable[[ev.BaseEvent], bool]) -> list[ev.BaseEvent]:
    """Read ``events`` up to and including the first one ``done`` accepts (a hang fails instead of blocking)."""
    seen: list[ev.BaseEvent] = []

    async def read() -> list[ev.BaseEvent]:
        async for event in events:
            seen.append(event)
            if done(event):
                return seen
        raise AssertionError(f"the run ended first: {[e.type for e in seen]}")

    try:
        return await asyncio.wait_for(read(), 30)
    except TimeoutError:
        raise AssertionError(f"never came; saw {[e.type for e in seen]}") from None


def _said(text: str) -> Callable[[ev.BaseEvent], bool]:
    return lambda e: e.type == "message_stop" and e.text == text


def _stops(seen: list[ev.BaseEvent]) -> list[str]:
    return [e.text for e in seen if e.type == "message_stop"]


async def _send(handle: RunHandle, **message: Any) -> None:
    """One line to the echo agent's stdin, as the agent itself would have produced it."""
    await handle._until_spawned()
    assert handle._proc is not None
    await handle._proc.write(json.dumps(message) + "\n")


async def test_a_model_switch_the_agent_applies_is_the_runs_model(tmp_path):
    handle, _ = _start(tmp_path, EchoAdapter(models=("m-2",)))
    assert handle.model == "m-1"
    assert await handle.set_model("m-3") is False and handle.model == "m-1"  # needs a restart: unchanged
    assert await handle.set_model("m-2") is True and handle.model == "m-2"
    await handle.close(5)
    assert (await handle).model == "m-2"


async def test_the_result_sums_token_usage_with_its_total(tmp_path):
    handle, _ = _start(tmp_path)
    events = handle.events()
    await _send(handle, usage=[100, 20, 5])
    await _send(handle, usage=[50, 10, 0])
    await _send(handle, end=1)
    await _until(events, lambda e: e.type == "turn_end")
    await handle.close(5)
    usage = (await asyncio.wait_for(handle.result(), 10)).token_usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.thinking_tokens) == (150, 30, 5)


class SlowStartAdapter(EchoAdapter):
    """The echo agent, started only once ``go`` is set (a process still starting, as a warmed agent is when the
    editor's prompt comes right after session/new). ``handshake``: it takes prompts only once its own handshake
    came back (an ACP agent's ``session/new``), else at once (claude's stream-json)."""

    def __init__(self, handshake: bool) -> None:
        super().__init__()
        self.go = asyncio.Event()
        self.handshake = handshake

    async def prepare(self, options: RunOptions) -> None:
        await self.go.wait()

    def start(self, options: RunOptions, ctx: ParseContext) -> None:
        if self.handshake:
            ctx.send({"hello": 1})

    def accepts_prompts(self, ctx: ParseContext) -> bool:
        return not self.handshake or ctx.session_id is not None

    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        if line.startswith("echo:") and "hello" in json.loads(line[len("echo:") :]):
            return ctx.session_start("s-1")
        return super().parse_line(line, ctx)


@pytest.mark.parametrize("handshake", [False, True], ids=["takes-prompts-at-once", "after-its-handshake"])
async def test_an_interrupt_while_the_process_starts_withdraws_the_prompt_given_meanwhile(tmp_path, handshake):
    """The editor's prompt reaches a warmed run whose process is still starting, and its cancel comes right behind
    it (CI caught the prompt going out anyway and its whole answer shown after the cancel): the prompt never
    reaches the agent, its turn ends interrupted once the agent could have taken it, and the process lives on to
    answer the next prompt (it was not signalled: nothing of a turn ran there)."""
    adapter = SlowStartAdapter(handshake)
    handle = start_run(adapter, RunOptions(agent="echo", cwd=str(tmp_path)))
    events = handle.events()
    given = asyncio.ensure_future(handle.continue_("withdrawn"))
    await asyncio.sleep(0.05)
    assert not given.done()  # waiting for the process
    await handle.interrupt()
    adapter.go.set()
    await asyncio.wait_for(given, 10)
    seen = await _until(events, lambda e: e.type == "turn_end")
    await handle.continue_("next")
    seen += await _until(events, _said("next"))
    assert "withdrawn" not in _stops(seen) and not handle.done
    assert [e.type for e in seen if e.type in ("interrupted", "turn_start", "turn_end")][:3] == [
        "interrupted",
        "turn_start",
        "turn_end",
    ]
    await handle.close(5)
    assert "withdrawn" not in (await asyncio.wait_for(handle.result(), 10)).text


async def test_an_interrupt_before_the_process_starts_withdraws_the_runs_first_prompt(tmp_path):
    """The same for a run started with its prompt (no warm process: after a switch, or from Python): interrupted
    before its process runs, the prompt waiting for the agent's handshake never goes out, and its turn ends."""
    adapter = SlowStartAdapter(handshake=True)
    handle = start_run(adapter, RunOptions(agent="echo", cwd=str(tmp_path), prompt=Prompt.of_text("withdrawn")))
    events = handle.events()
    await handle.interrupt()
    adapter.go.set()
    seen = await _until(events, lambda e: e.type == "turn_end")
    await handle.continue_("next")
    seen += await _until(events, _said("next"))
    assert "withdrawn" not in _stops(seen) and not handle.done
    await handle.close(5)

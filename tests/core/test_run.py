"""RunHandle over small fake agent programs: ordering, terminal states, control, timeouts, fan-out, handlers."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Iterable

import pytest

from acp_mux.core.events import union as ev
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.events.errors import AgentMuxError
from acp_mux.core.run.interaction import Approve, Deny
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.run import handle as run_module
from acp_mux.core.text.delta_join import JOINABLE
from acp_mux.core.process.spawn import ExitStatus, PipeProcess, SpawnSpec
from acp_mux.core.process.spawn import SpawnError
from acp_mux.core.run.handle import RunState, start_run
from acp_mux.adapters.base import AgentAdapter
from acp_mux.adapters.base import get_adapter

PROGRAMS = Path(__file__).parent.parent / "fakes" / "programs"


class LinesAdapter(AgentAdapter):
    """Native format of the fakes: JSON lines {"t": "text"|"tool"|"result"|"approval"|"session"|"end", ...}."""

    name = "fake"

    def __init__(self, program: str, *args: str) -> None:
        self.program, self.args = program, list(args)
        self.answers: list[tuple[str, bool]] = []

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        return SpawnSpec(sys.executable, [str(PROGRAMS / self.program), *self.args], cwd=options.cwd)

    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        if line.startswith("RAISE"):
            raise ValueError("adapter bug")
        try:
            m = json.loads(line)
        except ValueError:
            return [ev.LogEvent(source="stdout", line=line)]
        t = m.get("t")
        if t == "session":
            return ctx.session_start(m["id"])
        if t == "text":
            return ctx.text_delta(m["v"])
        if t == "tool":
            return ctx.tool_start(m["id"], m["name"], m.get("input", {}))
        if t == "result":
            return ctx.tool_result(m["id"], m.get("v"))
        if t == "approval":
            return [ev.ApprovalRequestEvent(interaction_id=m["id"], action="run", tool_call_id=m.get("tool"))]
        if t == "end":
            return ctx.end_turn()
        return []

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        self.answers.append((interaction_id, decision.approve))

    def finish(self, status: ExitStatus, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        return ctx.finish(status)


def lines(*objs: Any) -> list[str]:
    return [json.dumps(o) for o in objs]


def options(tmp_path: Path, **kw: Any) -> RunOptions:
    return RunOptions(agent="fake", cwd=str(tmp_path), **kw)


STORY = lines(
    {"t": "session", "id": "s-1"},
    {"t": "text", "v": "Hel"},
    {"t": "text", "v": "lo"},
    {"t": "tool", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
    {"t": "result", "id": "t1", "v": "ok"},
    {"t": "text", "v": "Done"},
    {"t": "end"},
)


async def test_completed_run_keeps_the_ordering_contract(tmp_path):
    handle = start_run(LinesAdapter("emit_lines.py", *STORY), options(tmp_path))
    seen = [e async for e in handle]
    result = await handle
    types = [e.type for e in seen if e.type not in ("debug", "log")]
    # "Hel" and "lo" arrive as two deltas, or as one when both lines came in one read (core/text/delta_join.py)
    types = [t for i, t in enumerate(types) if not (t == "text_delta" and types[i - 1] == "text_delta")]
    assert types == [
        "session_start",
        "turn_start",
        "message_start",
        "text_delta",
        "message_stop",
        "tool_call_start",
        "tool_call_ready",
        "tool_result",
        "message_start",
        "text_delta",
        "message_stop",
        "turn_end",
        "session_end",
    ]
    assert all(e.run_id == handle.run_id and e.agent == "fake" for e in seen)
    stamps = [e.timestamp for e in seen]
    assert stamps == sorted(stamps)
    assert result.exit_reason == "completed" and result.exit_code == 0
    assert result.text == "HelloDone" and result.turn_count == 1 and result.session_id == "s-1"
    first_message = [e for e in seen if e.type == "text_delta"][:-1]
    assert "".join(e.delta for e in first_message) == "Hello" and first_message[-1].accumulated == "Hello"
    assert handle.state == RunState.COMPLETED


async def test_fan_out_iterators_and_late_replay(tmp_path):
    handle = start_run(LinesAdapter("emit_lines.py", *STORY), options(tmp_path))
    first, second = handle.events(), handle.events()
    a = [e.type async for e in first]
    b = [e.type async for e in second]
    late = [e.type async for e in handle]  # after completion: the buffer replays
    assert a == b == late and "turn_end" in a


async def test_handlers_on_and_a_raising_handler(tmp_path):
    handle = start_run(LinesAdapter("emit_lines.py", "--delay", "0.05", *STORY), options(tmp_path))
    every: list[str] = []

    def boom(event: Any) -> None:
        raise RuntimeError("handler exploded")

    handle.on("text_delta", lambda e: every.append(e.delta))
    handle.on("text_delta", boom)
    seen = [e async for e in handle]
    assert every == ["Hel", "lo", "Done"]  # every handler still gets every event
    # ... and the turn the handler failed in ends failed, once, before its end (issue 39: never logged and forgotten)
    [failed] = [e for e in seen if e.type == "error"]
    assert failed.code == "INTERNAL" and "text_delta" in failed.message and "handler exploded" in failed.message
    types = [e.type for e in seen]
    assert types.index("error") < types.index("turn_end")


async def test_a_star_handler_sees_every_event_in_emission_order(tmp_path):
    """``on("*")`` is how a session logs its runs: every event, as emitted, whoever iterates."""
    handle = start_run(LinesAdapter("emit_lines.py", *STORY), options(tmp_path))
    everything: list[str] = []
    handle.on("*", lambda e: everything.append(e.type))
    seen = [e.type async for e in handle]
    assert everything == seen and "text_delta" in everything and everything[-1] == "session_end"


async def test_crash_mid_stream_reports_exit_code_and_stderr(tmp_path):
    handle = start_run(LinesAdapter("crash.py", "--code", "7", "--stderr", "kaboom"), options(tmp_path))
    seen = [e async for e in handle]
    result = await handle
    crash = [e for e in seen if e.type == "crash"]
    assert crash and crash[0].exit_code == 7 and "kaboom" in crash[0].stderr
    assert result.exit_reason == "crashed" and result.error.code == "AGENT_CRASH"


async def test_missing_binary_is_a_crash_with_minus_one(tmp_path):
    adapter = LinesAdapter("emit_lines.py")
    adapter.build_spawn = lambda o: SpawnSpec("definitely-not-an-agent-binary")  # type: ignore[method-assign]
    handle = start_run(adapter, options(tmp_path))
    seen = [e async for e in handle]
    assert [e.type for e in seen] == ["crash"]
    assert seen[0].exit_code == -1 and "definitely-not-an-agent-binary" in seen[0].stderr
    assert (await handle).exit_reason == "crashed"


class PreparedAdapter(LinesAdapter):
    """Needs something ready before its process starts (as openclaw needs its gateway)."""

    def __init__(self, *args: str, fail: str | None = None) -> None:
        super().__init__("emit_lines.py", *args)
        self.ready = asyncio.Event()
        self.spawned_after_ready: bool | None = None
        self.fail = fail

    async def prepare(self, options: RunOptions) -> None:
        await self.ready.wait()
        if self.fail:
            raise SpawnError(self.fail)

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        self.spawned_after_ready = self.ready.is_set()
        return super().build_spawn(options)


async def test_the_agent_starts_only_once_its_prepare_is_done(tmp_path):
    adapter = PreparedAdapter(*STORY)
    handle = start_run(adapter, options(tmp_path))
    await asyncio.sleep(0.2)
    assert adapter.spawned_after_ready is None and not handle.done
    adapter.ready.set()
    assert (await handle).exit_reason == "completed" and adapter.spawned_after_ready is True


async def test_a_failed_prepare_ends_the_run_with_its_message(tmp_path):
    adapter = PreparedAdapter(fail="the gateway did not start: port in use")
    adapter.ready.set()
    handle = start_run(adapter, options(tmp_path))
    seen = [e async for e in handle]
    assert [e.type for e in seen] == ["crash"] and "port in use" in seen[0].stderr
    assert adapter.spawned_after_ready is None


async def test_abort_kills_the_whole_group(tmp_path):
    handle = start_run(LinesAdapter("hang.py", "--ignore-term", "--grandchild"), options(tmp_path, grace_period_s=0.5))
    async for event in handle:
        if event.type == "log" and event.line.startswith("grandchild"):
            break
    proc = handle._proc
    assert proc is not None and proc.group_alive()
    await handle.abort()
    result = await handle
    assert result.exit_reason == "aborted" and handle.state == RunState.ABORTED
    assert not proc.group_alive()
    with pytest.raises(AgentMuxError) as err:
        await handle.interrupt()
    assert err.value.code == "RUN_NOT_ACTIVE"
    await handle.abort()  # a second abort is a no-op


async def test_interrupt_then_abort(tmp_path):
    handle = start_run(LinesAdapter("hang.py"), options(tmp_path, grace_period_s=0.5))
    async for event in handle.events():  # its SIGINT handler is installed once it says "ready" (on a slow machine
        if event.type == "log" and event.line.strip() == "ready":  # a SIGINT before that would end it)
            break
    await handle.interrupt()  # hang.py reports the SIGINT on stdout and keeps running
    assert handle.state == RunState.INTERRUPTED
    async for event in handle.events():
        if event.type == "log" and "sigint" in event.line.lower():
            break
    await handle.abort()
    result = await asyncio.wait_for(handle.result(), 5)
    types = [e.type async for e in handle]
    assert types.index("interrupted") < types.index("aborted")
    assert result.exit_reason == "aborted"


async def test_run_timeout_and_inactivity_timeout(tmp_path):
    run_limited = start_run(LinesAdapter("hang.py"), options(tmp_path, timeout_s=0.5, grace_period_s=0.3))
    assert (await asyncio.wait_for(run_limited.result(), 5)).exit_reason == "timeout"
    idle = start_run(
        LinesAdapter("hang.py"),
        options(tmp_path, inactivity_timeout_s=0.5, grace_period_s=0.3, prompt=None),
    )
    idle._busy = True  # a turn is in flight
    result = await asyncio.wait_for(idle.result(), 5)
    assert result.exit_reason == "inactivity"
    assert [e.kind async for e in idle if e.type == "timeout"] == ["inactivity"]


async def test_approvals_wait_for_an_answer_through_the_channel(tmp_path):
    story = lines({"t": "tool", "id": "t1", "name": "Bash"}, {"t": "approval", "id": "a1", "tool": "t1"})
    adapter = LinesAdapter("emit_lines.py", "--delay", "0.3", *story, '{"t": "end"}')
    handle = start_run(adapter, options(tmp_path))
    while not handle.interaction.pending:
        await asyncio.sleep(0.02)
    assert handle.interaction.pending[0].tool_call_id == "t1" and handle.interaction.pending[0].id == "a1"
    await handle.interaction.respond("a1", Deny(reason="nope"))
    assert adapter.answers == [("a1", False)] and handle.interaction.pending == []
    with pytest.raises(AgentMuxError) as err:
        await handle.interaction.respond("a1", Approve())
    assert err.value.code == "INTERACTION_NOT_FOUND"
    seen = [e.type async for e in handle]
    assert seen.index("approval_request") < seen.index("approval_denied")


async def test_parser_errors_and_huge_and_invalid_output_never_crash(tmp_path):
    huge = start_run(LinesAdapter("huge_line.py", "20"), options(tmp_path))
    big = [e for e in [x async for x in huge] if e.type == "log"]
    assert max(len(e.line) for e in big) >= 20 * 1024 * 1024
    assert (await huge).exit_reason == "completed"
    broken = start_run(LinesAdapter("emit_lines.py", "RAISE now", '{"t": "text", "v": "after"}'), options(tmp_path))
    seen = [e async for e in broken]
    assert any(e.type == "debug" and "adapter bug" in e.message for e in seen)
    assert (await broken).text == "after"
    utf = start_run(LinesAdapter("bad_utf8.py"), options(tmp_path))
    assert (await utf).exit_reason == "completed"


async def test_a_line_the_adapter_cannot_read_costs_itself_only_and_keeps_its_place_among_joined_deltas(tmp_path):
    """Lines read together are handled as one burst (their deltas joined): a line that makes the adapter raise is
    one warning, in its place, and the text on either side of it stays on that side."""
    story = lines({"t": "session", "id": "s"}, {"t": "text", "v": "a"}, {"t": "text", "v": "b"})
    story += ["RAISE now", *lines({"t": "text", "v": "c"}, {"t": "text", "v": "d"}, {"t": "end"})]
    handle = start_run(LinesAdapter("emit_lines.py", *story), options(tmp_path))
    seen = [e async for e in handle]
    warnings = [i for i, e in enumerate(seen) if e.type == "debug" and "adapter bug" in e.message]
    assert len(warnings) == 1
    text = [
        "".join(e.delta for e in part if e.type == "text_delta") for part in (seen[: warnings[0]], seen[warnings[0] :])
    ]
    assert text == ["ab", "cd"]
    assert (await handle).text == "abcd"


async def test_buffer_high_water_mark_drops_with_a_warning(tmp_path):
    # a tool call between texts: deltas of one burst would otherwise be joined into a few events (core/text/delta_join.py)
    many = [
        json.dumps(line)
        for i in range(300)
        for line in ({"t": "text", "v": f"w{i} "}, {"t": "tool", "id": f"t{i}", "name": "Bash", "input": {}})
    ]
    handle = start_run(LinesAdapter("emit_lines.py", *many), options(tmp_path, event_buffer_size=50))
    warnings: list[str] = []
    handle.on("debug", lambda e: warnings.append(e.message))
    stalled = handle.events()
    await handle
    got = [e async for e in stalled]
    assert len(got) <= 51
    assert any("Event buffer overflow" in w for w in warnings)
    assert (await handle).text.count("w") == 300  # the result is unaffected by drops


async def test_scripted_agent_persistent_turns_and_in_protocol_interrupt(tmp_path):
    from acp_mux.core.run.prompt import Prompt

    adapter = get_adapter("demo")
    handle = start_run(adapter, RunOptions(agent="demo", cwd=str(tmp_path), prompt=Prompt.of_text("hello one")))
    turn_one = handle.events()
    async for event in turn_one:
        if event.type == "turn_end":
            break
    events = handle.events(from_start=False)
    await handle.continue_("slow")
    async for event in events:
        if event.type == "text_delta" and "word3" in event.delta:
            await handle.interrupt()
        if event.type == "turn_end":
            break
    assert handle.usable
    await handle.close(2.0)
    result = await handle
    assert result.turn_count == 2 and "You said: hello one" in result.text and "word399" not in result.text


def test_the_runs_text_is_kept_joined_not_one_string_per_delta():
    """A persistent agent's run lasts the whole session: its text must not cost a string object per delta."""
    from acp_mux.core.text.joined_text import PIECE_DELTAS, JoinedText
    from acp_mux.core.run.handle import _Accumulator

    acc = _Accumulator()
    parts = JoinedText()
    deltas = [f"w{i} " for i in range(2 * PIECE_DELTAS + 7)]
    for delta in deltas:
        parts.append(delta)
        acc.add(ev.TextDeltaEvent.lazy(delta, parts))
    assert acc.text is not None and acc.text.pieces() == 2 + 7
    assert acc.joined_text() == "".join(deltas)


def test_a_run_told_not_to_collect_its_text_keeps_none_of_it():
    """The bridge reads the text from the events; its session-long run must not hold every word as well."""
    from acp_mux.core.text.joined_text import JoinedText
    from acp_mux.core.run.handle import _Accumulator

    acc = _Accumulator(collect_text=False)
    parts = JoinedText()
    for delta in ("a", "b"):
        parts.append(delta)
        acc.add(ev.TextDeltaEvent.lazy(delta, parts))
    acc.add(ev.TurnEndEvent(turn_index=0))
    assert acc.text is None and acc.joined_text() == "" and acc.turns == 1


@pytest.mark.parametrize("debug", [False, True])
async def test_the_run_pauses_its_reading_after_streamed_text_only(tmp_path, monkeypatch, debug):
    """After a burst whose events were all text deltas the run holds its reading of the agent's output for
    STREAM_PACE_S (the next pieces then come as one read); after a burst with any other event (a message's start,
    a tool call, a line that is not the agent's JSON) it reads on at once. Whatever the bursts, the text is whole and in order."""
    seen: list[ev.BaseEvent] = []
    bursts: list[tuple[list[str], list[str], bool]] = []  # (lines, the types of the events they made, held after)
    handle_lines = run_module.RunHandle._handle_lines

    def recorded(self: Any, batch: list[str]) -> bool:
        before = len(seen)
        streamed = handle_lines(self, batch)
        bursts.append((list(batch), [e.type for e in seen[before:]], streamed))
        return streamed

    holds: list[float] = []
    monkeypatch.setattr(run_module.RunHandle, "_handle_lines", recorded)
    monkeypatch.setattr(PipeProcess, "hold_output", lambda self, seconds: holds.append(seconds))
    words = [f"w{i} " for i in range(12)]
    story = lines({"t": "session", "id": "s-1"}, *({"t": "text", "v": w} for w in words[:6]))
    story += lines({"t": "tool", "id": "t1", "name": "Bash"}, *({"t": "text", "v": w} for w in words[6:]))
    story += ["not json", *lines({"t": "text", "v": "!"}, {"t": "end"})]
    handle = start_run(LinesAdapter("emit_lines.py", "--delay", "0.01", *story), options(tmp_path, debug=debug))
    handle.on("*", seen.append)
    assert (await handle).text == "".join(words) + "!"
    assert [line for burst, _, _ in bursts for line in burst] == story
    for burst, types, streamed in bursts:
        assert streamed == (bool(types) and all(t in JOINABLE for t in types)), burst
    assert holds == [run_module.STREAM_PACE_S] * sum(streamed for _, _, streamed in bursts)
    assert any(streamed for _, _, streamed in bursts) and not all(streamed for _, _, streamed in bursts)


def test_the_result_reads_every_error_event() -> None:
    """The run names the event types its result is built from without importing the event models (they load after
    the agent's spawn): every error event must be among them, or a failure would be missing from the result."""
    errors = {cls.model_fields["type"].default for cls in ev.CATEGORIES["error"]}
    assert errors <= run_module._RESULT_TYPES

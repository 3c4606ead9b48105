"""The session gate's rules under every interleaving hypothesis can schedule (in-process, in event-loop steps):
one holder at a time, in the order sent; a prompt sent while another is accepted is queued, never refused, and runs
after it; a prompt runs only after every switch sent before it, and is refused when the last of them failed; a
cancel withdraws every prompt still waiting (and only those); nothing is left held."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.server.wire.rpc import RpcError
from acp_mux.server.sessions.session_gate import SessionGate

ops = st.lists(
    st.one_of(
        st.tuples(st.just("switch"), st.booleans(), st.integers(0, 4)),  # (kind, fails, steps held)
        st.tuples(st.just("prompt"), st.just(False), st.integers(0, 4)),
        st.tuples(st.just("cancel"), st.just(False), st.just(0)),
        st.tuples(st.just("wait"), st.just(False), st.integers(1, 6)),  # event-loop steps before the next op
    ),
    max_size=14,
)


@dataclass
class Trace:
    holding: int = 0
    most: int = 0
    held: list[int] = field(default_factory=list)  # op indexes in the order they got the gate
    finished: set[int] = field(default_factory=set)
    started: set[int] = field(default_factory=set)


async def run(sequence: list[tuple[str, bool, int]]) -> None:
    gate, trace = SessionGate(), Trace()
    tasks: dict[int, asyncio.Task[str]] = {}

    async def hold(index: int, steps: int) -> None:
        trace.holding += 1
        trace.most = max(trace.most, trace.holding)
        trace.held.append(index)
        trace.started.add(index)
        for _ in range(steps):
            await asyncio.sleep(0)
        trace.holding -= 1

    async def switch(index: int, fails: bool, steps: int) -> str:
        expected[index] = "refused" if pending else "ok/failed"  # the model: refused while a prompt is accepted
        try:
            async with gate.switch(f"switch {index}"):
                await hold(index, steps)
                if fails:
                    raise RpcError(-32603, f"switch {index} cannot start")
        except RpcError as exc:
            return "refused" if "prompt is running" in exc.message else "failed"
        finally:
            trace.finished.add(index)
        return "ok"

    async def prompt(index: int, steps: int) -> str:
        pending.append(index)  # queued behind whatever is accepted: never refused
        before = {i for i in tasks if sequence[i][0] == "switch"}
        outstanding[index] = sorted(before - trace.finished)  # what it queues behind (it is accepted right here)
        try:
            async with gate.turn() as started:
                if not started:
                    return "cancelled"
                assert before <= trace.finished, "a prompt ran before a switch sent ahead of it had finished"
                await hold(index, steps)
        except RpcError as exc:
            return f"error: {exc.message}"
        finally:
            pending.remove(index)
        return "ran"

    cancels: dict[int, bool] = {}
    pending: list[int] = []  # the model's accepted prompt (waiting or running)
    expected: dict[int, str] = {}
    outstanding: dict[int, list[int]] = {}
    for index, (kind, fails, steps) in enumerate(sequence):
        if kind == "switch":
            tasks[index] = asyncio.ensure_future(switch(index, fails, steps))
        elif kind == "prompt":
            tasks[index] = asyncio.ensure_future(prompt(index, steps))
        elif kind == "cancel":
            waiting = [i for i in pending if i not in trace.started and expected.get(i) != "cancelled"]
            for i in waiting:  # every prompt still waiting is withdrawn, not only the first (each once)
                expected[i] = "cancelled"
            withdrawn = gate.withdraw_waiting_prompts()
            assert withdrawn == len(waiting), (withdrawn, waiting)
            cancels[index] = bool(withdrawn)
        for _ in range(steps if kind == "wait" else 1):
            await asyncio.sleep(0)
    outcomes = {i: await t for i, t in tasks.items()}

    assert trace.most <= 1
    for index, want in expected.items():
        assert outcomes[index] in want.split("/") if want == "ok/failed" else outcomes[index] == want, (index, outcomes)
    assert trace.held == sorted(trace.held), "the gate was not taken in the order sent"
    for index, outcome in outcomes.items():
        if sequence[index][0] != "prompt" or outcome == "cancelled":
            continue
        ahead = outstanding[index]
        last_failed = bool(ahead) and outcomes[ahead[-1]] == "failed"
        assert (outcome != "ran") == last_failed, (index, outcomes)  # refused exactly when the last switch failed
        if last_failed:
            assert outcome.startswith("error: switch") and "failed, so this prompt was not sent" in outcome, outcome
    for index, answered in cancels.items():  # a cancel answers a waiting prompt, which then never runs
        if answered:
            waiting = [i for i in outcomes if sequence[i][0] == "prompt" and i < index and outcomes[i] == "cancelled"]
            assert waiting, (index, outcomes)
    assert not gate.prompt_accepted and not gate.turn_running
    async with gate.turn() as started:  # nothing left held: the next prompt runs at once
        assert started


@settings(max_examples=400, deadline=None)
@given(ops)
def test_the_gate_holds_its_rules_under_any_interleaving(sequence: list[tuple[str, bool, int]]) -> None:
    asyncio.run(run(sequence))


async def held_switch(gate: SessionGate, release: asyncio.Event, fails: bool = False) -> None:
    """A switch that holds the session until ``release`` is set, then fails or not."""
    async with gate.switch("the switch"):
        await release.wait()
        if fails:
            raise RpcError(-32603, "cannot start")


async def prompt_started(gate: SessionGate) -> bool:
    """A prompt's turn: whether it started (False: cancelled while it waited)."""
    async with gate.turn() as started:
        return started


@pytest.mark.asyncio
async def test_a_prompt_behind_a_failed_switch_then_a_good_one_runs() -> None:
    gate = SessionGate()
    release = asyncio.Event()
    first = asyncio.ensure_future(held_switch(gate, release, fails=True))
    second = asyncio.ensure_future(held_switch(gate, release))
    await asyncio.sleep(0)
    waiting = asyncio.ensure_future(prompt_started(gate))
    await asyncio.sleep(0)
    release.set()
    assert await waiting is True  # the last switch before it succeeded: it runs on that agent
    with pytest.raises(RpcError):
        await first
    await second


@pytest.mark.asyncio
async def test_a_prompt_on_a_free_gate_is_admitted_in_its_first_step() -> None:
    """No switch and no other prompt: the turn starts in the prompt's own first step, without tasks of its own to
    wait for (each of which is a turn of the event loop between the editor's prompt and the agent)."""
    gate = SessionGate()
    task = asyncio.ensure_future(prompt_started(gate))
    await asyncio.sleep(0)  # one loop turn: the task's first step
    assert task.done() and task.result() is True


@pytest.mark.asyncio
async def test_a_prompt_behind_a_switch_still_answers_a_cancel_at_once() -> None:
    gate = SessionGate()
    release = asyncio.Event()
    switching = asyncio.ensure_future(held_switch(gate, release))
    await asyncio.sleep(0)
    waiting = asyncio.ensure_future(prompt_started(gate))
    await asyncio.sleep(0)
    assert gate.withdraw_waiting_prompts() == 1
    assert await waiting is False  # answered while the switch still holds the session
    assert not switching.done()
    release.set()
    await switching


@pytest.mark.asyncio
async def test_a_prompt_sent_while_one_runs_is_queued_and_runs_next_in_order() -> None:
    """The old gate refused the second prompt ("already running"); now each waits for the turns before it."""
    gate = SessionGate()
    order: list[int] = []
    release = asyncio.Event()

    async def turn(index: int) -> bool:
        async with gate.turn() as started:
            if started:
                order.append(index)
                if index == 0:
                    await release.wait()
            return started

    tasks = [asyncio.ensure_future(turn(i)) for i in range(3)]
    await asyncio.sleep(0)
    assert order == [0] and gate.waiting_prompts == 2 and gate.turn_running
    release.set()
    assert await asyncio.gather(*tasks) == [True, True, True]
    assert order == [0, 1, 2]


@pytest.mark.asyncio
async def test_a_cancel_withdraws_every_queued_prompt_and_leaves_the_running_turn_to_the_session() -> None:
    gate = SessionGate()
    release = asyncio.Event()

    async def running() -> bool:
        async with gate.turn() as started:
            await release.wait()
            return started

    first = asyncio.ensure_future(running())
    await asyncio.sleep(0)
    queued = [asyncio.ensure_future(prompt_started(gate)) for _ in range(2)]
    await asyncio.sleep(0)
    assert gate.withdraw_waiting_prompts() == 2
    assert await asyncio.gather(*queued) == [False, False]  # answered at once, while the turn still runs
    assert gate.turn_running and not first.done()
    release.set()
    assert await first is True
    assert not gate.prompt_accepted


@pytest.mark.asyncio
async def test_every_prompt_queued_behind_a_failed_switch_is_refused_with_its_reason() -> None:
    gate = SessionGate()
    release = asyncio.Event()
    switching = asyncio.ensure_future(held_switch(gate, release, fails=True))
    await asyncio.sleep(0)
    waiting = [asyncio.ensure_future(prompt_started(gate)) for _ in range(2)]
    await asyncio.sleep(0)
    release.set()
    results = await asyncio.gather(*waiting, return_exceptions=True)
    assert all(isinstance(r, RpcError) and "failed, so this prompt was not sent" in r.message for r in results)
    with pytest.raises(RpcError):
        await switching

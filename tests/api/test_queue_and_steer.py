"""``Run.queue`` and ``Run.steer`` on the bundled scripted agent (a real subprocess): a prompt queued while a turn
runs becomes the next turn, in order, never refused; a cancel withdraws what is still queued; a steer reaches the
running turn (the scripted ``slow`` turn wraps up saying what it was steered by) and is logged where it landed."""

from __future__ import annotations

from pathlib import Path

import pytest

import acp_mux
from acp_mux.server.records.store import SessionStore

pytestmark = pytest.mark.asyncio


async def test_queued_prompts_run_as_the_next_turns_in_order(work):
    async with acp_mux.run("demo", "slow", **work) as run:
        await run.queue("second")
        await run.queue("third")
        first = await run.wait()
        second = await run.wait()
        third = await run.wait()
        session_id = run.session_id
    assert first.stop_reason == second.stop_reason == third.stop_reason == "end_turn"
    messages = [
        e["data"] for e in SessionStore(Path(work["state_dir"])).envelopes(session_id) if e["type"] == "user.message"
    ]
    assert [(m["content"][0]["text"], m.get("queued", False)) for m in messages] == [
        ("slow", False),
        ("second", True),
        ("third", True),
    ]
    assert "word399" in first.text
    assert second.text.strip() == "You said: second" and third.text.strip() == "You said: third"


async def test_queue_with_no_turn_running_starts_at_once(work):
    async with acp_mux.run("demo", **work) as run:
        await run.queue("now")
        result = await run.wait()
    assert result.text.strip() == "You said: now"


async def test_a_cancel_withdraws_the_queued_prompts(work):
    async with acp_mux.run("demo", "slow", **work) as run:
        await run.queue("never sent")
        async for event in run:
            if event.type == "text_delta":
                await run.cancel()
        assert run.result is not None and run.result.stop_reason == "cancelled"
        async for _event in run:  # nothing is queued any more: no turn
            raise AssertionError("a withdrawn prompt ran")
        await run.continue_("after")
        after = await run.wait()
    assert after.text.strip() == "You said: after"


async def test_a_steer_reaches_the_running_turn_and_is_logged_where_it_landed(work):
    async with acp_mux.run("demo", "slow", **work) as run:
        steered = False
        async for event in run:
            if event.type == "text_delta" and not steered:
                steered = await run.steer("wrap it up")
                assert steered
        assert run.result is not None and run.result.stop_reason == "end_turn"
        assert "Steered by: wrap it up" in run.result.text and "word399" not in run.result.text
        assert await run.steer("too late") is False  # no turn runs: nothing is sent
        session_id = run.session_id
    store = SessionStore(Path(work["state_dir"]))
    kinds = [e["type"] for e in store.envelopes(session_id) if e["type"].startswith("user.")]
    assert kinds == ["user.message", "user.steer"]

"""The fan-out buffer: spec 002 §10 drops for ordinary iterators; the bridge's lossless iterator pauses the producer."""

from __future__ import annotations

import asyncio
import gc

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.core.events.buffer import EventBuffer


async def test_ordinary_iterators_lose_the_oldest_past_the_high_water_mark() -> None:
    dropped: list[int] = []
    buf: EventBuffer[int] = EventBuffer(high_water_mark=10, on_overflow=dropped.append)
    it = buf.iterate()
    for i in range(25):
        buf.append(i)
    buf.close()
    assert [x async for x in it] == list(range(15, 25))
    assert sum(dropped) == 15 == buf.dropped


async def test_a_lossless_iterator_pauses_the_producer_instead_of_losing_events() -> None:
    buf: EventBuffer[int] = EventBuffer(high_water_mark=10)
    it = buf.iterate(lossless=True)
    produced: list[int] = []

    async def produce() -> None:
        for i in range(100):
            buf.append(i)
            produced.append(i)
            await buf.room()
        buf.close()

    producer = asyncio.ensure_future(produce())
    await asyncio.sleep(0.05)
    assert not producer.done() and len(produced) == 10  # stopped a whole high-water mark ahead
    received = [x async for x in it]
    await producer
    assert received == list(range(100)) and buf.dropped == 0


async def test_consumed_events_are_released_while_a_lossless_iterator_runs() -> None:
    buf: EventBuffer[str] = EventBuffer(high_water_mark=1000)
    it = buf.iterate(lossless=True)
    for i in range(5):
        buf.append(f"big-{i}")
        assert await it.__anext__() == f"big-{i}"
    buf.append("next")
    assert list(buf._items) == ["next"]  # nothing already delivered stays in memory
    late = buf.iterate(from_start=True)  # a late iterator replays only what is still held
    buf.close()
    assert [x async for x in late] == ["next"]
    await it.aclose()


async def test_a_closed_lossless_iterator_releases_a_waiting_producer() -> None:
    buf: EventBuffer[int] = EventBuffer(high_water_mark=2)
    it = buf.iterate(lossless=True)
    buf.append(0)
    assert await it.__anext__() == 0
    buf.append(1)
    buf.append(2)
    waiting = asyncio.ensure_future(buf.room())
    await asyncio.sleep(0.01)
    assert not waiting.done()
    await it.aclose()  # the consumer went away (turn over): the producer must not wait for it
    await asyncio.wait_for(waiting, 1)


async def test_a_finished_lossless_iterator_leaves_nothing_it_was_given_behind() -> None:
    buf: EventBuffer[str] = EventBuffer(high_water_mark=1000)
    it = buf.iterate(lossless=True)
    for i in range(3):
        buf.append(f"e{i}")
    assert [await it.__anext__() for _ in range(2)] == ["e0", "e1"]
    await it.aclose()  # the turn is over: what was delivered is let go at once, the undelivered kept
    assert list(buf._items) == ["e2"]


async def test_an_iterator_dropped_without_being_started_stops_holding_events() -> None:
    buf: EventBuffer[str] = EventBuffer(high_water_mark=1000)
    it = buf.iterate(lossless=True)
    abandoned = buf.iterate(from_start=False)  # e.g. a turn whose prompt could not be sent: never iterated
    buf.append("a")
    assert await it.__anext__() == "a"
    buf.append("b")
    assert list(buf._items) == ["a", "b"]  # the idle iterator has not seen "a" yet
    del abandoned
    gc.collect()
    buf.append("c")
    assert list(buf._items) == ["b", "c"]
    await it.aclose()


@given(
    bursts=st.lists(st.integers(min_value=0, max_value=5), max_size=30),
    readers=st.integers(min_value=1, max_value=4),
    cancel_at=st.integers(min_value=0, max_value=30),
)
def test_every_waiting_iterator_gets_every_event_in_order_and_a_cancelled_one_stops_nobody(
    bursts: list[int], readers: int, cancel_at: int
) -> None:
    """Events appended in bursts, the loop running between them: each waiting iterator (each with its own wake-up)
    sees all of them, once and in order, and one cancelled while it waits leaves the others waking."""

    async def scenario() -> tuple[list[list[int]], list[int]]:
        buf: EventBuffer[int] = EventBuffer(high_water_mark=10_000)

        async def read(lossless: bool) -> list[int]:
            return [x async for x in buf.iterate(lossless=lossless)]

        tasks = [asyncio.ensure_future(read(i == 0)) for i in range(readers)]
        doomed = asyncio.ensure_future(read(False))
        produced: list[int] = []
        for i, size in enumerate(bursts):
            if i == cancel_at:
                doomed.cancel()
            for _ in range(size):
                buf.append(len(produced))
                produced.append(len(produced))
            await asyncio.sleep(0)
        doomed.cancel()
        buf.close()
        return list(await asyncio.wait_for(asyncio.gather(*tasks), 5)), produced

    got, produced = asyncio.run(scenario())
    assert got == [produced] * readers

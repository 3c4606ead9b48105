"""PipeLines: an agent's stdout split into lines where its reads arrive, however the pipe cuts the bytes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.core.process.pipe_lines import PipeLines

LINE = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"."))


def expected(lines: list[bytes], tail: bytes) -> list[bytes]:
    """What a reader of ``b"\\n".join(lines) + b"\\n" + tail`` must see: each line once, in order, one trailing CR
    dropped, the unterminated tail last."""
    out = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    if tail:
        out.append(tail[:-1] if tail.endswith(b"\r") else tail)
    return out


async def taken(
    feed: PipeLines,
    exited: asyncio.Future[None],
    linger: float = 60.0,
    abandon: Callable[[], None] = lambda: None,
    most: int = 1,
    sizes: list[int] | None = None,
) -> list[bytes]:
    """Every line the consumer takes, in the order taken (batches flattened); each batch's size into ``sizes``."""
    got: list[bytes] = []
    async for batch in feed.batches(exited.done, lambda: linger, abandon, most):
        if sizes is not None:
            sizes.append(len(batch))
        got += map(bytes, batch)
    return got


def cut(data: bytes, points: list[int]) -> list[bytes]:
    """``data`` split at ``points`` (as the pipe's reads might split it)."""
    edges = sorted({0, len(data), *(p % (len(data) + 1) for p in points)})
    return [data[a:b] for a, b in zip(edges, edges[1:])]


@given(
    lines=st.lists(LINE, max_size=30),
    tail=LINE,
    points=st.lists(st.integers(min_value=0, max_value=2000), max_size=40),
    yields=st.lists(st.booleans(), max_size=40),
    holds=st.lists(st.booleans(), max_size=40),
    high_water=st.integers(min_value=1, max_value=200),
    most=st.integers(min_value=1, max_value=8),
)
def test_every_line_once_in_order_whatever_the_reads(
    lines: list[bytes],
    tail: bytes,
    points: list[int],
    yields: list[bool],
    holds: list[bool],
    high_water: int,
    most: int,
) -> None:
    data = b"".join(line + b"\n" for line in lines) + tail
    reads = cut(data, points)
    paused: list[bool] = []

    async def scenario() -> list[bytes]:
        feed = PipeLines(high_water, paused.append)
        exited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        consumer = asyncio.ensure_future(taken(feed, exited, most=most, sizes=sizes))
        for i, read in enumerate(reads):
            if i < len(holds) and holds[i]:  # the consumer asked for a pause (the bytes still come: a test's pipe)
                feed.hold(0.001)
            feed.feed(read)
            if i < len(yields) and yields[i]:  # sometimes the consumer runs between reads, sometimes not
                await asyncio.sleep(0)
        feed.feed_eof()
        got = await asyncio.wait_for(consumer, 5)
        await asyncio.sleep(0.01)  # every hold has ended
        return got

    sizes: list[int] = []
    assert asyncio.run(scenario()) == expected(lines, tail)
    assert all(1 <= size <= most for size in sizes)  # never an empty batch, never more than asked
    # reading pauses and resumes in turn, and is never left paused once everything was taken and every hold ended
    assert paused == [True, False] * (len(paused) // 2)


def test_reading_pauses_past_the_high_water_mark_and_resumes_once_taken() -> None:
    paused: list[bool] = []

    async def scenario() -> None:
        feed = PipeLines(10, paused.append)
        exited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        feed.feed(b"0123456789abc\n")
        assert paused == [True]  # a consumer that lags stops the pipe's reading
        feed.feed_eof()
        assert await taken(feed, exited) == [b"0123456789abc"]
        assert paused == [True, False]

    asyncio.run(scenario())


def test_after_the_leader_exited_silence_for_linger_ends_the_lines_with_the_partial_one() -> None:
    abandoned: list[bool] = []

    async def scenario() -> list[bytes]:
        feed = PipeLines(1 << 20, lambda _pause: None)
        exited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        feed.feed(b"one\ntw")

        consumer = asyncio.ensure_future(taken(feed, exited, 0.05, lambda: abandoned.append(True)))
        await asyncio.sleep(0.1)  # the leader is alive: no linger however long the pipe is silent
        assert not consumer.done() and not abandoned
        feed.feed(b"o\n")
        exited.set_result(None)
        feed.wake()  # what PipeProcess does when its leader exits
        return await asyncio.wait_for(consumer, 5)

    assert asyncio.run(scenario()) == [b"one", b"two"]
    assert abandoned == [True]


def test_eof_ends_the_lines_without_abandoning() -> None:
    abandoned: list[bool] = []

    async def scenario() -> list[bytes]:
        feed = PipeLines(1 << 20, lambda _pause: None)
        exited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        exited.set_result(None)
        feed.feed(b"a\nb")
        feed.feed_eof()
        feed.feed(b"late\n")  # nothing after the end
        return await taken(feed, exited, abandon=lambda: abandoned.append(True))

    assert asyncio.run(scenario()) == [b"a", b"b"]
    assert not abandoned


def test_a_hold_pauses_reading_for_its_time_and_lines_already_read_are_still_served() -> None:
    paused: list[bool] = []

    async def scenario() -> None:
        feed = PipeLines(1 << 20, paused.append)
        exited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        feed.feed(b"one\ntwo\n")
        feed.hold(0.05)
        assert paused == [True]
        feed.hold(10)  # a hold already running is not extended
        batches = feed.batches(exited.done, lambda: 60.0, lambda: None, most=8)
        assert list(map(bytes, await anext(batches))) == [b"one", b"two"]  # served during the hold
        assert paused == [True]
        await asyncio.sleep(0.1)
        assert paused == [True, False]  # and the pipe is read again once it ends
        feed.hold(10)
        assert paused == [True, False, True]
        await batches.aclose()

    asyncio.run(scenario())


def test_reading_resumes_only_when_neither_a_hold_nor_a_lagging_consumer_stops_it() -> None:
    paused: list[bool] = []

    async def scenario() -> None:
        feed = PipeLines(10, paused.append)
        exited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        feed.hold(0.05)
        feed.feed(b"0123456789abc\n")  # past the high-water mark while held: still one pause
        assert paused == [True]
        batches = feed.batches(exited.done, lambda: 60.0, lambda: None)
        assert bytes((await anext(batches))[0]) == b"0123456789abc"  # taken: room again, but the hold runs on
        assert paused == [True]
        await asyncio.sleep(0.1)
        assert paused == [True, False]
        feed.feed(b"0123456789abc\n")  # the consumer lags ...
        feed.hold(0.01)  # ... and a hold starts and ends meanwhile
        await asyncio.sleep(0.05)
        assert paused == [True, False, True]  # the lag alone keeps the pipe paused
        assert bytes((await anext(batches))[0]) == b"0123456789abc"
        assert paused == [True, False, True, False]
        await batches.aclose()

    asyncio.run(scenario())


def test_no_hold_after_the_end() -> None:
    paused: list[bool] = []

    async def scenario() -> None:
        feed = PipeLines(1 << 20, paused.append)
        feed.feed_eof()
        feed.hold(0.01)
        await asyncio.sleep(0.03)

    asyncio.run(scenario())
    assert paused == []

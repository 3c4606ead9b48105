"""A fan-out event buffer: many independent async iterators over one run, with a high-water mark (spec 002 §10).

Each iterator keeps its own cursor. Events stay until every live iterator has passed them; past the high-water mark
the oldest consumed events go first, then (stalled consumers) the oldest unconsumed ones, and the drop is reported.

A *lossless* iterator (the bridge's own consumer) is never dropped from: instead the producer awaits :meth:`room`,
which pauses it while that iterator is a whole high-water mark behind — the agent's pipe then fills and the agent
waits, which is backpressure rather than loss. Events every iterator has passed are released as soon as a lossless
iterator exists, so a long-lived process does not keep old turns in memory.

Cursors live in a plain list, scanned on every event (a ``WeakSet`` cost more than a tenth of the bridge's CPU per
streamed delta). An iterator removes its cursor when it finishes or is closed; one that is dropped without ever
being started (its ``finally`` never runs) is removed when the generator object is collected.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from typing import AsyncGenerator, Callable, Generic, TypeVar

T = TypeVar("T")


class EventBuffer(Generic[T]):
    def __init__(self, high_water_mark: int = 1000, on_overflow: Callable[[int], None] | None = None) -> None:
        self._items: deque[T] = deque()
        self._base = 0  # sequence number of _items[0]
        self._closed = False
        self._progress: asyncio.Future[None] | None = None  # the producer waiting in room()
        self._cursors: list[_Cursor] = []
        self.high_water_mark = max(1, high_water_mark)
        self.dropped = 0
        self._on_overflow = on_overflow

    @property
    def next_seq(self) -> int:
        return self._base + len(self._items)

    @property
    def closed(self) -> bool:
        return self._closed

    def append(self, item: T) -> None:
        self._items.append(item)
        for cursor in self._cursors:
            if cursor.lossless:
                self._release_consumed()
                break
        if len(self._items) > self.high_water_mark:
            self._evict()
        self._wake()

    async def room(self) -> None:
        """Producer side: once a lossless iterator lags a whole high-water mark behind, wait until it has caught up
        half of that (hysteresis, so producer and consumer do not hand over one event at a time)."""
        if self._closed or self._lossless_lag() < self.high_water_mark:
            return
        low_water = self.high_water_mark // 2
        while not self._closed and self._lossless_lag() > low_water:
            if self._progress is None or self._progress.done():
                self._progress = asyncio.get_running_loop().create_future()
            await self._progress

    def _lossless_lag(self) -> int:
        end = self._base + len(self._items)
        slowest = end
        for cursor in self._cursors:
            if cursor.lossless and cursor.seq < slowest:
                slowest = cursor.seq
        return end - slowest

    def _release_consumed(self, delivered: int | None = None) -> None:
        """Drop events every live iterator has passed (and, from a closing lossless one, all it was given)."""
        consumed_upto = self._base if delivered is None else delivered
        if self._cursors:
            slowest = min([c.seq for c in self._cursors])
            consumed_upto = slowest if delivered is None else min(slowest, delivered)
        items = self._items
        while self._base < consumed_upto and items:
            items.popleft()
            self._base += 1

    def _advanced(self) -> None:
        waiter = self._progress
        if waiter is not None and not waiter.done():
            self._progress = None
            waiter.set_result(None)

    def close(self) -> None:
        self._closed = True
        self._wake()
        self._advanced()

    def _wake(self) -> None:
        """Each waiting iterator has its own future (a shared one needs ``asyncio.shield``, one more loop hop per
        wake-up, and the bridge's consumer wakes once per read of a chatty agent)."""
        for cursor in self._cursors:
            waiter = cursor.waiter
            if waiter is not None and not waiter.done():
                waiter.set_result(None)

    def _evict(self) -> None:
        excess = len(self._items) - self.high_water_mark
        consumed_upto = min((c.seq for c in self._cursors), default=self.next_seq)
        free = max(0, min(excess, consumed_upto - self._base))
        for _ in range(free):
            self._items.popleft()
        self._base += free
        protected = min((c.seq for c in self._cursors if c.lossless), default=self.next_seq)
        lost = min(excess - free, protected - self._base)
        if lost > 0:  # every live iterator is stalled: drop the oldest unconsumed events
            for _ in range(lost):
                self._items.popleft()
            self._base += lost
            self.dropped += lost
            if self._on_overflow is not None:
                self._on_overflow(lost)

    def iterate(self, from_start: bool = True, lossless: bool = False) -> AsyncGenerator[T, None]:
        cursor = _Cursor(self._base if from_start else self.next_seq, lossless)
        self._cursors.append(cursor)
        iterator = self._iterate(cursor)
        weakref.finalize(iterator, self._forget, cursor)  # never started, never closed: gone with the generator
        return iterator

    def _forget(self, cursor: "_Cursor") -> None:
        try:
            self._cursors.remove(cursor)
        except ValueError:
            pass

    async def _iterate(self, cursor: "_Cursor") -> AsyncGenerator[T, None]:
        try:
            while True:
                if cursor.seq < self._base:
                    cursor.seq = self._base
                index = cursor.seq - self._base
                if index < len(self._items):
                    cursor.seq += 1
                    if cursor.lossless:
                        self._advanced()
                    yield self._items[index]
                    continue
                if self._closed:
                    return
                cursor.waiter = asyncio.get_running_loop().create_future()
                try:
                    await cursor.waiter
                finally:
                    cursor.waiter = None
        finally:
            self._forget(cursor)
            if cursor.lossless:
                self._release_consumed(delivered=cursor.seq)  # the bridge keeps its own record of them
                self._advanced()  # a producer waiting on this iterator must not wait for nothing


class _Cursor:
    __slots__ = ("seq", "lossless", "waiter")

    def __init__(self, seq: int, lossless: bool = False) -> None:
        self.seq = seq
        self.lossless = lossless
        self.waiter: asyncio.Future[None] | None = None  # set while its iterator waits for an event

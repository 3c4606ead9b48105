"""A fan-out event buffer: many independent async iterators over one run, with a high-water mark (spec 002 §10).

Each iterator keeps its own cursor. Events stay until every live iterator has passed them; past the high-water mark
the oldest consumed events go first, then (stalled consumers) the oldest unconsumed ones, and the drop is reported.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from typing import AsyncIterator, Callable, Generic, TypeVar

T = TypeVar("T")


class EventBuffer(Generic[T]):
    def __init__(self, high_water_mark: int = 1000, on_overflow: Callable[[int], None] | None = None) -> None:
        self._items: deque[T] = deque()
        self._base = 0  # sequence number of _items[0]
        self._closed = False
        self._wakeup: asyncio.Future[None] | None = None
        self._cursors: "weakref.WeakSet[_Cursor]" = weakref.WeakSet()
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
        if len(self._items) > self.high_water_mark:
            self._evict()
        self._wake()

    def close(self) -> None:
        self._closed = True
        self._wake()

    def _wake(self) -> None:
        waiter, self._wakeup = self._wakeup, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _evict(self) -> None:
        excess = len(self._items) - self.high_water_mark
        consumed_upto = min((c.seq for c in self._cursors), default=self.next_seq)
        free = max(0, min(excess, consumed_upto - self._base))
        for _ in range(free):
            self._items.popleft()
        self._base += free
        lost = excess - free
        if lost > 0:  # every live iterator is stalled: drop the oldest unconsumed events
            for _ in range(lost):
                self._items.popleft()
            self._base += lost
            self.dropped += lost
            if self._on_overflow is not None:
                self._on_overflow(lost)

    def iterate(self, from_start: bool = True) -> AsyncIterator[T]:
        cursor = _Cursor(self._base if from_start else self.next_seq)
        self._cursors.add(cursor)
        return self._iterate(cursor)

    async def _iterate(self, cursor: "_Cursor") -> AsyncIterator[T]:
        try:
            while True:
                if cursor.seq < self._base:
                    cursor.seq = self._base
                index = cursor.seq - self._base
                if index < len(self._items):
                    cursor.seq += 1
                    yield self._items[index]
                    continue
                if self._closed:
                    return
                if self._wakeup is None:
                    self._wakeup = asyncio.get_running_loop().create_future()
                await asyncio.shield(self._wakeup)
        finally:
            self._cursors.discard(cursor)


class _Cursor:
    __slots__ = ("seq", "__weakref__")

    def __init__(self, seq: int) -> None:
        self.seq = seq

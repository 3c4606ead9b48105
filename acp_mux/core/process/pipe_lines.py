"""An agent's stdout as lines, split where the bytes arrive: no task, no ``asyncio.wait`` per pipe read.

Some agents (gemini, hermes) write one chunk per pipe write, so the bridge wakes once per chunk. Reading through
a ``StreamReader`` in a fresh task raced against the leader's exit cost three loop iterations and a task per read;
here the pipe's protocol hands each read to :meth:`PipeLines.feed`, which cuts it into lines at once and wakes the
one consumer, so a read costs the consumer one wake-up whatever it carries.

End of output is the same rule as :mod:`acp_mux.core.process.linger`: EOF, or ``linger`` s of waiting for more once the
leader exited (a grandchild may hold the pipe open forever), then ``abandon`` closes our end.

Reading stops for two reasons, each its own flag, and the pipe reads again only when neither holds: the consumer
lags (more than ``high_water`` bytes not yet taken), or the consumer asked for a pause (:meth:`hold`: an agent that
streams text writes every few hundred microseconds, and each read wakes the bridge for its whole per-read path;
pausing a moment after a streamed burst lets the next ones arrive as one read).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable

from acp_mux.core.process.lines import LineSplitter


class PipeLines:
    """Lines of one pipe, in order, each once; reading pauses past ``high_water`` bytes not yet taken, and while a
    :meth:`hold` lasts."""

    def __init__(self, high_water: int, pause: Callable[[bool], None]) -> None:
        """``pause(True)`` stops reading the pipe (the kernel's buffer then holds the agent), ``pause(False)``
        resumes it: the bridge's memory stays bounded by a consumer that lags."""
        self._splitter = LineSplitter()
        self._ready: deque[bytes | bytearray] = deque()
        self._ready_bytes = 0  # bytes in _ready
        self._high_water = high_water
        self._pause = pause
        self._paused = False  # what _pause was last told
        self._full = False  # more than high_water bytes wait for the consumer
        self._holding = False  # the consumer asked for a pause (hold) that has not ended yet
        self._eof = False
        self._waiter: asyncio.Future[None] | None = None

    def feed(self, data: bytes) -> None:
        """One read of the pipe (called by its protocol)."""
        if self._eof:
            return
        lines = self._splitter.feed(data)
        if not lines:
            return
        self._ready.extend(lines)
        self._ready_bytes += sum(map(len, lines))
        if self._ready_bytes > self._high_water and not self._full:
            self._full = True
            self._apply()
        self._wake()

    def hold(self, seconds: float) -> None:
        """Read nothing more for ``seconds`` (the agent's writes meanwhile wait in the kernel's pipe buffer, and
        arrive together when reading resumes); lines already read are served as before. A hold already running is
        not extended: the pipe is read at least once per ``seconds``."""
        if self._eof or self._holding or seconds <= 0:
            return
        self._holding = True
        self._apply()
        asyncio.get_running_loop().call_later(seconds, self._end_hold)

    def _end_hold(self) -> None:
        self._holding = False
        self._apply()

    def _apply(self) -> None:
        """Tell the pipe to pause or resume when the two reasons together changed their verdict."""
        paused = self._full or self._holding
        if paused != self._paused:
            self._paused = paused
            self._pause(paused)

    def feed_eof(self) -> None:
        """The pipe closed (or we gave up on it): the unterminated last line, if any, is the last line."""
        if self._eof:
            return
        if (last := self._splitter.flush()) is not None:
            self._ready.append(last)
            self._ready_bytes += len(last)
        self._eof = True
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def wake(self) -> None:
        """Something the waiting consumer must look at happened (the leader exited: the linger starts)."""
        self._wake()

    async def batches(
        self,
        exited: Callable[[], bool],
        linger: Callable[[], float],
        abandon: Callable[[], None],
        most: int = 1,
    ) -> AsyncIterator[list[bytes | bytearray]]:
        """The lines until EOF, in order, each once: every line that has arrived and not been taken (at most ``most``
        at a time), or, when none has, the next ones to arrive. Ends at EOF, or once ``linger()`` s pass without a
        line after ``exited()`` says the leader is gone (then ``abandon()``). One consumer at a time; a later call
        resumes where the last one stopped."""
        loop = asyncio.get_running_loop()
        while True:
            while self._ready:
                batch = [self._ready.popleft() for _ in range(min(most, len(self._ready)))]
                self._ready_bytes -= sum(map(len, batch))
                if self._full and self._ready_bytes <= self._high_water // 2:
                    self._full = False
                    self._apply()
                yield batch
            if self._eof:
                return
            self._waiter = waiter = loop.create_future()
            timer = loop.call_later(linger(), self._give_up, abandon) if exited() else None
            try:
                await waiter
            finally:
                self._waiter = None
                if timer is not None:
                    timer.cancel()

    def _give_up(self, abandon: Callable[[], None]) -> None:
        abandon()
        self.feed_eof()

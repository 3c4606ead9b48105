"""When an agent's output is over: at EOF, or shortly after its leader exited.

A grandchild that inherited the agent's pipe (a backgrounded shell command)
may hold it open forever, so EOF alone cannot end a turn; every agent's output
is read through :class:`LingeringReader`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any


class LingeringReader:
    """Reads chunks until EOF -- or until ``linger`` s after the leader exited.

    A grandchild that inherited the pipe may keep it open forever; the
    agent is done when the leader is, so we stop waiting shortly after.
    Cancellation-safe: an interrupted read is resumed by the next call.
    """

    def __init__(
        self,
        read: Callable[[], Awaitable[bytes]],
        exited: asyncio.Future[Any],
        linger: Callable[[], float],
        abandon: Callable[[], None],
    ) -> None:
        self._read, self._exited, self._linger, self._abandon = read, exited, linger, abandon
        self._task: asyncio.Future[bytes] | None = None
        self.eof = False

    async def read(self) -> bytes:
        if self.eof:
            return b""
        if self._task is None:
            self._task = asyncio.ensure_future(self._read())
        task = self._task
        if not self._exited.done():
            await asyncio.wait([task, self._exited], return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            await asyncio.wait([task], timeout=self._linger())
        if not task.done():
            task.cancel()
            self._task, self.eof = None, True
            self._abandon()
            return b""
        self._task = None
        data = task.result()
        self.eof = not data
        return data

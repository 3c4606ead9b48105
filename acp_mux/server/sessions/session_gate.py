"""The one owner of a session's order: its prompt turns and its agent switches run one at a time, in arrival order.

Why one place: a prompt that slipped in while a switch was stopping the old agent went to that dying process (and
was answered as an empty end_turn, or an error about a killed agent), and two switches that overlapped each started
an agent, leaving one running that nothing would ever stop. Here:

* a switch waits for the switches before it, and is refused while a prompt is accepted (running or queued): a
  switch never lands in the middle of a turn, nor between a turn and the prompts queued behind it;
* a prompt waits for the switches before it, then runs on the agent they left; if the last of them failed, the
  prompt is refused with that reason instead of going to an agent the person did not pick;
* a prompt sent while another is accepted is *queued* (never refused): it waits for the turns before it and runs
  as the next turn, in the order sent, and is answered when its own turn ends;
* a cancel withdraws every prompt still waiting (each answered ``cancelled`` at once, without waiting for the turn
  or the switch ahead of it); the running turn is the live session's to interrupt;
* once the session closes, nothing new is accepted, and closing waits for what runs.

The gate decides admission and order only; it holds no prompt. A waiting prompt is the pending ``session/prompt``
request itself (its handler waits here with its own arguments; what waits here is a :class:`_Ticket`: a cancel flag
and the failed switch's error). A prompt admitted goes to the session's run, the one owner of prompts the agent has
not been given (``acp_mux.core.run.waiting_prompts``: e.g. for the agent's own session to open).
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import AsyncIterator

from acp_mux.server.wire.rpc import INVALID_PARAMS, RpcError

SWITCH_DURING_PROMPT = "a prompt is running: switch agents when it has finished (or cancel it)"
CLOSED = "this session is closed"


@dataclass(eq=False)
class _Ticket:
    """One accepted prompt's place in the line: withdrawn by a cancel, or refused by the switch ahead of it."""

    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    failed: RpcError | None = None
    admitted: bool = False


class SessionGate:
    def __init__(self) -> None:
        self._lock = asyncio.Lock()  # asyncio's lock is fair: waiters get it in the order they asked
        self._tickets: list[_Ticket] = []  # prompts accepted (waiting or running), in arrival order
        self._switches = 0  # switches accepted and not finished
        self._no_switch = asyncio.Event()
        self._no_switch.set()
        self._turn_running = False
        self._closed = False

    @property
    def prompt_accepted(self) -> bool:
        """A prompt is running or waiting (for a switch, or for the turns queued before it)."""
        return self._prompt_arrived()

    def _prompt_arrived(self) -> bool:
        """``prompt_accepted`` as a call: after an ``await`` or ``yield`` a prompt may have arrived meanwhile, and a
        type checker keeps a property narrowed across those (it would call the re-check unreachable)."""
        return bool(self._tickets)

    @property
    def waiting_prompts(self) -> int:
        """Prompts accepted that have not started their turn (queued behind a turn or a switch)."""
        return sum(1 for ticket in self._tickets if not ticket.admitted)

    @property
    def turn_running(self) -> bool:
        """A prompt turn holds the session (its agent works on it)."""
        return self._turn_running

    @asynccontextmanager
    async def switch(self, what: str) -> AsyncIterator[None]:
        """Hold the session for one switch (``what``: "the switch to X", for a waiting prompt's error)."""
        self._refuse_if_closed()
        if self.prompt_accepted:
            raise RpcError(INVALID_PARAMS, SWITCH_DURING_PROMPT)
        self._switches += 1
        self._no_switch.clear()
        try:
            async with self._lock:
                self._refuse_if_closed()
                try:
                    yield
                    for ticket in self._tickets:  # the last switch before the prompts is the one that counts
                        ticket.failed = None
                except Exception as exc:
                    message = exc.message if isinstance(exc, RpcError) else str(exc) or type(exc).__name__
                    code = exc.code if isinstance(exc, RpcError) else -32603
                    for ticket in self._tickets:  # (every prompt accepted now came after this switch)
                        ticket.failed = RpcError(
                            code, f"{what} failed, so this prompt was not sent to any agent: {message}"
                        )
                    raise
        finally:
            self._switches -= 1
            if not self._switches:
                self._no_switch.set()

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[bool]:
        """Hold the session for one prompt turn, after the switches and turns before it. Yields False when a cancel
        came while it waited (the prompt then answers ``cancelled`` and reaches no agent)."""
        self._refuse_if_closed()
        ticket = _Ticket()
        self._tickets.append(ticket)
        try:
            if not await self._acquire_unless(ticket.cancel):
                yield False
                return
            try:
                if ticket.failed is not None:
                    raise ticket.failed
                self._refuse_if_closed()
                ticket.admitted = self._turn_running = True
                yield True
            finally:
                self._turn_running = False
                self._lock.release()
        finally:
            self._tickets.remove(ticket)

    def withdraw_waiting_prompts(self) -> int:
        """A cancel: every prompt that has not started its turn answers ``cancelled`` at once and reaches no agent.
        How many there were."""
        waiting = [ticket for ticket in self._tickets if not ticket.admitted and not ticket.cancel.is_set()]
        for ticket in waiting:
            ticket.cancel.set()
        return len(waiting)

    async def switches_done(self) -> None:
        """Wait until no switch is under way or queued (what comes next sees the agent they left)."""
        await self._no_switch.wait()

    @asynccontextmanager
    async def closing(self) -> AsyncIterator[None]:
        """Refuse anything new, then hold the session once what runs or waits has finished."""
        self._closed = True
        async with self._lock:
            yield

    async def _acquire_unless(self, cancel: asyncio.Event) -> bool:
        """The lock, or False when ``cancel`` is set first; the lock is never left held otherwise (also when the
        waiting itself is cancelled)."""
        if not self._switches and not self._lock.locked() and len(self._tickets) == 1:
            # No switch holds or waits for the lock (a switch counts itself before it asks), no other prompt is
            # accepted and closing refuses prompts: nobody else wants it, so it is taken at once, without the two
            # tasks below and the three loop turns they cost between the editor's prompt and the agent.
            await self._lock.acquire()
            return True
        acquiring = asyncio.ensure_future(self._lock.acquire())
        cancelled = asyncio.ensure_future(cancel.wait())
        won = False
        try:
            await asyncio.wait({acquiring, cancelled}, return_when=asyncio.FIRST_COMPLETED)
            won = not cancel.is_set()
        finally:
            cancelled.cancel()
            if not won:
                acquiring.cancel()
                await asyncio.wait({acquiring})
                if not acquiring.cancelled():
                    self._lock.release()  # acquired just as the cancel came
        return won

    def _refuse_if_closed(self) -> None:
        if self._closed:
            raise RpcError(INVALID_PARAMS, CLOSED)

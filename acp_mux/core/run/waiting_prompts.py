"""Every prompt of one run that has not reached the agent yet, in one place: the run's (:class:`RunHandle`).

A prompt waits while the agent cannot take prompts yet: its own session is still being opened (an ACP agent's
``session/new``, codex's thread), which the adapter says through its readiness hook (``accepts_prompts``) instead of
keeping a list of its own. Before this, three places kept waiting prompts (the run's boundary queue, the ACP
family's ``waiting`` list, codex's ``pending_prompts``), each with its own idea of order and of what a cancel does;
here there is one list, in arrival order:

* waiting prompts go out in the order they arrived, as soon as the agent takes prompts (the run releases them just
  before it writes to the agent, so the first words of a prompt sent right after ``session/new`` are not delayed by
  a single read);
* a cancel *withdraws* the prompts the agent has not been given: nothing of them reaches the agent, and each one's
  turn is ended (interrupted) when it would have gone out, so its events still follow the agent's session start
  (spec 000: ``session_start`` comes before any turn).

What is *not* here, on purpose: a prompt queued behind a running turn (an editor's ``session/prompt`` sent during a
turn, the Python API's ``Run.queue``). It has not been given to the run yet: it waits as its own pending request
(at the session's gate, ``acp_mux.server.sessions.session_gate``, which keeps only a ticket per prompt) or its own task (the
API's), holding its prompt, and reaches the run as a turn of its own when the turn before it has ended, so each
queued turn is logged, answered, cancelled and carried over a limit like any other. Nor is a steered message
(``RunHandle.steer``): it goes to the agent at once or not at all. Spec 002's ``queue(prompt, when)`` boundaries (a
tool result, a response) stay removed: nothing reaches them.

The session's gate orders prompt turns and agent switches for a session but holds no prompt; adapters hold none
either (tests/test_prompt_owner.py checks both).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from acp_mux.core.run.prompt import Prompt

if TYPE_CHECKING:
    from acp_mux.core.run.contract import Adapter
    from acp_mux.core.events.union import BaseEvent
    from acp_mux.core.run.parse_context import ParseContext


@dataclass
class Waiting:
    """One prompt that has not reached the agent, and whether a cancel withdrew it (then it ends its turn instead
    of going out)."""

    prompt: Prompt
    withdrawn: bool = False


@dataclass
class Released:
    """What one release did: the events of the withdrawn prompts' turns (for the run to emit), how many prompts
    went to the agent, and the ones its adapter could not take, with why (an agent that starts a process per turn)."""

    events: list[BaseEvent] = field(default_factory=list)
    sent: int = 0
    refused: list[tuple[Prompt, NotImplementedError]] = field(default_factory=list)


class WaitingPrompts:
    """One run's prompts that its agent has not been given, in arrival order (see the module's docstring), and the
    handing over: to ``adapter`` through ``ctx``, once its readiness hook (``accepts_prompts``) says so."""

    def __init__(self, adapter: Adapter, ctx: ParseContext) -> None:
        self._adapter = adapter
        self._ctx = ctx
        self._items: list[Waiting] = []
        ctx.prompt_waiting = self.prompt_due  # what an adapter may ask (it keeps no prompts itself)

    def after_start(self, first: Prompt | None) -> None:
        """The adapter's ``start`` ran: it sent the run's first prompt only if the agent takes prompts at once;
        otherwise that one waits here like any other."""
        if first is not None and not self._adapter.accepts_prompts(self._ctx):
            self.hold(first)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def hold(self, prompt: Prompt, *, withdrawn: bool = False) -> None:
        """Keep ``prompt`` until the agent takes prompts; ``withdrawn``: a cancel came for it before it could be
        held (while the agent's process was starting), so it only ends its turn when it would have gone out."""
        self._items.append(Waiting(prompt, withdrawn))

    def has_due(self) -> bool:
        """Something waits to be released (a prompt to send, or a withdrawn one whose turn is to end)."""
        return bool(self._items)

    def prompt_due(self) -> bool:
        """A prompt waits and is not withdrawn: it goes to the agent as soon as the agent takes prompts."""
        return any(not item.withdrawn for item in self._items)

    def withdraw(self) -> bool:
        """A cancel before the agent takes prompts: the due prompts it has not been given never will be. True when
        there were some (then nothing of this cancel's turn runs at the agent: there is nothing to interrupt)."""
        if self._adapter.accepts_prompts(self._ctx):
            return False
        due = [item for item in self._items if not item.withdrawn]
        for item in due:
            item.withdrawn = True
        return bool(due)

    def release(self) -> Released:
        """Once the agent takes prompts: give it the waiting ones in arrival order; a withdrawn one ends its turn
        instead (interrupted: nothing of it reached the agent)."""
        released = Released()
        if not self.has_due() or not self._adapter.accepts_prompts(self._ctx):
            return released
        due, self._items = self._items, []
        ctx = self._ctx
        for item in due:
            if item.withdrawn:
                released.events += ctx.begin_turn() + ctx.end_turn(tool_error="interrupted")
                continue
            try:
                self._adapter.send_prompt(item.prompt, ctx)
                released.sent += 1
            except NotImplementedError as exc:
                released.refused.append((item.prompt, exc))
        return released

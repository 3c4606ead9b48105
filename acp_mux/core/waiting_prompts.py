"""Every prompt of one run that has not reached the agent yet, in one place: the run's (:class:`RunHandle`).

A prompt waits for one of two things. The caller asked for a boundary (spec 002 ``queue(prompt, when)`` and
``steer``: after the next tool result, response or turn end). Or the agent cannot take prompts yet: its own session
is still being opened (an ACP agent's ``session/new``, codex's thread), which the adapter says through its readiness
hook (``accepts_prompts``) instead of keeping a list of its own. Before this, three places kept waiting prompts (the
run's boundary queue, the ACP family's ``waiting`` list, codex's ``pending_prompts``), each with its own idea of
order and of what a cancel does; here there is one list, in arrival order:

* a prompt is *due* once its boundary has been seen (at once when it names none); due prompts go out in the order
  they arrived, as soon as the agent takes prompts (the run releases them just before it writes to the agent, so
  the first words of a prompt sent right after ``session/new`` are not delayed by a single read);
* a cancel *withdraws* the due prompts the agent has not been given: nothing of them reaches the agent, and each
  one's turn is ended (interrupted) when it would have gone out, so its events still follow the agent's session
  start (spec 000: ``session_start`` comes before any turn);
* a boundary prompt not yet due is the caller's follow-up, not the current turn: a cancel leaves it waiting.

The session's gate (``acp_mux.server.session_gate``) orders prompt turns and agent switches for a session but holds
no prompt; adapters hold none either (tests/test_prompt_owner.py checks both).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from acp_mux.core.prompt import Prompt

if TYPE_CHECKING:
    from acp_mux.core.contract import Adapter
    from acp_mux.core.events import BaseEvent
    from acp_mux.core.parse_context import ParseContext

Boundary = Literal["next-turn", "after-tool", "after-response"]

# The events that make a boundary prompt due (spec 002 §12.6).
BOUNDARY_EVENTS: dict[Boundary, frozenset[str]] = {
    "after-tool": frozenset({"tool_result", "tool_error"}),
    "after-response": frozenset({"message_stop"}),
    "next-turn": frozenset({"turn_end", "message_stop"}),
}


@dataclass
class Waiting:
    """One prompt that has not reached the agent: the boundary it still waits for (None: due), and whether a
    cancel withdrew it (then it ends its turn instead of going out)."""

    prompt: Prompt
    when: Boundary | None = None
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

    def hold(self, prompt: Prompt, when: Boundary | None = None) -> None:
        """Keep ``prompt`` until ``when`` has been seen (None: only until the agent takes prompts)."""
        self._items.append(Waiting(prompt, when))

    def boundary(self, event_type: str) -> None:
        """An event went by: the prompts waiting for it as their boundary are due from now on."""
        for item in self._items:
            if item.when is not None and event_type in BOUNDARY_EVENTS[item.when]:
                item.when = None

    def has_due(self) -> bool:
        """Something is ready to be released (a prompt to send, or a withdrawn one whose turn is to end)."""
        return any(item.when is None for item in self._items)

    def prompt_due(self) -> bool:
        """A prompt is due and not withdrawn: it goes to the agent as soon as the agent takes prompts."""
        return any(item.when is None and not item.withdrawn for item in self._items)

    def withdraw(self) -> bool:
        """A cancel before the agent takes prompts: the due prompts it has not been given never will be. True when
        there were some (then nothing of this cancel's turn runs at the agent: there is nothing to interrupt)."""
        if self._adapter.accepts_prompts(self._ctx):
            return False
        due = [item for item in self._items if item.when is None and not item.withdrawn]
        for item in due:
            item.withdrawn = True
        return bool(due)

    def release(self) -> Released:
        """Once the agent takes prompts: give it the due ones in arrival order (the rest keep waiting for their
        boundary); a withdrawn one ends its turn instead (interrupted: nothing of it reached the agent)."""
        released = Released()
        if not self.has_due() or not self._adapter.accepts_prompts(self._ctx):
            return released
        due = [item for item in self._items if item.when is None]
        self._items = [item for item in self._items if item.when is not None]
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

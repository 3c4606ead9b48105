"""Which subagent each event belongs to: the one rule claude's Task subagents and codex's child threads share.

An event a subagent's output carries is marked with the call that started that subagent (claude's Agent/Task call,
codex's ``spawn_agent`` call), and so is any later event of a tool call the subagent started: its result may come on
a line (claude) or a notification (codex: the parent's turn end closing it) that names no subagent. One function so
the two agents cannot drift apart in what the editor is shown as nested.

The ids themselves are the editor's: :class:`CallIds` names every call an agent reports in the conversation it
comes from, so a subagent's call never takes the id of another call (its parent's Agent call above all), and
:func:`end_subagent_calls` ends what a subagent left open when it ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from acp_mux.adapters.base import PerRun

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent
    from acp_mux.core.run.parse_context import ParseContext


def link_to_subagent(events: list[BaseEvent], parent: str | None, child_tools: dict[str, str]) -> list[BaseEvent]:
    """Mark ``events`` with their subagent's call: ``parent`` (the call whose subagent produced them, None: not known
    from the message) or, for a tool call a subagent started earlier, the call ``child_tools`` remembers for it
    (``child_tools``: the run's map, a subagent's tool call id → its starting call id, updated here)."""
    if parent is None and not child_tools:  # the main agent's output, no subagent yet: nothing to mark
        return events
    for event in events:
        tool_id = getattr(event, "tool_call_id", None)
        if parent is not None and isinstance(tool_id, str) and tool_id != parent:
            child_tools.setdefault(tool_id, parent)
        link = child_tools.get(tool_id) if isinstance(tool_id, str) else None
        if event.parent_tool_call_id is None and (link or parent):
            event.parent_tool_call_id = link or parent
    return events


@dataclass
class CallIds(PerRun):
    """One tool call id per call across a session and its subagents (``CallIds.of(ctx).name(owner, raw)``).

    Why: an agent's tool call ids are unique within one conversation only, and a subagent is a conversation of its
    own. A model endpoint that numbers its calls per conversation (a proxy in front of another model, a local
    server, a test double) gives a subagent's first call the id of its parent's Agent call: claude and codex keep
    the two apart (each conversation has its own), but on the editor's side one id would be one call, so the
    subagent's Write was never shown and its permission question was asked about the parent's Agent call. Every
    call id an agent gives is named here with its owner (the call that started the subagent it comes from, None
    for the session's own agent): the first owner of an id keeps it, a later one gets it with a ``-2``, ``-3`` …
    suffix, the same each time that owner names that call again. Ids are never sent back to an agent (answers go by
    request id), so the renaming is the editor's side only."""

    KEY = "subagent_call_ids"

    named: dict[tuple[str | None, str], str] = field(default_factory=dict)  # (owner, the agent's id) → ours
    taken: set[str] = field(default_factory=set)  # every id handed out
    by_raw: dict[str, list[str]] = field(default_factory=dict)  # the agent's id → ours for it, in every conversation

    def name(self, owner: str | None, raw: str) -> str:
        """Our id for the call the agent calls ``raw`` in ``owner``'s conversation (``raw`` itself unless another
        owner had it first); an empty ``raw`` stays empty (no call to name)."""
        if not raw:
            return raw
        key = (owner, raw)
        ours = self.named.get(key)
        if ours is None:
            ours, n = raw, 1
            while ours in self.taken:
                n += 1
                ours = f"{raw}-{n}"
            self.named[key] = ours
            self.taken.add(ours)
            self.by_raw.setdefault(raw, []).append(ours)
        return ours

    def known(self, owner: str | None, raw: str) -> str | None:
        """Our id for a call already named in ``owner``'s conversation, None if it was not."""
        return self.named.get((owner, raw))

    def refer(self, owner: str | None, raw: str) -> str:
        """Our id for a call a message refers to (its result, its progress): named in ``owner``'s conversation, else
        the one call of that id any conversation named (a message that does not say whose it is), else ``raw``."""
        ours = self.named.get((owner, raw))
        if ours is not None:
            return ours
        named = self.by_raw.get(raw, ())
        return named[0] if len(named) == 1 else raw


def end_subagent_calls(
    ctx: ParseContext, spawn_id: str, child_tools: dict[str, str], completed: bool
) -> list[BaseEvent]:
    """The calls a subagent left open when its starting call ends: they end with it (the subagent is over, so
    nothing will report them), completed when it completed (its agent reported no failure for them), failed
    otherwise (stopped, cancelled, failed). Claude drops the result of a subagent's call whose id its parent also
    used, so such a call would else stay open until the turn ends and then show failed though it ran."""
    events: list[BaseEvent] = []
    for tool_id, owner in list(child_tools.items()):
        if owner != spawn_id or ctx.tool_name(tool_id) is None:
            continue
        events += ctx.tool_result(tool_id, None) if completed else ctx.tool_error(tool_id, "the subagent stopped")
    return link_to_subagent(events, spawn_id, child_tools)

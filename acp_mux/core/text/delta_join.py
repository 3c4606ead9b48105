"""Adjacent streamed deltas of one burst of agent output become one delta.

Why: agents write a long reply as thousands of tiny chunks, and a pipe read often carries dozens of them at once.
Each event costs the same downstream (stamping, the run's buffer, the session's log, translation, one JSON-RPC
message the editor parses), whatever its size, so a burst read in one go is passed on as one delta per message:
the editor shows the same text at the same moment (the lines arrived together), with a fraction of the work on both
sides of the pipe. Deltas are joined only when nothing else happened between them and they belong to the same
message (the same accumulating text, the same ids): the order of everything else is untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the events module is loaded on first use, never on the initialize path
    from acp_mux.core.events.union import BaseEvent

JOINABLE = frozenset({"text_delta", "thinking_delta", "tool_input_delta"})
# A joined delta stays within this many characters: the run's buffer bounds its backlog in events, so a joined
# event must stay about as small as a delta an agent writes, or a stalled editor would hold far more memory.
MOST_JOINED = 4096
_OWN = ("delta", "accumulated_text")  # what two joinable deltas may differ in


def _same_stream(earlier: BaseEvent, later: BaseEvent) -> bool:
    """Whether ``later`` continues ``earlier``'s text: the same kind, the same message (its growing text, shared by
    reference), every other field equal."""
    if later.type != earlier.type or later.type not in JOINABLE:
        return False
    if earlier.__pydantic_private__ is None or later.__pydantic_private__ is None:
        return False
    if earlier.__pydantic_private__.get("_parts") is not later.__pydantic_private__.get("_parts"):
        return False
    a, b = earlier.__dict__, later.__dict__
    return a.keys() == b.keys() and all(a[key] == b[key] for key in a if key not in _OWN)


def join_adjacent_deltas(events: Sequence[BaseEvent]) -> list[BaseEvent]:
    """``events`` with each run of deltas of one stream replaced by its last delta carrying the run's whole text
    (a run ends where its text would pass :data:`MOST_JOINED` characters).

    The last one is kept because its accumulated text (the message up to and including it) is the run's; its
    ``delta`` becomes the joined deltas. Events are not yet emitted (unstamped, unseen), so changing one is safe."""
    out: list[BaseEvent] = []
    parts: list[str] = []  # the deltas of the run ending at out[-1], when that run has more than one
    size = 0  # the characters of that run
    for event in events:
        delta = event.__dict__.get("delta")
        if isinstance(delta, str) and out and size + len(delta) <= MOST_JOINED and _same_stream(out[-1], event):
            if not parts:
                parts.append(out[-1].__dict__["delta"])
            parts.append(delta)
            size += len(delta)
            out[-1] = event
            continue
        size = len(delta) if isinstance(delta, str) else MOST_JOINED
        if parts:
            out[-1].__dict__["delta"] = "".join(parts)
            parts = []
        out.append(event)
    if parts:
        out[-1].__dict__["delta"] = "".join(parts)
    return out

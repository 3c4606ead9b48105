"""One event of a turn → the updates the editor sees, the same way in a live turn and in a replay of the log.

A live turn (``LiveSession._consume``) and ``session/load`` (``acp_mux.server.records.replay``) both call
:func:`updates_for_event`, so a stored session replays through today's translation, and a fix in translation shows
in old sessions too. Beyond the translator's own mapping it adds what the turn loop used to add by hand: an
approval's tool call is announced before the question (the editor is never asked about a call it has not seen),
and a turn-ending event's notice is shown unless the person cancelled (a cancelled turn needs no error text).

A failed turn's error is shown once: live, the prompt's JSON-RPC error carries it and editors show that (a bold
copy in the conversation as well made every failure appear twice); a replay has no such error, so there the error
is the conversation's text (``acp_mux.server.records.replay`` shows it where the turn ended, from ``turn.ended``). Notices of turns that end without an error (the context window
full, a refusal's words, a reply the agent cut short) stay message chunks: the person reads them nowhere else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_mux.core.events.lazy_events import ev
from acp_mux.translation.stop_reasons import TurnOutcome, outcome_for
from acp_mux.translation.updates import UpdateTranslator, notice

if TYPE_CHECKING:
    from acp_mux.core.events.union import ApprovalRequestEvent, BaseEvent
    from acp_mux.protocol.v1_dicts import SessionUpdate


def approval_tool_id(tool_call_id: str | None, interaction_id: str) -> str:
    """The tool call a permission question is about (a synthetic one when the agent named none)."""
    return tool_call_id or f"approval-{interaction_id}"


def announce_approval(translator: UpdateTranslator, event: ApprovalRequestEvent) -> list[SessionUpdate]:
    """The question's tool call, announced if the editor has not seen it, and linked to the question, so the
    answer moves it on (granted: in_progress; denied: failed at once), however the answer was reached."""
    tool_id = approval_tool_id(event.tool_call_id, event.interaction_id)
    translator.remember_approval(event.interaction_id, tool_id)
    if tool_id in translator.tools:
        return []
    return translator.announce(tool_id, event.tool_name or event.action, event.input, parent=event.parent_tool_call_id)


def updates_for_event(
    translator: UpdateTranslator, event: BaseEvent, *, login_command: str | None, cancelled: bool
) -> tuple[list[SessionUpdate], TurnOutcome | None]:
    """The updates one event produces, and the outcome it imposes on the turn (None when it imposes none)."""
    updates = announce_approval(translator, event) if isinstance(event, ev.ApprovalRequestEvent) else []
    updates += translator.translate(event)
    outcome = outcome_for(event, login_command)
    if outcome is not None and outcome.notice and outcome.error_code is None and not cancelled:
        updates.append(notice(outcome.notice))
    return updates, outcome


def failed_turn_text(message: str) -> str:
    """How a replay shows the error a turn failed with (live, the prompt's JSON-RPC error showed it)."""
    return f"\n\n**{message}**\n"

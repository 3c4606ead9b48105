"""A fork whose agent's own fork fails gets the conversation handed over instead, once, and says so.

A fork of a session is made by the agent itself where it can fork its sessions (claude's ``--resume ID
--fork-session``, codex's ``thread/fork``, ACP ``session/fork``), on the fork's first run. That run can fail before the
agent made the fork: claude answers "No conversation found" when the original's session file is gone. The fork is
then not lost: the person's message is sent once more, with the whole conversation so far handed over to a new
session of the agent, as a fork into another agent gets it. The editor path (:mod:`acp_mux.server.sessions.live_session`)
and the Python API (:mod:`acp_mux.api.session`, ``resume=`` of a fork) both take the decision from here, so a fork
falls back the same way whichever opened it: what is handed over (:func:`fallback_prompt`), whether it was the agent's
own fork that failed and what the conversation and the log then say (:func:`fell_back`). Each path only shows the
line its own way and runs the prompt again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable, Iterable

from acp_mux.server.sessions.handoff import with_missed_turns

if TYPE_CHECKING:
    from acp_mux.adapters.base import AgentAdapter
    from acp_mux.core.run.prompt import Prompt
    from acp_mux.server.records.store import SessionRecord, SessionStore

log = logging.getLogger(__name__)


def fallback_prompt(
    record: SessionRecord, prompt: Prompt, conversation: Callable[[], Iterable[dict[str, object]]]
) -> Prompt | None:
    """Before a turn of a fork whose agent has not made its own fork yet: what is sent instead if that fork fails,
    the person's ``prompt`` with every turn so far handed over (``conversation()``: the session's folded log). None
    for any other turn. Computed before the turn's message is logged, so it never holds that message as an earlier
    turn."""
    if not record.native_fork_pending:
        return None
    return with_missed_turns(prompt, conversation, record.turn_agents, 0, len(record.turn_agents))


def fell_back(record: SessionRecord, store: SessionStore, adapter: AgentAdapter) -> str | None:
    """After a failed turn: was it the agent's own fork of the original that failed (the record still names the
    session to fork and has none of the agent's own)? Then the fork gives up the agent's fork for good (saved: the
    next run starts a new session, and the turns it is handed count as seen), and the line the conversation and the
    log show is returned; the caller shows it, stops the run that failed (it may live on: claude answers the error
    and waits for the next prompt, still set to fork) and sends the fallback prompt once, to a new run. None: the
    failure is the turn's."""
    if not record.native_fork_pending:
        return None
    log.warning("%s could not fork session %s; handing the conversation over", adapter.name, record.native_fork_from)
    record.native_fork_from = None
    store.save(record)
    return (
        f"\n[acp-mux: {adapter.display_name} could not fork its own session; the conversation so far is "
        "handed over to a new one instead.]\n"
    )

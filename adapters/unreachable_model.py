"""A model that cannot be reached is a failure like any other: the turn ends with the typed error, at once.

Agents that retry a model nothing answers (nothing listens at its address) go on in silence or for minutes: omp
18.2.3 ~30 s without a word, codex 0.169.0 reconnects again and again, minutes apart, openclaw 2026.9.6 ~60 s (only
its gateway's log says so). Their adapters stop the turn at the first request that got no answer at all (not an
HTTP error: those the agents' own retries are for) and end it with :func:`unreachable_failure`.

hermes 0.19.0 ends such a turn ``end_turn`` with "API call failed after 3 retries: Connection error." as its whole
answer (in its own ACP mode too); omp 18.2.3 ends it as a ``refusal`` whose text is the error ("ECONNREFUSED:
Unable to connect. …"). Neither carries usage (the model never answered). Such a turn ends with the typed error, as
every other agent's does, and the person reads why: :func:`unreachable_answer` recognises the answer (only at its
start, only one short line, so a model's reply that merely mentions a refused connection is never taken for one),
:func:`unreachable_failure` is the turn's end.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from acp_mux.core.events.codes import ErrorCode
from acp_mux.core.events.lazy_events import ev

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent
    from acp_mux.core.run.parse_context import ParseContext

MAX_ANSWER = 300
_UNREACHABLE = re.compile(
    r"^(?:API call failed after \d+ retries:\s*)?(?:Error:\s*)?"
    r"(?:Connection error|(?:connect )?(?:ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)\b"
    r"|Unable to connect|fetch failed|Connection refused|Failed to connect)",
    re.I,
)


def unreachable_answer(text: str) -> str | None:
    """``text`` (stripped) when the agent's whole answer says its model could not be reached; else None."""
    answer = text.strip()
    if not answer or "\n" in answer or len(answer) > MAX_ANSWER or not _UNREACHABLE.match(answer):
        return None
    return answer


def unreachable_failure(reason: str, ctx: ParseContext) -> list[BaseEvent]:
    """The turn's end when the model was never reached: the typed error with the agent's reason."""
    message = f"The model could not be reached: {reason.rstrip('.')}."
    error = ev.ErrorEvent(code=ErrorCode.AGENT_ERROR, message=message, recoverable=True)
    return ctx.close_open("failed") + [error] + ctx.end_turn()

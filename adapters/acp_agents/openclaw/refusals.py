"""A model request of OpenClaw's that got no answer at all (nothing listens at the provider's address), read from its
gateway's log so the turn can end at once instead of after a minute of silent retries.

Why: OpenClaw 2026.9.6 treats a refused connection as a transient failure ("reason=timeout") and retries it up to
eight times over ~60 s; ``openclaw acp`` forwards nothing meanwhile. Each failed attempt is one gateway log line::

    2026-11-29T02:25:59.521+00:00 [agent/embedded] embedded run agent end: runId=5f84… isError=true
    model=fake-model provider=fake error=LLM request failed: connection refused by the provider endpoint.
    rawError=Connection error.

(``builtin-openclaw-*.mjs``; the ``error=`` text is OpenClaw's own fixed wording for a transport failure,
``formatTransportErrorCopy``). Only the three wordings that mean no answer came at all count (refused, no DNS, no
route); an interrupted connection or a bare "network connection error" may have followed part of an answer, and
OpenClaw's own retries are for those. The line names the run, not the session: acp-mux's plugin in the gateway
(``openclaw_plugin/acp-mux-asks.mjs``) logs each model call's run and session key (:func:`model_call`), so a run of
another session is never taken for this one's (a gateway without the plugin, ``ACP_MUX_OPENCLAW_ASK=bypass`` and a
config that keeps it out, names none: then any refusal written during the prompt is taken, as the retry notes are);
and the adapter keeps a run id once it has been taken (or seen before
its prompt, or while the person cancelled), so a late line of an earlier run never ends a later prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

MARK = "embedded run agent end: runId="
# OpenClaw's wording (after "LLM request failed: ") → what the person reads after "The model could not be reached: ".
NO_ANSWER = {
    "connection refused by the provider endpoint.": "connection refused by the provider endpoint",
    "DNS lookup for the provider endpoint failed.": "the provider's address could not be looked up (DNS)",
    "the provider endpoint is unreachable from this host.": "the provider endpoint is unreachable from this host",
}
_LINE = re.compile(
    r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)) \[agent/embedded\] "
    r"embedded run agent end: runId=([\w.:-]{1,100}) isError=true model=(\S{1,200}) provider=(\S{1,100}) "
    r"error=LLM request failed: (" + "|".join(re.escape(text) for text in NO_ANSWER) + r")(?: rawError=.*)?$"
)

CALL_MARK = "acp-mux-asks: model call runId="
_CALL = re.compile(r"\[plugins\] acp-mux-asks: model call runId=([\w.:@-]{1,200}) sessionKey=([\w.:@-]{1,200})$")


@dataclass(frozen=True)
class Refusal:
    """One model request of run ``run_id`` that got no answer, written at ``at`` (seconds since the epoch)."""

    run_id: str
    reason: str  # what the person reads, e.g. "connection refused by the provider endpoint (fake/fake-model)"
    at: float


def refusal(line: str) -> Refusal | None:
    """The refusal a gateway log line reports, or None for any other line (one substring test for most lines).
    A line without a valid time is none: it could not be told apart from an earlier prompt's."""
    if MARK not in line:
        return None
    found = _LINE.match(line.rstrip("\r\n"))
    if found is None:
        return None
    stamp, run_id, model, provider, wording = found.groups()
    try:
        at = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:  # a well-shaped but impossible date (month 13)
        return None
    return Refusal(run_id=run_id, reason=f"{NO_ANSWER[wording]} ({provider}/{model})", at=at)


def model_call(line: str) -> tuple[str, str] | None:
    """(run id, session key) of the line acp-mux's gateway plugin logs when a model call starts; None for any other
    line."""
    if CALL_MARK not in line:
        return None
    found = _CALL.search(line.rstrip("\r\n"))
    return (found.group(1), found.group(2)) if found is not None else None


def names_session(key: str, session_id: str | None) -> bool:
    """Whether the gateway's session key ``key`` (``agent:main:acp-bridge:<uuid>``) is the ACP session ``session_id``
    (the uuid, or the key itself once the session is named by it)."""
    return bool(session_id) and (key == session_id or key.endswith(":" + str(session_id)))

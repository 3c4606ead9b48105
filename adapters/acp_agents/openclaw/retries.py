"""OpenClaw's own retries of a failing model, read from its gateway's log so the person sees them as they happen.

Why: OpenClaw 2026.9.6 retries a provider's 429 (and overload, 5xx, timeouts) by itself, up to nine times with
delays of 1 s doubling to 30 s (each ×0.5-1.5 jitter; a ``retry-after`` is honoured when longer): about two and a
half minutes in which ``openclaw acp`` forwards nothing. The retry status it emits (``run_status`` / ``retrying``)
goes only to Control UI connections. What does show it is the gateway's own log, one line per retry::

    [agent/embedded] transient same-model retry 1/9 for fake/fake-model reason=rate_limit: delayMs=1083

(``embedded-agent-*.mjs``, ``maybeRetryTransient``). The line names no session, so a retry is shown on every run of
this bridge that has a prompt out to the shared gateway: OpenClaw runs one turn at a time per session, and a rate
limit is the provider's, shared by every session that uses it. When it gives up, the run's ``lane task error`` line
makes the turn the typed failure (:meth:`Gateway.note_line`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from acp_mux.core.events.lazy import lazy_module

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent
    from acp_mux.core.run.parse_context import ParseContext

ev = lazy_module("acp_mux.core.events.union")

MARK = "transient same-model retry"
_RETRY = re.compile(
    r"transient same-model retry (\d{1,4})/(\d{1,4}) for (\S{1,200}) reason=([\w-]{1,40}): "
    r"delayMs=(\d{1,9})"
)
REASONS = {
    "rate_limit": "rate limited by the provider (HTTP 429)",
    "overloaded": "the provider is overloaded",
    "server_error": "the provider failed (HTTP 5xx)",
    "timeout": "the model request timed out",
    "output_limit": "the reply hit the output limit",
}


def retry_events(line: str, ctx: ParseContext) -> list[BaseEvent]:
    """The retry note for one gateway log line, or nothing (constant cost for other lines: one substring test)."""
    if MARK not in line:
        return []
    found = _RETRY.search(line)
    if found is None:
        return []
    attempt, budget, model, reason, delay = found.groups()
    text = REASONS.get(reason, reason.replace("_", " ")) + f" ({model})"
    return (
        ctx.begin_turn()
        + ctx.end_thinking()
        + ctx.end_text()
        + [ev.RetryEvent(attempt=int(attempt), max_attempts=int(budget), reason=text, delay_ms=int(delay))]
    )

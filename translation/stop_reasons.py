"""How a turn ends: events that close a turn → an ACP stop reason, or a typed error the user can read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp_mux.core.events.lazy_events import ev
from acp_mux.core.events.limit_times import wait_text

if TYPE_CHECKING:
    from acp_mux.core.events.union import AuthErrorEvent, BaseEvent, CrashEvent, ErrorEvent, RateLimitErrorEvent
    from acp_mux.protocol.v1_dicts import JsonValue, StopReason

AUTH_REQUIRED = -32000
INTERNAL_ERROR = -32603
# The event types that end a turn (or may): anything else imposes no outcome.
_TURN_ENDING = frozenset(
    {"auth_error", "rate_limit_error", "context_exceeded", "turn_limit", "crash", "timeout", "error", "interrupted"}
)
# The agent stopped the turn itself (it answered ``cancelled`` with no cancel from the editor: copilot 1.0.102 does
# so midway through a long reply). The reply is cut short: it must not look like a finished one.
AGENT_CANCELLED = "\n\n_The agent stopped this turn itself (cancelled); the reply may be incomplete._\n"


@dataclass(frozen=True)
class TurnOutcome:
    """``stop_reason`` for a normal end; ``error_code``/``message`` when the prompt must fail as JSON-RPC error.

    ``notice`` is shown in the conversation either way, so nothing ends silently.
    """

    stop_reason: StopReason = "end_turn"
    notice: str | None = None
    error_code: int | None = None
    error_message: str | None = None
    error_data: dict[str, JsonValue] | None = None


def outcome_for(event: BaseEvent, login_command: str | None = None) -> TurnOutcome | None:
    """The outcome an event imposes on the current turn, or None when it is not turn-ending.

    ``login_command`` (e.g. ``acp-mux --agent codex --login``) is offered on auth errors so the user always
    learns one command that fixes it, whatever the agent's own hint says.
    """
    if event.type not in _TURN_ENDING:  # every event of a turn passes here: the common case costs one set lookup
        return None
    match event:
        case ev.AuthErrorEvent():
            return _auth_failed(event, login_command)
        case ev.RateLimitErrorEvent():
            return _rate_limited(event)
        case ev.ContextExceededEvent():
            return TurnOutcome(stop_reason="max_tokens", notice="\n\n**The context window is full.**\n")
        case ev.TurnLimitEvent():
            notice = f"\n\n**Stopped after {event.max_turns} turns.**\n"
            return TurnOutcome(stop_reason="max_turn_requests", notice=notice)
        case ev.CrashEvent():
            return _crashed(event)
        case ev.TimeoutEvent():
            what = "produced no output for too long" if event.kind == "inactivity" else "ran past its time limit"
            message = f"The agent {what} and was stopped."
            return TurnOutcome(notice=f"\n\n**{message}**\n", error_code=INTERNAL_ERROR, error_message=message)
        case ev.ErrorEvent():
            return _failed(event)
        case ev.InterruptedEvent():  # the editor's cancel or the agent's own: either way the turn was cancelled
            return TurnOutcome(stop_reason="cancelled", notice=AGENT_CANCELLED)
    return None


def _rate_limited(event: RateLimitErrorEvent) -> TurnOutcome:
    """The agent gave up on a limit (its own retries are over): a failed turn, never ``end_turn``. The error says
    what happened and, when the agent said, when the limit lifts or how long to wait; ``data`` carries the same
    for a client to act on (``limit``: ``quota`` for a usage limit, ``rate`` for any other; ``resetsAt``: epoch
    seconds, from the agent's own field)."""
    when = reset_time(event.resets_at) if event.resets_at else ""
    if when:
        wait = f" It resets at {when}."
    else:
        wait = f" Retry after {wait_text(event.retry_after_ms)}." if event.retry_after_ms else ""
    what = "Usage limit reached" if event.kind == "quota" else "Rate limited or out of quota"
    message = f"{what}: {event.message.rstrip('. ')}.{wait}"
    data: dict[str, JsonValue] = {"reason": "rate_limited", "limit": event.kind}
    if event.retry_after_ms:
        data["retryAfterMs"] = event.retry_after_ms
    if event.resets_at:
        data["resetsAt"] = event.resets_at
    return TurnOutcome(notice=f"\n\n**{message}**\n", error_code=INTERNAL_ERROR, error_message=message, error_data=data)


def reset_time(epoch_s: int) -> str:
    """When a limit lifts, in the person's local time with its zone (``15:00 CET``), the date too when not today;
    empty when ``epoch_s`` is no time this machine can show (the events hold sane times: this is the last guard)."""
    from datetime import datetime

    try:
        when = datetime.fromtimestamp(epoch_s).astimezone()
    except (OverflowError, OSError, ValueError, TypeError):
        return ""
    now = datetime.now().astimezone()
    shown = when.strftime("%H:%M %Z") if when.date() == now.date() else when.strftime("%a %d %b %H:%M %Z")
    return shown.strip()


def _auth_failed(event: AuthErrorEvent, login_command: str | None) -> TurnOutcome:
    """A typed auth error (the editor offers sign-in) that names one command that signs in from a terminal."""
    message = f"Authentication failed: {event.message.rstrip('. ')}"
    hint = event.guidance or ""
    if login_command and login_command not in hint:
        hint = f"{hint.rstrip('.')}. In a terminal: {login_command}" if hint else f"In a terminal: {login_command}"
    data: dict[str, JsonValue] = {"guidance": hint}
    if login_command:
        data["login"] = login_command
    return TurnOutcome(
        notice=f"\n\n**{message}**\n{hint}\n",
        error_code=AUTH_REQUIRED,
        error_message=f"{message}. {hint}".strip(),
        error_data=data,
    )


def _crashed(event: CrashEvent) -> TurnOutcome:
    """The agent died: how (exit code or signal) and the tail of what it said on stderr."""
    tail = _tail(event.stderr)
    signal = event.signal
    how = f"was killed by {signal}" if signal else f"exited unexpectedly (exit code {event.exit_code})"
    message = f"The agent {how}."
    data: dict[str, JsonValue] = {"exitCode": None if signal else event.exit_code, "stderr": tail}
    if signal:
        data["signal"] = signal
    return TurnOutcome(
        notice=f"\n\n**{message}**\n" + (f"```\n{tail}\n```\n" if tail else ""),
        error_code=INTERNAL_ERROR,
        error_message=f"{message} {tail.splitlines()[-1] if tail else ''}".strip(),
        error_data=data,
    )


def _failed(event: ErrorEvent) -> TurnOutcome:
    """An agent error: a refusal or a full context ends the turn normally; anything else fails the prompt."""
    if event.code == "REFUSAL":
        return TurnOutcome(stop_reason="refusal", notice=f"\n\n_{event.message}_\n" if event.message else None)
    if event.code in ("MAX_TOKENS", "CONTEXT_EXCEEDED"):
        return TurnOutcome(stop_reason="max_tokens")
    # A failed turn fails the prompt — recoverable or not, the editor must be able to tell it from a normal end
    # (``recoverable`` only says the session takes the next prompt). What streamed before stays shown.
    return TurnOutcome(
        notice=f"\n\n**Agent error:** {event.message}\n",
        error_code=INTERNAL_ERROR,
        error_message=event.message,
        error_data={"code": event.code, "recoverable": bool(event.recoverable)},
    )


def _tail(stderr: str, lines: int = 12) -> str:
    return "\n".join(stderr.strip().splitlines()[-lines:])

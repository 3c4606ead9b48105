"""How a turn ends: events that close a turn → an ACP stop reason, or a typed error the user can read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

AUTH_REQUIRED = -32000
INTERNAL_ERROR = -32603


@dataclass(frozen=True)
class TurnOutcome:
    """``stop_reason`` for a normal end; ``error_code``/``message`` when the prompt must fail as JSON-RPC error.

    ``notice`` is shown in the conversation either way, so nothing ends silently.
    """

    stop_reason: str = "end_turn"
    notice: str | None = None
    error_code: int | None = None
    error_message: str | None = None
    error_data: dict[str, Any] | None = None


def outcome_for(event: Any, login_command: str | None = None) -> TurnOutcome | None:
    """The outcome an event imposes on the current turn, or None when it is not turn-ending.

    ``login_command`` (e.g. ``acp-mux --agent codex --login``) is offered on auth errors so the user always
    learns one command that fixes it, whatever the agent's own hint says.
    """
    t = event.type
    if t == "auth_error":
        message = f"Authentication failed: {event.message.rstrip('. ')}"
        hint = event.guidance or ""
        if login_command and login_command not in hint:
            hint = f"{hint.rstrip('.')}. In a terminal: {login_command}" if hint else f"In a terminal: {login_command}"
        data: dict[str, Any] = {"guidance": hint}
        if login_command:
            data["login"] = login_command
        return TurnOutcome(
            notice=f"\n\n**{message}**\n{hint}\n",
            error_code=AUTH_REQUIRED,
            error_message=f"{message}. {hint}".strip(),
            error_data=data,
        )
    if t == "rate_limit_error":
        wait = f" Retry after {event.retry_after_ms / 1000:.0f}s." if event.retry_after_ms else ""
        return TurnOutcome(notice=f"\n\n**Rate limited or out of quota:** {event.message}.{wait}\n")
    if t == "context_exceeded":
        return TurnOutcome(stop_reason="max_tokens", notice="\n\n**The context window is full.**\n")
    if t == "turn_limit":
        return TurnOutcome(stop_reason="max_turn_requests", notice=f"\n\n**Stopped after {event.max_turns} turns.**\n")
    if t == "crash":
        tail = _tail(event.stderr)
        signal = getattr(event, "signal", None)
        how = f"was killed by {signal}" if signal else f"exited unexpectedly (exit code {event.exit_code})"
        message = f"The agent {how}."
        data: dict[str, Any] = {"exitCode": None if signal else event.exit_code, "stderr": tail}
        if signal:
            data["signal"] = signal
        return TurnOutcome(
            notice=f"\n\n**{message}**\n" + (f"```\n{tail}\n```\n" if tail else ""),
            error_code=INTERNAL_ERROR,
            error_message=f"{message} {tail.splitlines()[-1] if tail else ''}".strip(),
            error_data=data,
        )
    if t == "timeout":
        what = "produced no output for too long" if event.kind == "inactivity" else "ran past its time limit"
        message = f"The agent {what} and was stopped."
        return TurnOutcome(notice=f"\n\n**{message}**\n", error_code=INTERNAL_ERROR, error_message=message)
    if t == "error":
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
    return None


def _tail(stderr: str, lines: int = 12) -> str:
    return "\n".join(stderr.strip().splitlines()[-lines:])

"""Turn-ending events → ACP stop reasons, or a JSON-RPC error the user can read (never a silent end)."""

from __future__ import annotations

import time

import pytest

from acp_mux.core.events import union as ev
from acp_mux.translation.stop_reasons import reset_time, AUTH_REQUIRED, INTERNAL_ERROR, TurnOutcome, outcome_for

LOGIN = "acp-mux --agent codex --login"


# ── authentication ──────────────────────────────────────────────────────────────────────────────────────────────
def test_auth_error_fails_the_prompt_and_offers_the_login_command() -> None:
    event = ev.AuthErrorEvent(message="Not logged in", guidance="Run `codex login`.")
    hint = f"Run `codex login`. In a terminal: {LOGIN}"
    assert outcome_for(event, login_command=LOGIN) == TurnOutcome(
        stop_reason="end_turn",
        notice=f"\n\n**Authentication failed: Not logged in**\n{hint}\n",
        error_code=-32000,
        error_message=f"Authentication failed: Not logged in. {hint}",
        error_data={"guidance": hint, "login": LOGIN},
    )
    assert AUTH_REQUIRED == -32000


def test_login_command_is_not_repeated_when_the_hint_already_has_it() -> None:
    guidance = f"Run `{LOGIN}` in a terminal."
    outcome = outcome_for(ev.AuthErrorEvent(message="expired", guidance=guidance), login_command=LOGIN)
    assert outcome is not None
    assert outcome.error_data == {"guidance": guidance, "login": LOGIN}
    assert outcome.error_message == f"Authentication failed: expired. {guidance}"
    for shown in (outcome.error_data["guidance"], outcome.error_message, outcome.notice):
        assert shown.count(LOGIN) == 1


def test_auth_message_ending_in_a_period_is_not_doubled() -> None:
    outcome = outcome_for(ev.AuthErrorEvent(message="Invalid API key.", guidance="Set OPENAI_API_KEY."))
    assert (
        outcome is not None and outcome.error_message == "Authentication failed: Invalid API key. Set OPENAI_API_KEY."
    )


def test_auth_error_without_guidance_still_names_the_login_command() -> None:
    outcome = outcome_for(ev.AuthErrorEvent(message="401"), login_command=LOGIN)
    assert outcome is not None
    assert outcome.error_data == {"guidance": f"In a terminal: {LOGIN}", "login": LOGIN}
    assert outcome.error_message == f"Authentication failed: 401. In a terminal: {LOGIN}"


def test_auth_error_without_a_login_command_keeps_the_agent_hint_only() -> None:
    outcome = outcome_for(ev.AuthErrorEvent(message="401", guidance="Set ANTHROPIC_API_KEY."))
    assert outcome is not None
    assert outcome.error_code == AUTH_REQUIRED
    assert outcome.error_data == {"guidance": "Set ANTHROPIC_API_KEY."}
    assert outcome.error_message == "Authentication failed: 401. Set ANTHROPIC_API_KEY."
    bare = outcome_for(ev.AuthErrorEvent(message="401"))
    assert (
        bare is not None and bare.error_message == "Authentication failed: 401." and bare.error_data == {"guidance": ""}
    )


# ── crashes and timeouts ────────────────────────────────────────────────────────────────────────────────────────
def test_crash_fails_with_the_tail_of_stderr() -> None:
    stderr = "\n".join(f"line {i}" for i in range(20)) + "\n\n"
    tail = "\n".join(f"line {i}" for i in range(8, 20))
    assert outcome_for(ev.CrashEvent(exit_code=139, stderr=stderr)) == TurnOutcome(
        notice=f"\n\n**The agent exited unexpectedly (exit code 139).**\n```\n{tail}\n```\n",
        error_code=INTERNAL_ERROR,
        error_message="The agent exited unexpectedly (exit code 139). line 19",
        error_data={"exitCode": 139, "stderr": tail},
    )


def test_crash_without_stderr() -> None:
    assert outcome_for(ev.CrashEvent(exit_code=1)) == TurnOutcome(
        notice="\n\n**The agent exited unexpectedly (exit code 1).**\n",
        error_code=-32603,
        error_message="The agent exited unexpectedly (exit code 1).",
        error_data={"exitCode": 1, "stderr": ""},
    )


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("inactivity", "The agent produced no output for too long and was stopped."),
        ("run", "The agent ran past its time limit and was stopped."),
    ],
)
def test_timeouts_fail_the_prompt(kind: str, message: str) -> None:
    assert outcome_for(ev.TimeoutEvent(kind=kind)) == TurnOutcome(
        notice=f"\n\n**{message}**\n", error_code=INTERNAL_ERROR, error_message=message
    )


# ── normal ends with a reason ───────────────────────────────────────────────────────────────────────────────────
def test_context_exceeded_is_max_tokens() -> None:
    assert outcome_for(ev.ContextExceededEvent(used_tokens=1, max_tokens=1)) == TurnOutcome(
        stop_reason="max_tokens", notice="\n\n**The context window is full.**\n"
    )


def test_turn_limit_is_max_turn_requests() -> None:
    assert outcome_for(ev.TurnLimitEvent(max_turns=25)) == TurnOutcome(
        stop_reason="max_turn_requests", notice="\n\n**Stopped after 25 turns.**\n"
    )


def test_a_rate_limit_fails_the_turn_with_a_typed_error_never_end_turn() -> None:
    """The agent's own retries are over when it reports the limit: the turn failed, and the person reads why."""
    limited = outcome_for(ev.RateLimitErrorEvent(message="quota exceeded", retry_after_ms=90_000))
    assert limited == TurnOutcome(
        notice="\n\n**Rate limited or out of quota: quota exceeded. Retry after 90s.**\n",
        error_code=-32603,
        error_message="Rate limited or out of quota: quota exceeded. Retry after 90s.",
        error_data={"reason": "rate_limited", "limit": "rate", "retryAfterMs": 90_000},
    )
    bare = outcome_for(ev.RateLimitErrorEvent(message="429"))
    assert bare is not None and bare.error_code == -32603
    assert bare.error_message == "Rate limited or out of quota: 429." and bare.error_data == {
        "reason": "rate_limited",
        "limit": "rate",
    }


def test_a_usage_limit_names_when_it_resets_from_the_agents_field() -> None:
    """A quota limit with the agent's reset time: the error says it is a usage limit and when it lifts (local
    time), and ``data`` carries the epoch seconds as given, never a time read from the message."""
    resets = int(time.time()) + 3600
    limited = outcome_for(
        ev.RateLimitErrorEvent(message="You've hit your limit · resets 9pm", kind="quota", resets_at=resets)
    )
    assert limited is not None and limited.error_code == -32603 and limited.stop_reason == "end_turn"
    assert limited.error_message is not None and limited.error_message.startswith("Usage limit reached: ")
    assert reset_time(resets) in limited.error_message
    assert limited.error_data == {"reason": "rate_limited", "limit": "quota", "resetsAt": resets}


def test_refusal() -> None:
    assert outcome_for(
        ev.ErrorEvent(code="REFUSAL", message="I can't help with that.", recoverable=True)
    ) == TurnOutcome(stop_reason="refusal", notice="\n\n_I can't help with that._\n")
    assert outcome_for(ev.ErrorEvent(code="REFUSAL", message="")) == TurnOutcome(stop_reason="refusal")


@pytest.mark.parametrize("code", ["MAX_TOKENS", "CONTEXT_EXCEEDED"])
def test_token_limit_error_codes_are_max_tokens(code: str) -> None:
    assert outcome_for(ev.ErrorEvent(code=code, message="x", recoverable=True)) == TurnOutcome(stop_reason="max_tokens")


def test_every_agent_error_fails_the_prompt_recoverable_or_not() -> None:
    """A turn that failed (the model endpoint down for good, after the agent's own retries) must not end end_turn."""
    assert outcome_for(
        ev.ErrorEvent(code="AGENT_ERROR", message="stream disconnected", recoverable=True)
    ) == TurnOutcome(
        notice="\n\n**Agent error:** stream disconnected\n",
        error_code=INTERNAL_ERROR,
        error_message="stream disconnected",
        error_data={"code": "AGENT_ERROR", "recoverable": True},
    )
    assert outcome_for(ev.ErrorEvent(code="PROTOCOL_ERROR", message="bad frame")) == TurnOutcome(
        notice="\n\n**Agent error:** bad frame\n",
        error_code=INTERNAL_ERROR,
        error_message="bad frame",
        error_data={"code": "PROTOCOL_ERROR", "recoverable": False},
    )


def test_a_crash_by_signal_names_the_signal() -> None:
    outcome = outcome_for(ev.CrashEvent(exit_code=-1, signal="SIGKILL"))
    assert outcome is not None and outcome.error_message == "The agent was killed by SIGKILL."
    assert outcome.error_data == {"exitCode": None, "stderr": "", "signal": "SIGKILL"} and "-1" not in (
        outcome.notice or ""
    )


@pytest.mark.parametrize(
    "event",
    [
        ev.TextDeltaEvent(delta="x"),
        ev.TurnEndEvent(turn_index=0),
        ev.RateLimitedEvent(retry_after_ms=10),
    ],
)
def test_other_events_do_not_end_the_turn(event: ev.BaseEvent) -> None:
    assert outcome_for(event, login_command=LOGIN) is None


def test_an_interrupted_turn_is_cancelled_and_says_the_reply_may_be_cut_short() -> None:
    """The editor's cancel or the agent's own ``cancelled`` (copilot stops long replies so): never ``end_turn``."""
    outcome = outcome_for(ev.InterruptedEvent(), login_command=LOGIN)
    assert outcome is not None and outcome.stop_reason == "cancelled" and outcome.error_code is None
    assert outcome.notice is not None and "incomplete" in outcome.notice

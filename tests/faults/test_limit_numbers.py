"""Issue 39, class 1: a limit's numbers are input. Whatever an agent says its limit's reset time or wait is (seconds,
milliseconds, far past or future, absent, a string, ``1e400``, a list), the turn ends with the typed rate-limit
error (or the failover offer), the person reads a sane reset time or none, and ``acp_mux.run`` / ``acp-mux run``
report the failed turn as failed. An exception inside any event handler fails the turn visibly.

Hypothesis generates the agent's values; they go through claude's and codex's own parsing, the event union, the
editor path's outcome and the failover question, and through the Python API and ``acp-mux run`` with a fake claude.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import acp_mux
from acp_mux.adapters.stream_agents.claude import ClaudeAdapter
from acp_mux.adapters.stream_agents.codex_exec import limit_resets_at
from acp_mux.core.events import union as ev
from acp_mux.server.branches import failover as fo
from acp_mux.translation.stop_reasons import outcome_for, reset_time
from tests.adapters.helpers import feed

LIMITED_CLAUDE = Path(__file__).parents[1] / "fakes" / "programs" / "limited_claude.py"
NOW = time.time()
YEAR_S = 366 * 86_400

# What an agent may put where a reset time belongs: seconds, milliseconds and microseconds around now, far past and
# future, negative, huge, non-finite, strings (numeric, ISO, nonsense), and other JSON shapes.
RESETS = hs.one_of(
    hs.none(),
    hs.integers(min_value=int(NOW) - 3 * YEAR_S, max_value=int(NOW) + 3 * YEAR_S),
    hs.integers(min_value=int(NOW) - 3 * YEAR_S, max_value=int(NOW) + 3 * YEAR_S).map(lambda s: s * 1000),
    hs.integers(min_value=int(NOW), max_value=int(NOW) + 86_400).map(lambda s: s * 1_000_000),
    hs.integers(min_value=-(10**30), max_value=10**30),
    hs.floats(allow_nan=True, allow_infinity=True),
    hs.integers(min_value=int(NOW), max_value=int(NOW) + 86_400).map(str),
    hs.sampled_from(["1e400", "-1", "soon", "", "2026-13-45", "2030-01-01T00:00:00", "NaN", "Infinity"]),
    hs.datetimes(timezones=hs.timezones()).map(lambda d: d.isoformat()),
    hs.text(max_size=12),
    hs.booleans(),
    hs.lists(hs.integers(), max_size=2),
    hs.dictionaries(hs.text(max_size=3), hs.integers(), max_size=2),
)
WAITS = RESETS


def raw_json(value: Any) -> str:
    """``value`` as JSON text an agent writes: a non-finite number as ``null`` (JavaScript's ``JSON.stringify``; a
    line holding ``1e400`` or ``NaN`` is no JSON, and is dropped whole as any other non-JSON line)."""
    return (
        json.dumps(value, allow_nan=True)
        .replace("-Infinity", "null")
        .replace("Infinity", "null")
        .replace("NaN", "null")
    )


def sane(resets_at: int | None, now: float) -> bool:
    """None, or a time within a minute behind and a year ahead of ``now``."""
    return resets_at is None or now - 61 <= resets_at <= now + YEAR_S + 1


def typed_failure_is_readable(limit: ev.RateLimitErrorEvent) -> None:
    """The editor path's outcome of ``limit``: the typed error, its ``resetsAt`` the event's, and a time the person
    can read in its message only when there is one; the failover question says the same."""
    outcome = outcome_for(limit)
    assert outcome is not None and outcome.error_code == -32603 and outcome.error_data is not None
    assert outcome.error_data["reason"] == "rate_limited" and outcome.error_data["limit"] == limit.kind
    assert outcome.error_data.get("resetsAt") == limit.resets_at
    message = outcome.error_message or ""
    question = fo.Offer("claude", "Claude Code", (("codex", "Codex"),), limit.resets_at).text()
    if limit.resets_at:
        shown = reset_time(limit.resets_at)
        assert shown and f"It resets at {shown}." in message and f"It resets at {shown}." in question
    else:
        assert "It resets" not in message and "It resets" not in question
    wait = limit.retry_after_ms
    assert wait is None or 0 <= wait <= YEAR_S * 1000
    assert not re.search(r"\d{4,}s", message), message  # no wait of millions of seconds


def limit_event(resets: Any) -> dict[str, Any]:
    info: dict[str, Any] = {"status": "rejected", "rateLimitType": "five_hour", "isUsingOverage": False}
    if resets is not None:
        info["resetsAt"] = resets
    return {"type": "rate_limit_event", "rate_limit_info": info, "uuid": "u", "session_id": "s-1"}


def limited_result(text: str) -> list[dict[str, Any]]:
    content = [{"type": "text", "text": text}]
    message = {"id": "x", "model": "<synthetic>", "role": "assistant", "content": content}
    return [
        {"type": "assistant", "error": "rate_limit", "session_id": "s-1", "message": message},
        {
            "type": "result",
            "subtype": "success",
            "is_error": True,
            "api_error_status": 429,
            "result": text,
            "session_id": "s-1",
            "total_cost_usd": 0,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        },  # fmt: skip
    ]


INIT = {"type": "system", "subtype": "init", "session_id": "s-1", "cwd": "/tmp", "tools": []}
CLAUDE_TEXTS = hs.sampled_from(
    [
        "You've hit your 5-hour limit · resets 3pm",
        "You've hit your 5-hour limit · resets Apr 18, 58880, 1:30am (UTC)",  # claude's own reading of a ms value
        "Claude AI usage limit reached|1795915503000",
        "Claude AI usage limit reached|99999999999999999999999999",
        "API Error: Request rejected (429) · Rate limited",
    ]
)


@settings(max_examples=300, deadline=None)
@given(resets=RESETS, text=CLAUDE_TEXTS)
def test_claudes_limit_with_any_reset_value_ends_typed_with_a_sane_time_or_none(resets: Any, text: str) -> None:
    """Through claude's own parsing (``rate_limit_event`` → the failed result): a quota limit, a sane time or
    none, the typed error; claude's own "· resets <when>" (its reading of the same number) is not repeated."""
    now = time.time()
    line = json.dumps(limit_event("__RESETS__")).replace('"__RESETS__"', raw_json(resets))
    events = feed(ClaudeAdapter(), [INIT, line, *limited_result(text)])
    [limit] = [e for e in events if isinstance(e, ev.RateLimitErrorEvent)]
    assert limit.kind == "quota" and sane(limit.resets_at, now)
    assert "58880" not in limit.message and "· resets" not in limit.message
    typed_failure_is_readable(limit)
    for waiting in (e for e in events if isinstance(e, ev.RateLimitedEvent)):
        assert waiting.retry_after_ms is None or 0 <= waiting.retry_after_ms <= YEAR_S * 1000


@settings(max_examples=200, deadline=None)
@given(resets=RESETS, used=hs.sampled_from([100, 100.0, 120]))
def test_codexs_used_up_window_with_any_reset_value_gives_a_sane_time_or_none(resets: Any, used: Any) -> None:
    """codex's ``account/rateLimits/updated`` window: its ``resetsAt`` is read the same way."""
    now = time.time()
    resets_at = limit_resets_at({"primary": {"usedPercent": used, "resetsAt": resets}})
    assert sane(resets_at, now)
    typed_failure_is_readable(ev.RateLimitErrorEvent(message="usage limit", kind="quota", resets_at=resets_at))


@settings(max_examples=300, deadline=None)
@given(resets=RESETS, wait=WAITS, kind=hs.sampled_from(["quota", "rate"]))
def test_any_adapter_may_put_any_value_in_a_limit_event(resets: Any, wait: Any, kind: str) -> None:
    """The event union itself takes whatever an adapter passes (the demo agent passes its line's value as is):
    never a validation error that loses the limit, always epoch seconds of this century (or none)."""
    limit = ev.RateLimitErrorEvent(message="limited", kind=kind, resets_at=resets, retry_after_ms=wait)
    assert limit.resets_at is None or 946_684_800 <= limit.resets_at <= 4_102_444_800
    typed_failure_is_readable(limit)
    again = ev.parse_event_json(ev.event_to_json(limit))  # the stored log reads back the same
    assert isinstance(again, ev.RateLimitErrorEvent) and again.resets_at == limit.resets_at
    waiting = ev.RateLimitedEvent(retry_after_ms=wait)
    assert waiting.retry_after_ms is None or 0 <= waiting.retry_after_ms <= YEAR_S * 1000


def test_a_reset_time_in_milliseconds_is_the_same_time_in_seconds() -> None:
    resets = int(NOW) + 7200
    for value in (resets, resets * 1000, resets * 1_000_000, str(resets), float(resets) + 0.5):
        assert ev.RateLimitErrorEvent(message="m", resets_at=value).resets_at == resets
    events = feed(ClaudeAdapter(), [INIT, limit_event(resets * 1000), *limited_result("You've hit your limit")])
    [limit] = [e for e in events if isinstance(e, ev.RateLimitErrorEvent)]
    assert limit.resets_at == resets


# ── the Python API and ``acp-mux run``, with a fake claude at its limit ──────────────────────────────────────────
def fake_claude_env(resets: Any, state: Path) -> dict[str, str]:
    env = {**os.environ, "ACP_MUX_CLAUDE_BIN": str(LIMITED_CLAUDE), "ACP_MUX_STATE_DIR": str(state)}
    env.pop("FAKE_CLAUDE_RESETS_AT", None)
    if resets is not None:
        env["FAKE_CLAUDE_RESETS_AT"] = raw_json(resets)
    return env


async def api_turn(resets: Any, folder: Path) -> acp_mux.TurnResult:
    env = fake_claude_env(resets, folder / "state")
    async with acp_mux.run(
        "claude", "hello", cwd=folder, env=env, binary=str(LIMITED_CLAUDE), state_dir=folder / "state"
    ) as conversation:
        return await conversation.wait()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(resets=RESETS)
def test_the_python_api_reports_a_limit_with_any_reset_value_as_the_typed_failure(
    resets: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``acp_mux.run`` (a real subprocess speaking claude's stream-json): the turn fails with the typed error,
    never ``end_turn`` (before: the API's handler raised on a millisecond reset, and the turn read ``end_turn``)."""
    folder = tmp_path_factory.mktemp("api")
    result = asyncio.run(api_turn(resets, folder))
    assert result.stop_reason == "error" and result.error is not None, result
    assert result.error.data is not None and result.error.data["limit"] == "quota", result.error
    assert sane(result.error.data.get("resetsAt"), time.time())  # type: ignore[arg-type]


RUN_RESETS = {  # by name: the values are computed per collection, and xdist's workers must collect the same ids
    "seconds": lambda: int(time.time()) + 3600,
    "milliseconds": lambda: (int(time.time()) + 3600) * 1000,
    "huge": lambda: 10**30,
    "a word": lambda: "soon",
    "negative": lambda: -5.5,
    "absent": lambda: None,
}


@pytest.mark.parametrize("kind", list(RUN_RESETS))
def test_acp_mux_run_exits_failed_at_a_limit_whatever_its_reset_value(kind: str, tmp_path: Path) -> None:
    """``acp-mux run`` exits 3 (the prompt failed) and says so, for every reset value (before: a millisecond reset
    printed "stop reason: end_turn" and exited 0)."""
    env = fake_claude_env(RUN_RESETS[kind](), tmp_path / "state")
    done = subprocess.run(
        [sys.executable, "-m", "acp_mux", "run", "--agent", "claude", "hello"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "the prompt failed: error -32603: Usage limit reached" in done.stdout, done.stdout
    assert "58880" not in done.stdout


async def test_an_exception_in_an_api_callback_fails_the_turn_visibly(tmp_path: Path) -> None:
    """A handler that raises (here the caller's ``on_update``) fails the turn with an error naming it; it is never
    logged and forgotten while the turn reads ``end_turn`` (the demo agent answers this prompt normally)."""

    def breaks(update: object) -> None:
        raise RuntimeError("the caller's handler broke")

    async with acp_mux.run("demo", None, cwd=tmp_path, state_dir=tmp_path / "state") as conversation:
        conversation.on_update = breaks
        await conversation.continue_("hello there")
        result = await conversation.wait()
    assert result.stop_reason == "error" and result.error is not None, result
    assert "the caller's handler broke" in result.error.message

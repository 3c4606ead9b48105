"""gemini's and omp's retries of a failing model, read from their own log files (issue 21, item 6).

The lines are the real ones the pinned CLIs wrote against the scripted model server (gemini 0.61.0's debug log,
omp 18.2.3's ~/.omp/logs file). What is checked: each retry of the prompt in flight becomes one retry note with the
provider's message; lines outside a prompt, a status the agent never retries and its last attempt say nothing; and
no line — whatever an attacker or a provider puts in it — makes the parsers raise or invent a retry.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.adapters.acp_agents import omp_retries
from acp_mux.adapters.acp_agents.gemini import GeminiAdapter, max_attempts, retry_line
from acp_mux.adapters.acp_agents.omp import OmpAdapter, OmpRun
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.core.run.prompt import Prompt
from tests.adapters.helpers import AsTheRunDrives

GEMINI_500 = (
    "[2026-11-25T19:24:45.665Z] [WARN] Attempt 1 failed with status 500. Retrying with backoff... _ApiError: "
    '{"error":{"code":500,"message":"Internal error encountered (fake).","status":"INTERNAL"}}'
)
GEMINI_429 = (
    "[2026-11-25T19:30:44.033Z] [WARN] Attempt 2 failed with status 429. Retrying with backoff... _ApiError: "
    '{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}'
)
GEMINI_QUOTA = (
    "[2026-11-25T19:30:44.033Z] [WARN] Attempt 3 failed: Quota exceeded for metric generate_content. "
    "Retrying after 5123ms..."
)
GEMINI_LAST = (
    "[2026-11-25T19:30:44.033Z] [WARN] Attempt 10 failed: Resource has been exhausted (e.g. check quota). "
    "Max attempts reached"
)
GEMINI_STACK = "    at async retryWithBackoff (file:///gemini/bundle/chunk-JDPZ4CE3.js:308039:23)"
OMP_500 = json.dumps(
    {
        "timestamp": "2026-11-25T19:26:11.890+00:00",
        "level": "warn",
        "pid": 14802,
        "message": "agent turn ended with provider error",
        "provider": "fake",
        "model": "fake-model",
        "errorMessage": "500 The server had an error while processing your request (fake).\nThe server "
        "had an error while processing your request (fake). (type=server_error param=server_error)",
        "errorStatus": 500,
        "errorId": 135168,
    }
)
OMP_401 = json.dumps(
    {
        "level": "warn",
        "pid": 16785,
        "message": "agent turn ended with provider error",
        "errorMessage": "401 Incorrect API key provided: sk-fake.\nIncorrect API key",
        "errorStatus": 401,
    }
)
OMP_OTHER = json.dumps(
    {"level": "debug", "pid": 14802, "message": "agent.continue scheduled", "source": "automatic-retry"}
)


def stamped(line: str, at: float | None = None) -> str:
    """omp's line as written at ``at`` (default: now, after the prompt was sent): omp stamps every line, and the
    bridge drops a line written before the prompt in flight was sent (an earlier prompt's, read late)."""
    entry = json.loads(line)
    moment = datetime.fromtimestamp(time.time() if at is None else at, timezone.utc)
    entry["timestamp"] = moment.isoformat(timespec="milliseconds")
    return json.dumps(entry)


def prompting(adapter: Any, name: str) -> ParseContext:
    """A run of ``adapter`` whose session is open and whose prompt is in flight."""
    ctx = ParseContext(run_id="r1", agent=name, cwd="/p")
    driven = AsTheRunDrives(adapter)  # the first prompt waits in the run until the session is open
    driven.start(RunOptions(agent=name, cwd="/p", prompt=Prompt.of_text("hello")), ctx)
    for reply in (
        {"id": 1, "result": {"protocolVersion": 1, "agentCapabilities": {}}},
        {"id": 2, "result": {"sessionId": "s1"}},
    ):
        list(driven.parse_line(json.dumps({"jsonrpc": "2.0", **reply}), ctx))
    assert any(json.loads(m).get("method") == "session/prompt" for m in ctx.take_outbox())
    return ctx


def answered(adapter: Any, ctx: ParseContext) -> None:
    list(adapter.parse_line(json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}}), ctx))


def retries(events: list[Any]) -> list[tuple[int, int, str]]:
    return [(e.attempt, e.max_attempts, e.reason) for e in events if e.type == "retry"]


# ── gemini ─────────────────────────────────────────────────────────────────────────────────────────────────────
def test_gemini_retry_lines_name_the_status_and_the_providers_message() -> None:
    assert retry_line(GEMINI_500) == (1, "the model request failed (HTTP 500: Internal error encountered (fake).)", 0)
    assert retry_line(GEMINI_429) == (
        2,
        "the model request failed (HTTP 429: Resource has been exhausted (e.g. check quota).)",
        0,
    )
    assert retry_line(GEMINI_QUOTA) == (
        3,
        "the model request failed (Quota exceeded for metric generate_content)",
        5123,
    )
    assert retry_line(GEMINI_LAST) is None and retry_line(GEMINI_STACK) is None


def test_each_gemini_retry_of_the_prompt_in_flight_is_a_note_and_nothing_outside_a_prompt(tmp_path: Path) -> None:
    log = tmp_path / "debug.log"
    adapter = GeminiAdapter()
    (side,) = adapter.side_logs(
        SpawnSpec(command="gemini", env={"GEMINI_DEBUG_LOG_FILE": str(log), "HOME": str(tmp_path)}), 1234
    )
    assert side.find() == str(log)
    ctx = prompting(adapter, "gemini")
    events = [e for line in (GEMINI_STACK, GEMINI_500, GEMINI_429, GEMINI_LAST) for e in side.events(line, ctx)]
    assert retries(events) == [
        (1, 9, "the model request failed (HTTP 500: Internal error encountered (fake).); gemini tries again"),
        (
            2,
            9,
            "the model request failed (HTTP 429: Resource has been exhausted (e.g. check quota).); gemini tries again",
        ),
    ]
    answered(adapter, ctx)
    assert list(side.events(GEMINI_500, ctx)) == []


def test_gemini_gets_a_private_debug_log_unless_the_person_named_one(tmp_path: Path) -> None:
    adapter = GeminiAdapter()
    options = RunOptions(agent="gemini", cwd=str(tmp_path), binary="/bin/true", env={"PATH": "/usr/bin"})
    spec = adapter.build_spawn(options)
    assert spec.env is not None
    path = spec.env["GEMINI_DEBUG_LOG_FILE"]
    assert (path, "") in spec.private_files  # created 0600 in the bridge's private folder, removed with the run
    own = RunOptions(agent="gemini", cwd=str(tmp_path), binary="/bin/true", env={"GEMINI_DEBUG_LOG_FILE": "/mine.log"})
    spec = adapter.build_spawn(own)
    assert spec.env is not None and spec.env["GEMINI_DEBUG_LOG_FILE"] == "/mine.log" and spec.private_files == ()


def test_gemini_max_attempts_comes_from_its_settings(tmp_path: Path) -> None:
    assert max_attempts({"HOME": str(tmp_path)}) == 10
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "settings.json").write_text(json.dumps({"general": {"maxAttempts": 3}}))
    assert max_attempts({"GEMINI_CLI_HOME": str(tmp_path)}) == 3
    (tmp_path / ".gemini" / "settings.json").write_text("{not json")
    assert max_attempts({"HOME": str(tmp_path)}) == 10


# ── omp ────────────────────────────────────────────────────────────────────────────────────────────────────────
def test_omp_failed_turn_lines_name_the_status_and_omps_message() -> None:
    assert omp_retries.failed_turn(OMP_500) == (
        500,
        "500 The server had an error while processing your request (fake).",
    )
    assert omp_retries.failed_turn(OMP_401) == (401, "401 Incorrect API key provided: sk-fake.")
    assert omp_retries.failed_turn(OMP_OTHER) is None
    # the words inside another message's field are not the line omp writes for a failed turn
    assert omp_retries.failed_turn(json.dumps({"message": "tool output", "text": omp_retries.FAILED_TURN})) is None


def test_each_omp_turn_it_retries_is_a_note_its_last_attempt_and_a_401_are_not(tmp_path: Path) -> None:
    agent_dir = tmp_path / ".omp" / "agent"
    agent_dir.mkdir(parents=True)
    (agent_dir / "config.yml").write_text("retry:\n  maxRetries: 2\n  baseDelayMs: 50\n")
    adapter = OmpAdapter()
    (side,) = adapter.side_logs(SpawnSpec(command="omp", env={"HOME": str(tmp_path)}), 4242)
    ctx = prompting(adapter, "omp")
    events = [e for line in (OMP_OTHER, OMP_401, OMP_500, OMP_500, OMP_500) for e in side.events(stamped(line), ctx)]
    reason = (
        "the model request failed (500 The server had an error while processing your request (fake).); omp tries again"
    )
    assert retries(events) == [(1, 2, reason), (2, 2, reason)]  # the third failure is the last: its error follows
    answered(adapter, ctx)
    assert list(side.events(stamped(OMP_500), ctx)) == []


def test_omp_log_is_found_by_pid_newest_day_and_rotation_first(tmp_path: Path) -> None:
    logs = tmp_path / ".omp" / "logs"
    find = omp_retries.log_finder({"HOME": str(tmp_path)}, 77, recheck_s=0)
    assert find() is None  # omp has not written it yet
    logs.mkdir(parents=True)
    for name in ("omp.2026-11-25.77.log", "omp.2026-11-25.777.log", "omp.2026-11-24.77.log.3", "omp.2026-11-25.7.log"):
        (logs / name).write_text("")
    assert find() == str(logs / "omp.2026-11-25.77.log")
    (logs / "omp.2026-11-25.77.log.1").write_text("")
    assert find() == str(logs / "omp.2026-11-25.77.log.1")


def test_omp_uses_xdg_state_only_once_that_folder_exists(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "h"), "XDG_STATE_HOME": str(tmp_path / "x")}
    assert omp_retries.state_roots(env) == [str(tmp_path / "h" / ".omp")]
    (tmp_path / "x" / "omp").mkdir(parents=True)
    assert omp_retries.state_roots(env)[0] == str(tmp_path / "x" / "omp")
    assert omp_retries.state_roots({"HOME": "/h", "PI_CONFIG_DIR": ".pi"}) == ["/h/.pi"]


# ── whatever a line holds ──────────────────────────────────────────────────────────────────────────────────────
ANY_LINE = st.one_of(
    st.text(max_size=300),
    st.builds(
        lambda head, tail: head + tail,
        st.sampled_from(
            [
                "[2026-11-25T19:24:45.665Z] [WARN] Attempt ",
                "[x] [WARN] Attempt 1 failed",
                omp_retries.FAILED_TURN,
                '{"message": "agent turn ended with provider error", "errorStatus": ',
                '{"message": "agent turn ended with provider error", "errorMessage": ',
            ]
        ),
        st.text(max_size=300),
    ),
    st.builds(
        lambda status, message: json.dumps(
            {"message": omp_retries.FAILED_TURN, "errorStatus": status, "errorMessage": message}
        ),
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5)),
        st.one_of(st.none(), st.integers(), st.text(max_size=2000)),
    ),
)


@settings(max_examples=400, deadline=None)
@given(line=ANY_LINE)
def test_no_line_makes_the_parsers_raise_and_reasons_stay_bounded(line: str) -> None:
    found = retry_line(line)
    if found is not None:
        assert "Retrying" in line and found[0] >= 0 and len(found[1]) <= 330
    turn = omp_retries.failed_turn(line)
    if turn is not None:
        assert omp_retries.FAILED_TURN in line and len(turn[1]) <= omp_retries.MAX_REASON
        assert turn[0] is None or isinstance(turn[0], int) and not isinstance(turn[0], bool)


@settings(max_examples=200, deadline=None)
@given(message=st.text(max_size=400))
def test_a_providers_message_cannot_add_a_second_retry_or_change_the_attempt(message: str) -> None:
    """The provider's text is what an attacker controls: in omp's JSON line it stays one field of one line."""
    adapter = OmpAdapter()
    (side,) = adapter.side_logs(SpawnSpec(command="omp", env={"HOME": "/nonexistent"}), 1)
    ctx = prompting(adapter, "omp")
    line = stamped(json.dumps({"message": omp_retries.FAILED_TURN, "errorStatus": 500, "errorMessage": message}))
    notes = retries(list(side.events(line, ctx)))
    assert len(notes) == 1 and notes[0][:2] == (1, 10)


def test_once_found_omps_log_folder_is_listed_again_only_now_and_then(tmp_path: Path) -> None:
    logs = tmp_path / ".omp" / "logs"
    logs.mkdir(parents=True)
    (logs / "omp.2026-11-25.5.log").write_text("")
    find = omp_retries.log_finder({"HOME": str(tmp_path)}, 5, recheck_s=3600)
    assert find() == str(logs / "omp.2026-11-25.5.log")
    (logs / "omp.2026-11-25.5.log.1").write_text("")
    assert find() == str(logs / "omp.2026-11-25.5.log")  # not listed again yet


# ── omp's HTTP-level retries, logged by acp-mux's omp extension ────────────────────────────────────────────────
def omp_answer(status: Any, reason: Any, at: float | None = None) -> str:
    """The line ``omp_extension/http_failures.ts`` writes through omp's logger (its shape as omp 18.2.3 wrote it)."""
    return stamped(
        json.dumps(
            {
                "timestamp": "2026-11-25T20:11:51.400+00:00",
                "level": "warn",
                "pid": 14802,
                "message": omp_retries.FAILED_ANSWER,
                "httpStatus": status,
                "httpReason": reason,
            }
        ),
        at,
    )


def test_the_extension_and_the_parser_agree_on_the_line() -> None:
    """The message the extension logs is the one the parser looks for (the two live in two languages)."""
    source = omp_retries_extension().read_text()
    assert f'export const LOG_MESSAGE = "{omp_retries.FAILED_ANSWER}";' in source
    assert "httpStatus: response.status" in source and "httpReason" in source


def omp_retries_extension() -> Path:
    from acp_mux.adapters.acp_agents.omp import HTTP_FAILURES

    assert HTTP_FAILURES.is_file()
    return HTTP_FAILURES


def test_omp_is_started_with_the_extension_and_its_own_asking() -> None:
    spec = OmpAdapter().build_spawn(RunOptions(agent="omp", cwd="/p", prompt=Prompt.of_text("x")))
    assert spec.args[:5] == ["acp", "--approval-mode", "always-ask", "-e", str(omp_retries_extension())]


def test_omp_first_failed_answer_of_a_prompt_is_one_note_then_its_turn_retries(tmp_path: Path) -> None:
    """The first retryable failed HTTP answer of the prompt in flight is shown once, with status and message;
    later answers (omp retries the request 5 more times per stream attempt) add nothing; turn notes keep their
    numbering; a 401 (never retried) says nothing; the next prompt is shown again."""
    adapter = OmpAdapter()
    (side,) = adapter.side_logs(SpawnSpec(command="omp", env={"HOME": str(tmp_path)}), 4242)
    ctx = prompting(adapter, "omp")
    first = "the model request failed (HTTP 500: The server had an error (fake).); omp retries the request by itself"
    lines = [
        omp_answer(401, "Incorrect API key"),
        omp_answer(500, "The server had an error (fake).\nmore"),
        omp_answer(503, "again"),
        stamped(OMP_500),
        omp_answer(500, "third"),
    ]
    events = [e for line in lines for e in side.events(line, ctx)]
    turn = (
        "the model request failed (500 The server had an error while processing your request (fake).); omp tries again"
    )
    assert retries(events) == [(1, 0, first), (1, 10, turn)]
    answered(adapter, ctx)
    assert list(side.events(omp_answer(500, "late"), ctx)) == []  # no prompt in flight: nothing
    adapter.send_prompt(Prompt.of_text("again"), ctx)
    assert any(json.loads(m).get("method") == "session/prompt" for m in ctx.take_outbox())
    assert retries(list(side.events(omp_answer(502, "next"), ctx))) == [
        (1, 0, "the model request failed (HTTP 502: next); omp retries the request by itself")
    ]


def test_omp_failed_answers_outside_a_prompt_or_never_retried_say_nothing(tmp_path: Path) -> None:
    adapter = OmpAdapter()
    (side,) = adapter.side_logs(SpawnSpec(command="omp", env={"HOME": str(tmp_path)}), 1)
    ctx = prompting(adapter, "omp")
    for status in (400, 401, 403, 404):
        assert list(side.events(omp_answer(status, "refused"), ctx)) == []
    assert len(retries(list(side.events(omp_answer(429, "slow down"), ctx)))) == 1


def test_a_known_secret_in_the_providers_message_is_masked(tmp_path: Path) -> None:
    """A provider's error text may quote a key; a key acp-mux knows never reaches the note (nor the store)."""
    from acp_mux.core.text import redact

    secret = "sk-h10-very-secret-value"
    redact.register([secret])
    found = omp_retries.failed_answer(omp_answer(500, f"bad gateway for key {secret}"))
    assert found is not None and secret not in found[1] and redact.MASK in found[1]


ANSWER_LINES = st.one_of(
    st.builds(lambda tail: omp_retries.FAILED_ANSWER + tail, st.text(max_size=200)),
    st.builds(
        omp_answer,
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5), st.floats()),
        st.one_of(st.none(), st.integers(), st.lists(st.text(max_size=5)), st.text(max_size=2000)),
    ),
    st.builds(
        lambda reason: json.dumps(
            {"message": "tool output", "text": omp_retries.FAILED_ANSWER, "httpStatus": 500, "httpReason": reason}
        ),
        st.text(max_size=100),
    ),
)


@settings(max_examples=300, deadline=None)
@given(line=ANSWER_LINES)
def test_no_answer_line_makes_the_parser_raise_or_invent_a_failure(line: str) -> None:
    found = omp_retries.failed_answer(line)
    if found is None:
        return
    entry = json.loads(line)
    assert entry["message"] == omp_retries.FAILED_ANSWER and len(found[1]) <= omp_retries.MAX_REASON
    assert "\n" not in found[1] and (found[0] is None or type(found[0]) is int)


@settings(max_examples=200, deadline=None)
@given(messages=st.lists(st.text(max_size=400), min_size=1, max_size=8))
def test_providers_messages_cannot_add_a_second_answer_note(messages: list[str]) -> None:
    """Whatever a provider answers, however often: one note per prompt for the HTTP layer's retries, one line."""
    adapter = OmpAdapter()
    (side,) = adapter.side_logs(SpawnSpec(command="omp", env={"HOME": "/nonexistent"}), 1)
    ctx = prompting(adapter, "omp")
    notes = retries([e for m in messages for e in side.events(omp_answer(500, m), ctx)])
    assert len(notes) == 1 and notes[0][:2] == (1, 0) and "\n" not in notes[0][2]


def test_an_earlier_prompts_lines_read_late_are_not_the_new_prompts(tmp_path: Path) -> None:
    """The follower polls, so the last lines of a prompt that already failed can be read after the next prompt was
    sent (seen on real omp: its final "agent turn ended" line 12 ms before the next prompt, read 0.2 s later). omp
    stamps each line; one written before the prompt in flight was sent says nothing, and does not use up the
    prompt's one note for its HTTP retries."""
    adapter = OmpAdapter()
    (side,) = adapter.side_logs(SpawnSpec(command="omp", env={"HOME": str(tmp_path)}), 1)
    before = time.time() - 0.05
    ctx = prompting(adapter, "omp")
    late = [stamped(OMP_500, before), omp_answer(500, "earlier", before)]
    assert [e for line in late for e in side.events(line, ctx)] == []
    notes = retries([e for line in (omp_answer(429, "now"), stamped(OMP_500)) for e in side.events(line, ctx)])
    assert [n[:2] for n in notes] == [(1, 0), (1, 10)] and "HTTP 429: now" in notes[0][2]


def test_omp_log_times_are_read_only_when_valid() -> None:
    assert omp_retries.logged_at('{"timestamp": "2026-11-25T20:21:24.205+00:00"}') == 1795638084.205
    for line in (
        "",
        "{}",
        "[]",
        '{"timestamp": 5}',
        '{"timestamp": "yesterday"}',
        '{"timestamp": "2026-11-25T20:21:24"}',
    ):
        assert omp_retries.logged_at(line) is None


@settings(max_examples=200, deadline=None)
@given(ago=st.floats(min_value=0.002, max_value=1e6), status=st.sampled_from([408, 429, 500, 503]))
def test_no_line_written_before_the_prompt_makes_a_note(ago: float, status: int) -> None:
    adapter = OmpAdapter()
    (side,) = adapter.side_logs(SpawnSpec(command="omp", env={"HOME": "/nonexistent"}), 1)
    ctx = prompting(adapter, "omp")
    sent = OmpRun.of(ctx).prompt_sent_at
    turn = stamped(json.dumps({"message": omp_retries.FAILED_TURN, "errorStatus": status}), sent - ago)
    assert list(side.events(omp_answer(status, "x", sent - ago), ctx)) == [] and list(side.events(turn, ctx)) == []

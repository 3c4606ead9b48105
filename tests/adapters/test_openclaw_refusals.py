"""Issue 39, class 6, openclaw: a model address where nothing answers. OpenClaw 2026.9.6 retries it ~60 s with
nothing over ACP; its gateway's log says so at the first attempt. Only such a line of the prompt in flight (written
after it was sent, by a run no earlier prompt or cancel spent and that acp-mux's gateway plugin did not name as
another session's, not while the person cancels) ends the turn: openclaw's prompt is cancelled once and the turn
ends with the typed error. Every other line, of any shape, is ignored and
never raises. The adapter is driven over synthetic ACP; the real CLI is in tests/e2e/test_unreachable_model.py.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as hs

from acp_mux.adapters.acp_agents.openclaw.adapter import OpenclawAdapter
from acp_mux.adapters.acp_agents.openclaw.gateway import Endpoint, Gateway
from acp_mux.adapters.acp_agents.openclaw.refusals import NO_ANSWER, model_call, refusal
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.core.run.prompt import Prompt
from tests.adapters.helpers import AcpWire

NOWHERE = Path("/nonexistent/acp-mux-test")
# The line as 2026.9.6 wrote it for a refused connection (tests/e2e/test_unreachable_model.py, gateway.out).
REAL = (
    "2026-11-29T02:25:59.521+00:00 [agent/embedded] embedded run agent end: "
    "runId=5f842c3e-d4a2-44b8-987b-18d8c9d07e9f isError=true model=fake-model provider=fake "
    "error=LLM request failed: connection refused by the provider endpoint. rawError=Connection error."
)
# Lines of the same gateway log that are no refusal (also from 2026.9.6's output).
OTHERS = [
    (
        "2026-11-29T02:25:59.419+00:00 [provider-transport-fetch] [model-fetch] error provider=fake "
        "api=openai-completions model=fake-model elapsedMs=73 name=TypeError code=undefined causeName=Error "
        "causeCode=ECONNREFUSED message=fetch failed"
    ),
    (
        "2026-11-29T02:25:59.618+00:00 [agent/embedded] transient same-model retry 1/8 for fake/fake-model "
        "reason=timeout: delayMs=1402"
    ),
    (
        "2026-11-29T02:27:03.834+00:00 [diagnostic] lane task error: lane=session:agent:main:acp-bridge:x durationMs=1 "
        'error="LLM request failed: connection refused by the provider endpoint." errorName=FailoverError'
    ),
    (
        "2026-11-29T02:27:03.865+00:00 Embedded agent failed before reply: LLM request failed: connection refused by "
        "the provider endpoint."
    ),
    REAL.replace("connection refused by the provider endpoint.", "network connection was interrupted."),
    REAL.replace("connection refused by the provider endpoint.", "network connection error."),
    REAL.replace("isError=true", "isError=false"),
    REAL.split(" ", 1)[1],  # no time: it could be an earlier prompt's
    REAL.replace("2026-11-29T02", "2026-13-29T02"),  # no valid time
    REAL.replace("[agent/embedded]", "[gateway]"),
]
IDS = hs.text("0123456789abcdef-", min_size=1, max_size=40)
NAMES = hs.text("abcdefghijklmnopqrstuvwxyz0123456789-._/:", min_size=1, max_size=30)


def line(run_id: str, at: float, wording: str = "connection refused by the provider endpoint.", raw: str = "") -> str:
    stamp = datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="milliseconds")
    tail = f" rawError={raw}" if raw else ""
    return (
        f"{stamp} [agent/embedded] embedded run agent end: runId={run_id} isError=true model=fake-model "
        f"provider=fake error=LLM request failed: {wording}{tail}"
    )


# ── the line ───────────────────────────────────────────────────────────────────────────────────────────────────
def test_the_real_refusal_line_is_read_and_the_others_of_its_log_are_not() -> None:
    found = refusal(REAL)
    assert found is not None
    assert found.run_id == "5f842c3e-d4a2-44b8-987b-18d8c9d07e9f"
    assert found.reason == "connection refused by the provider endpoint (fake/fake-model)"
    assert found.at == datetime(2026, 11, 29, 2, 25, 59, 521000, timezone.utc).timestamp()
    for other in OTHERS:
        assert refusal(other) is None, other


@settings(max_examples=300, deadline=None)
@given(
    run_id=IDS,
    model=NAMES,
    provider=NAMES,
    wording=hs.sampled_from(sorted(NO_ANSWER)),
    raw=hs.text(max_size=80).filter(lambda t: "\n" not in t and "\r" not in t),
    at=hs.floats(1e9, 4e9),
)
def test_every_no_answer_line_names_its_run_time_and_endpoint(
    run_id: str, model: str, provider: str, wording: str, raw: str, at: float
) -> None:
    text = line(run_id, at, wording, raw).replace("model=fake-model", f"model={model}")
    text = text.replace("provider=fake ", f"provider={provider} ")
    found = refusal(text)
    assert found is not None, text
    assert found.run_id == run_id
    assert found.reason == f"{NO_ANSWER[wording]} ({provider}/{model})"
    assert abs(found.at - at) < 0.001


@settings(max_examples=500, deadline=None)
@given(hs.one_of(hs.text(max_size=400), hs.sampled_from(OTHERS), hs.binary(max_size=200).map(repr)))
def test_no_other_line_is_a_refusal_or_raises(text: str) -> None:
    assert refusal(text) is None


@settings(max_examples=300, deadline=None)
@given(cut=hs.integers(1, len(REAL) - 1), junk=hs.text(min_size=1, max_size=20))
def test_a_cut_or_spliced_refusal_line_is_none(cut: int, junk: str) -> None:
    """Half a line (the follower reads what is written so far) is not taken before OpenClaw's wording is whole (its
    ``rawError`` tail is optional); something spliced in can change only the free parts (time, run, names, raw
    error), never make another wording read as a refusal."""
    whole = len(REAL.split(" rawError=")[0])
    if cut < whole:
        assert refusal(REAL[:cut]) is None
    found = refusal(REAL[:cut] + junk + REAL[cut:])
    assert found is None or found.reason.startswith("connection refused by the provider endpoint ("), found


def call_line(run_id: str, key: str, at: float = 1795919159.4) -> str:
    """The line acp-mux's gateway plugin (openclaw_plugin/acp-mux-asks.mjs) logs when a model call starts."""
    stamp = datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="milliseconds")
    return f"{stamp} [plugins] acp-mux-asks: model call runId={run_id} sessionKey={key}"


@settings(max_examples=300, deadline=None)
@given(run_id=hs.from_regex(r"[\w.:@-]{1,60}", fullmatch=True), key=hs.from_regex(r"[\w.:@-]{1,60}", fullmatch=True))
def test_the_plugins_model_call_line_names_its_run_and_session(run_id: str, key: str) -> None:
    assert model_call(call_line(run_id, key)) == (run_id, key)
    assert refusal(call_line(run_id, key)) is None
    assert model_call(line(run_id, 1795919159.4)) is None


@settings(max_examples=300, deadline=None)
@given(hs.one_of(hs.text(max_size=300), hs.sampled_from([*OTHERS, REAL])))
def test_no_other_line_is_a_model_call_or_raises(text: str) -> None:
    assert model_call(text) is None


# ── the turn ───────────────────────────────────────────────────────────────────────────────────────────────────
class Openclaw(AcpWire):
    """The adapter with an ACP run to the gateway (its session open), what it sent openclaw and its events."""

    def __init__(self) -> None:
        adapter = OpenclawAdapter()
        adapter.gateway = Gateway("openclaw", {}, root=NOWHERE)
        super().__init__(adapter, ParseContext(run_id="t", agent="openclaw", cwd="/tmp"))
        options = RunOptions(agent="openclaw", cwd="/tmp", env={"ACP_MUX_OPENCLAW_ASK": "ask"})
        adapter._endpoints[id(options)] = Endpoint("ws://127.0.0.1:1", NOWHERE, NOWHERE, NOWHERE)
        adapter.start(options, self.ctx)
        [self.side] = adapter.side_logs(SpawnSpec(command="python3", args=["-m", "relay", "openclaw"]), 4242)
        self.open_session()

    def prompt(self) -> float:
        self.sent.clear()
        self.events.clear()
        self.adapter.send_prompt(Prompt.of_text("Say hello."), self.ctx)
        self.flush()
        assert self.request("session/prompt") is not None
        return time.time()

    def ends(self, answer: str) -> None:
        if answer == "error":
            request = self.request("session/prompt")
            assert request is not None
            self.feed({"id": request["id"], "error": {"code": -32603, "message": "Internal error"}})
        else:
            self.answer("session/prompt", {"stopReason": answer})

    def log(self, text: str) -> None:
        self.events += list(self.side.events(text, self.ctx))
        self.flush()

    def cancels(self) -> int:
        return sum(1 for m in self.sent if m.get("method") == "session/cancel")

    def outcome(self) -> list[str]:
        return [e.type for e in self.events if e.type in ("error", "turn_end", "interrupted", "auth_error")]

    def error(self) -> str:
        return next(e.message for e in self.events if e.type == "error")


@settings(max_examples=80, deadline=None)
@given(
    after=hs.floats(0.0, 60.0),
    noise=hs.lists(hs.one_of(hs.sampled_from(OTHERS), hs.text(max_size=60)), max_size=4),
    twice=hs.booleans(),
    answer=hs.sampled_from(["cancelled", "end_turn", "error"]),
)
def test_the_prompts_first_refusal_cancels_it_once_and_the_turn_ends_with_the_typed_error(
    after: float, noise: list[str], twice: bool, answer: str
) -> None:
    agent = Openclaw()
    sent = agent.prompt()
    for text in noise:
        agent.log(text)
    assert agent.cancels() == 0  # nothing else ends the turn
    agent.log(line("run-1", sent + after))
    if twice:
        agent.log(line("run-1", sent + after + 2))
        agent.log(line("run-2", sent + after + 3))  # another run's (a second session of this bridge): still once
    assert agent.cancels() == 1
    agent.ends(answer)
    assert agent.outcome() == ["error", "turn_end"], agent.events
    assert agent.error() == (
        "The model could not be reached: connection refused by the provider endpoint (fake/fake-model)."
    )


@settings(max_examples=80, deadline=None)
@given(before=hs.floats(0.01, 600.0), answer=hs.sampled_from(["end_turn", "cancelled"]))
def test_a_refusal_written_before_the_prompt_was_sent_is_not_its_failure(before: float, answer: str) -> None:
    """The follower reads up to a poll late: an earlier prompt's refusal, read now, is no failure of this one."""
    agent = Openclaw()
    sent = agent.prompt()
    agent.log(line("old-run", sent - before))
    assert agent.cancels() == 0
    agent.ends(answer)
    assert "error" not in agent.outcome(), agent.events
    sent = agent.prompt()  # the next prompt: the same late line is ignored, its own refusal is not
    agent.log(line("older-run", sent - before))
    assert agent.cancels() == 0
    agent.log(line("new-run", sent + before / 100))
    assert agent.cancels() == 1
    agent.ends(answer)
    assert agent.outcome() == ["error", "turn_end"], agent.events


@settings(max_examples=60, deadline=None)
@given(after=hs.floats(0.0, 60.0), answer=hs.sampled_from(["cancelled", "error"]))
def test_a_refusal_while_the_person_cancels_is_a_cancel(after: float, answer: str) -> None:
    """The person cancelled: OpenClaw's aborted request may still be logged as refused. That is no failure."""
    agent = Openclaw()
    sent = agent.prompt()
    assert agent.adapter.interrupt(agent.ctx)
    agent.log(line("run-1", sent + after))
    assert agent.cancels() == 1  # the person's, none of ours
    agent.ends(answer)
    assert agent.outcome() == (["interrupted", "turn_end"] if answer == "cancelled" else ["turn_end"]), agent.events
    sent = agent.prompt()  # the next prompt is no cancel: its own refusal ends it typed
    agent.log(line("run-2", sent + after))
    assert agent.cancels() == 1
    agent.ends(answer)
    assert agent.outcome() == ["error", "turn_end"], agent.events


@settings(max_examples=60, deadline=None)
@given(after=hs.floats(0.0, 30.0), earlier=hs.sampled_from(["unreachable", "cancelled", "idle"]))
def test_a_late_line_of_a_spent_run_never_ends_the_next_prompt(after: float, earlier: str) -> None:
    """A run whose refusal was already taken (or came while the person cancelled, or with no prompt out) may log
    again after the next prompt was sent: only a new run's refusal ends that prompt."""
    agent = Openclaw()
    sent = agent.prompt()
    if earlier == "cancelled":
        agent.adapter.interrupt(agent.ctx)
    if earlier == "idle":
        agent.ends("end_turn")
    agent.log(line("run-1", sent + after))
    if earlier != "idle":
        agent.ends("cancelled")
    sent = agent.prompt()
    agent.log(line("run-1", sent + 1))
    assert agent.cancels() == 0
    agent.log(line("run-2", sent + 2))
    assert agent.cancels() == 1
    agent.ends("cancelled")
    assert agent.outcome() == ["error", "turn_end"], agent.events


def test_once_unreachable_openclaws_retry_lines_are_no_retry_notes() -> None:
    """OpenClaw logs its retry of the refused request right after the refusal: the turn is already over."""
    agent = Openclaw()
    sent = agent.prompt()
    agent.log(OTHERS[1])
    assert [e.type for e in agent.events if e.type == "retry"] == ["retry"]  # before: a retry note, as for a 429
    agent.events.clear()
    agent.log(line("run-1", sent + 1))
    agent.log(OTHERS[1])
    assert [e.type for e in agent.events if e.type == "retry"] == []


@settings(max_examples=60, deadline=None)
@given(after=hs.floats(0.0, 30.0), other=hs.sampled_from(["agent:main:acp-bridge:T", "T", "agent:main:main"]))
def test_a_refusal_of_a_run_the_plugin_named_as_another_sessions_ends_nothing(after: float, other: str) -> None:
    """Two sessions turn at once through the shared gateway: the other one's refusal is not this prompt's; a run the
    plugin names as this session's (by its gateway key) still ends it."""
    agent = Openclaw()
    sent = agent.prompt()
    agent.log(call_line("their-run", other))
    agent.log(line("their-run", sent + after))
    assert agent.cancels() == 0
    agent.log(call_line("our-run", "agent:main:acp-bridge:S"))
    agent.log(line("our-run", sent + after + 1))
    assert agent.cancels() == 1
    agent.ends("cancelled")
    assert agent.outcome() == ["error", "turn_end"], agent.events

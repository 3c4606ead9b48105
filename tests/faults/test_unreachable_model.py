"""Issue 39, class 6: a model endpoint that cannot be reached is a failure like any other. hermes ends such a turn
``end_turn`` with "API call failed after 3 retries: Connection error." as its text; omp retries in silence for
~30 s and then calls it a ``refusal``. Whatever the split of the text into chunks, the retries, the error's words
and the moment omp's extension reports the request that got no answer, the turn ends with the typed error, never
``end_turn``; a model's real reply that merely mentions a refused connection stays a reply.

The adapters are driven over synthetic ACP (the agent's side written here); the real CLIs are in
``tests/e2e/test_unreachable_model.py``.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as hs

from acp_mux.adapters.acp_agents.hermes import HermesAdapter
from acp_mux.adapters.acp_agents.omp import OmpAdapter
from acp_mux.adapters.acp_agents.omp_retries import FAILED_CONNECT
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.run.prompt import Prompt
from tests.adapters.helpers import AcpWire

REASONS = hs.sampled_from(
    [
        "Connection error.",
        "ECONNREFUSED: Unable to connect. Is the computer able to access the url?",
        "connect ECONNREFUSED 127.0.0.1:9",
        "fetch failed",
        "Unable to connect. Is the computer able to access the url?",
        "ENOTFOUND: getaddrinfo ENOTFOUND model.invalid",
    ]
)


class Agent(AcpWire):
    """One adapter with its session open, a prompt in flight, and what it sent the agent."""

    def __init__(self, adapter: Any) -> None:
        super().__init__(adapter, ParseContext(run_id="t", agent=adapter.name, cwd="/tmp"))
        self.options = RunOptions(agent=adapter.name, cwd="/tmp")
        adapter.start(self.options, self.ctx)
        self.open_session()
        adapter.send_prompt(Prompt.of_text("Say hello."), self.ctx)
        self.flush()
        assert self.request("session/prompt") is not None

    def says(self, text: str) -> None:
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
        self.feed({"method": "session/update", "params": {"sessionId": "S", "update": update}})

    def ends(self, stop: str, usage: bool = False) -> None:
        result: dict[str, Any] = {"stopReason": stop}
        if usage:
            result["usage"] = {"inputTokens": 12, "outputTokens": 3, "totalTokens": 15}
        self.answer("session/prompt", result)

    def side_log(self, line: str) -> None:
        [side] = self.adapter.side_logs(self.adapter.build_spawn(self.options), 4242)
        self.events += list(side.events(line, self.ctx))
        self.flush()

    def outcome(self) -> list[str]:
        return [e.type for e in self.events if e.type in ("error", "turn_end", "rate_limit_error", "auth_error")]


def chunks(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in zip(points, points[1:]) if b > a]


@settings(max_examples=150, deadline=None)
@given(reason=REASONS, retries=hs.integers(0, 12), cuts=hs.lists(hs.integers(0, 200), max_size=4))
def test_hermes_out_of_retries_on_an_unreachable_model_ends_with_the_typed_error(
    reason: str, retries: int, cuts: list[int]
) -> None:
    agent = Agent(HermesAdapter())
    for piece in chunks(f"API call failed after {retries} retries: {reason}", cuts):
        agent.says(piece)
    agent.ends("end_turn")
    assert agent.outcome() == ["error", "turn_end"], agent.events
    [error] = [e for e in agent.events if e.type == "error"]
    assert error.recoverable and error.message.startswith("The model could not be reached: ")


@settings(max_examples=60, deadline=None)
@given(reason=REASONS, before=hs.sampled_from(["Sure. ", "Here is what I found:\n", ""]), usage=hs.booleans())
def test_a_reply_that_mentions_a_refused_connection_is_still_a_reply(reason: str, before: str, usage: bool) -> None:
    """The model answered (usage), or its reply only mentions the words after other text: no failure is made up."""
    for adapter in (HermesAdapter(), OmpAdapter()):
        agent = Agent(adapter)
        agent.says(f"{before}{reason}\nThe server in your config is down." if before or not usage else reason)
        agent.ends("end_turn", usage=usage or bool(before))
        assert agent.outcome() == ["turn_end"], (adapter.name, agent.events)


def extension_line(reason: str, at: datetime) -> str:
    """The line acp-mux's omp extension writes into omp's log for a model request that got no answer."""
    stamp = at.isoformat(timespec="milliseconds")
    return json.dumps({"level": "warn", "timestamp": stamp, "message": FAILED_CONNECT, "httpReason": reason})


@settings(max_examples=100, deadline=None)
@given(
    reason=REASONS,
    said=hs.lists(hs.sampled_from(["", "Let me ", "think."]), max_size=2),
    answer=hs.sampled_from(["cancelled", "end_turn", "refusal", "error"]),
    twice=hs.booleans(),
)
def test_omp_stops_at_the_first_request_that_got_no_answer_and_the_turn_ends_typed(
    reason: str, said: list[str], answer: str, twice: bool
) -> None:
    """The extension's line arrives (after whatever omp said): omp's prompt is cancelled once, at once, and its
    answer to that, whatever it is, ends the turn with the typed error (before: ~30 s of silence, then a refusal)."""
    agent = Agent(OmpAdapter())
    for piece in said:
        agent.says(piece)
    now = datetime.now(timezone.utc)
    agent.side_log(extension_line(reason, now))
    if twice:
        agent.side_log(extension_line(reason, now))
    assert [m["method"] for m in agent.sent if m.get("method") == "session/cancel"] == ["session/cancel"]
    if answer == "error":
        request = agent.request("session/prompt")
        assert request is not None
        agent.feed({"id": request["id"], "error": {"code": -32603, "message": "Internal error"}})
    else:
        agent.ends(answer)
    assert agent.outcome() == ["error", "turn_end"], agent.events
    [error] = [e for e in agent.events if e.type == "error"]
    assert error.message.startswith("The model could not be reached: ") and reason.rstrip(".") in error.message


@settings(max_examples=40, deadline=None)
@given(reason=REASONS)
def test_omps_own_refusal_with_the_connection_error_as_text_is_the_typed_error(reason: str) -> None:
    """Without the extension's line (an older extension, a line read late): omp's own end, ~30 s later."""
    agent = Agent(OmpAdapter())
    agent.says(reason)
    agent.ends("refusal")
    assert agent.outcome() == ["error", "turn_end"], agent.events
    [error] = [e for e in agent.events if e.type == "error"]  # not "The agent refused to continue." (a refusal)
    assert error.code == "AGENT_ERROR" and error.message.startswith("The model could not be reached: "), error


CODEX_NO_ANSWER = hs.sampled_from(
    [
        "Connection failed: error sending request",
        "error sending request for url (http://127.0.0.1:9/v1/responses)",
        "tcp connect error: Connection refused (os error 111)",
        "dns error: failed to lookup address information",
    ]
)


@settings(max_examples=60, deadline=None)
@given(details=CODEX_NO_ANSWER, status=hs.sampled_from(["interrupted", "failed"]), kind=hs.sampled_from(["", "x"]))
def test_codex_reconnecting_to_a_model_nothing_answers_is_interrupted_and_ends_typed(
    details: str, status: str, kind: str
) -> None:
    """codex retries a connection that fails for minutes ("Reconnecting... 1/5"): at the first one the turn is
    interrupted, and its end (whatever codex calls it) is the typed error (before: minutes of retries)."""
    from tests.adapters.helpers import feed
    from tests.adapters.test_codex import _started, sent

    adapter, ctx, _ = _started()
    info = {"responseStreamConnectionFailed": {"httpStatusCode": None}} if kind else None
    error = {"message": "Reconnecting... 1/5", "codexErrorInfo": info, "additionalDetails": details}
    started = {"method": "turn/started", "params": {"threadId": "T1", "turn": {"id": "U1"}}}
    retried = {"method": "error", "params": {"threadId": "T1", "turnId": "U1", "willRetry": True, "error": error}}
    events = feed(adapter, [started, retried], ctx)
    assert any(m.get("method") == "turn/interrupt" for m in sent(ctx)), "the turn was not interrupted"
    done = {"method": "turn/completed", "params": {"threadId": "T1", "turn": {"id": "U1", "status": status}}}
    events += feed(adapter, [done], ctx)
    ends = [e.type for e in events if e.type in ("error", "turn_end", "interrupted")]
    assert ends == ["error", "turn_end"], events
    [failure] = [e for e in events if e.type == "error"]
    assert failure.message.startswith("The model could not be reached: "), failure


def test_codex_retrying_an_http_error_is_left_to_codex() -> None:
    """A 500 or 429 codex retries is its own business (the model answered): no interrupt, no made-up failure."""
    from tests.adapters.helpers import feed
    from tests.adapters.test_codex import _started, sent

    adapter, ctx, _ = _started()
    info = {"responseStreamConnectionFailed": {"httpStatusCode": 500}}
    error = {"message": "Reconnecting... 1/5", "codexErrorInfo": info, "additionalDetails": "500 Internal Server Error"}
    started = {"method": "turn/started", "params": {"threadId": "T1", "turn": {"id": "U1"}}}
    retried = {"method": "error", "params": {"threadId": "T1", "turnId": "U1", "willRetry": True, "error": error}}
    feed(adapter, [started, retried], ctx)
    assert not any(m.get("method") == "turn/interrupt" for m in sent(ctx))

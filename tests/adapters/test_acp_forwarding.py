"""Forwarding without loss, agent → editor and editor → agent, for the ACP-client family.

Editor → agent: a prompt's content blocks reach an ACP agent field for field (annotations, ``_meta``, a link's
title, size and description, keys no ACP version defines), generated over every v1 ContentBlock kind.
Agent → editor: ``messageId`` on message and thought chunks, ``usage_update`` and ``session_info_update`` as the
agent wrote them (any currency, ``_meta``, a ``null`` that clears), update kinds from a newer ACP; a malformed one
is dropped, never forwarded and never fatal; arbitrary JSON lines never stop the run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.run.prompt import Prompt
from acp_mux.protocol import wire
from acp_mux.translation.content import UnsupportedContent, to_prompt
from acp_mux.translation.updates import UpdateTranslator
from tests.adapters.test_acp_client import Agent, line, update
from tests.protocol.test_wire import CONTENT_BLOCK, EXTRA, JSON, META_DICT


class _NoTools:
    def lookup(self, name: str) -> Any:
        raise AssertionError("no tool is looked up here")


def _agent(tmp_path: Path) -> Agent:
    agent = Agent(str(tmp_path), prompt=None)
    agent.open_session()
    return agent


def _translated(events: list[Any]) -> list[dict[str, Any]]:
    translator = UpdateTranslator(_NoTools(), "/")
    out: list[dict[str, Any]] = []
    for event in events:
        if event.type == "agent_update":
            out += translator.forward(event.update)
        else:
            out += translator.translate(event)
    return out


# ── editor → agent: content blocks ─────────────────────────────────────────────────────────────────────────────
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(CONTENT_BLOCK, min_size=1, max_size=4))
def test_an_editors_prompt_reaches_an_acp_agent_field_for_field(tmp_path: Path, blocks: list[dict[str, Any]]) -> None:
    try:
        prompt = to_prompt(blocks, agent="gemini", images=True, audio=True, embedded=True)
    except UnsupportedContent:  # (a binary resource that is no image: refused with a message, never sent changed)
        assume(False)
    agent = _agent(tmp_path)
    agent.adapter.send_prompt(prompt, agent.ctx)
    sent = agent.sent()[-1]
    assert sent["method"] == "session/prompt"
    assert sent["params"]["prompt"] == blocks
    assert json.loads(json.dumps(sent["params"]["prompt"])) == blocks


def test_context_acp_mux_adds_is_built_and_the_editors_blocks_stay_whole(tmp_path: Path) -> None:
    from acp_mux.core.run.prompt import TextPart

    link = {"type": "resource_link", "name": "a", "uri": "file:///a", "title": "A", "size": 3, "_meta": {"k": 1}}
    prompt = to_prompt([link], agent="gemini", images=True, audio=True, embedded=True)
    agent = _agent(tmp_path)
    agent.adapter.send_prompt(Prompt((TextPart("earlier turns"), *prompt.parts)), agent.ctx)
    assert agent.sent()[-1]["params"]["prompt"] == [{"type": "text", "text": "earlier turns"}, link]


# ── agent → editor: message ids ────────────────────────────────────────────────────────────────────────────────
CHUNK = st.tuples(
    st.sampled_from(["agent_message_chunk", "agent_thought_chunk"]),
    st.none() | st.sampled_from(["m1", "m2", "m3"]),
    st.text(min_size=1, max_size=5),
)


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(CHUNK, min_size=1, max_size=12))
def test_every_chunk_reaches_the_editor_with_its_message_id(
    tmp_path: Path, chunks: list[tuple[str, str | None, str]]
) -> None:
    agent = _agent(tmp_path)
    events: list[Any] = []
    for kind, message_id, text in chunks:
        fields: dict[str, Any] = {"content": {"type": "text", "text": text}}
        if message_id is not None:
            fields["messageId"] = message_id
        events += agent.feed(update(kind, **fields))
    shown = [u for u in _translated(events) if u["sessionUpdate"] in ("agent_message_chunk", "agent_thought_chunk")]
    assert [(u["sessionUpdate"], u["content"]["text"]) for u in shown] == [(kind, text) for kind, _, text in chunks]
    for at, (kind, message_id, _) in enumerate(chunks):
        if message_id is not None:  # the agent's own id, as it wrote it
            assert shown[at]["messageId"] == message_id
        elif at and chunks[at - 1][0] == kind:  # no id: the chunk continues the open message, with its id
            assert shown[at]["messageId"] == shown[at - 1]["messageId"]
        else:  # no id and no open message of its kind: a new message, with a new id of acp-mux's
            earlier = {u["messageId"] for u in shown[:at]}
            assert shown[at]["messageId"] not in earlier | {"m1", "m2", "m3"}


def test_a_new_message_id_ends_the_message_before_it(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    chunk = {"type": "text", "text": "a"}
    events = agent.feed(
        update("agent_message_chunk", content=chunk, messageId="m1"),
        update("agent_message_chunk", content=chunk, messageId="m1"),
        update("agent_message_chunk", content=chunk, messageId="m2"),
    )
    kinds = [e.type for e in events if e.type in ("message_start", "text_delta", "message_stop")]
    assert kinds == ["message_start", "text_delta", "text_delta", "message_stop", "message_start", "text_delta"]
    assert [e.message_id for e in events if e.type == "text_delta"] == ["m1", "m1", "m2"]


# ── agent → editor: usage, session info, newer kinds ───────────────────────────────────────────────────────────
OPTIONAL_META = {"_meta": st.none() | META_DICT}
USAGE = st.fixed_dictionaries(
    {"sessionUpdate": st.just("usage_update"), "used": st.integers(0, 2**40), "size": st.integers(0, 2**40)},
    optional={
        "cost": st.none()
        | st.fixed_dictionaries(
            {"amount": st.floats(0, 1e6, allow_nan=False), "currency": st.sampled_from(["USD", "EUR", "JPY", "x"])},
            optional=OPTIONAL_META,
        ),
        **OPTIONAL_META,
    },
)
INFO = st.fixed_dictionaries(
    {"sessionUpdate": st.just("session_info_update")},
    optional={
        "title": st.none() | st.text(max_size=40),
        "updatedAt": st.none() | st.text(max_size=30),
        **OPTIONAL_META,
    },
)
NEWER = st.fixed_dictionaries(
    {"sessionUpdate": st.sampled_from(["x_new_kind", "session_summary"])}, optional={"data": JSON, **OPTIONAL_META}
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(USAGE | INFO | NEWER, min_size=1, max_size=5))
def test_usage_titles_and_newer_kinds_reach_the_editor_as_the_agent_wrote_them(
    tmp_path: Path, updates: list[dict[str, Any]]
) -> None:
    agent = _agent(tmp_path)
    events: list[Any] = []
    for one in updates:
        events += agent.feed(line({"method": "session/update", "params": {"sessionId": "s", "update": one}}))
    assert [e.update for e in events if e.type == "agent_update"] == updates
    assert _translated(events) == updates  # nothing added (no second usage figure), nothing changed
    dollars = [
        u["cost"]["amount"]
        for u in updates
        if u["sessionUpdate"] == "usage_update" and u.get("cost") and u["cost"]["currency"] == "USD"
    ]
    assert [e.cost.total_usd for e in events if e.type == "cost"] == dollars  # the run's cost counts dollars only


def test_once_the_agent_reports_its_window_acp_mux_sends_no_estimate_of_its_own() -> None:
    from acp_mux.core.events import union as ev

    translator = UpdateTranslator(_NoTools(), "/")
    usage = ev.TokenUsageEvent(input_tokens=10, output_tokens=5)
    assert translator.translate(usage)[0]["size"] == 200_000  # an agent that reports nothing: acp-mux's estimate
    assert translator.forward({"sessionUpdate": "usage_update", "used": 7, "size": 1000}) != []
    assert translator.translate(usage) == []
    assert translator.translate(ev.CostEvent(cost=ev.CostRecord(total_usd=1.0))) == []


@given(
    st.sampled_from(["usage_update", "session_info_update"]),
    st.dictionaries(st.sampled_from(["used", "size", "title", "updatedAt", "cost", "_meta"]), JSON, min_size=1),
)
def test_a_malformed_update_is_dropped_never_forwarded(kind: str, fields: dict[str, Any]) -> None:
    from acp_mux.protocol import wire

    whole = {"sessionUpdate": kind, **fields}
    try:
        wire.parse_params("session/update", {"sessionId": "s", "update": whole})
        fits = True
    except wire.AcpShapeError:
        fits = False
    from acp_mux.adapters.acp_agents.acp_client import AcpClientAdapter

    forwarded = AcpClientAdapter().on_update(whole, ParseContext(run_id="r", agent="acp", cwd="/"))
    assert [e.update for e in forwarded if e.type == "agent_update"] == ([whole] if fits else [])


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(JSON | st.text(max_size=40), min_size=1, max_size=6))
def test_arbitrary_json_from_an_agent_never_stops_the_run(tmp_path: Path, lines: list[Any]) -> None:
    agent = _agent(tmp_path)
    for value in lines:
        raw = value if isinstance(value, str) else json.dumps(value)
        agent.feed(raw)
        for shaped in (
            {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": value}},
            {"jsonrpc": "2.0", "method": "session/update", "params": value},
            {"jsonrpc": "2.0", "id": 99, "method": "session/request_permission", "params": value},
            {"jsonrpc": "2.0", "id": 98, "method": "fs/read_text_file", "params": value},
        ):
            agent.feed(json.dumps(shaped))
    agent.feed(update("agent_message_chunk", content={"type": "text", "text": "still here"}))
    assert "still here" in "".join(e.delta for e in agent.events if e.type == "text_delta")
    answered = {m.get("id") for m in agent.sent() if "method" not in m}
    assert {99, 98} <= answered  # every request was answered


# ── agent → editor: plans and commands ─────────────────────────────────────────────────────────────────────────
PLAN = st.fixed_dictionaries(
    {
        "sessionUpdate": st.just("plan"),
        "entries": st.lists(
            st.fixed_dictionaries(
                {
                    "content": st.text(max_size=20),
                    "status": st.sampled_from(["pending", "in_progress", "completed"]),
                    "priority": st.sampled_from(["high", "medium", "low"]),
                },
                optional=OPTIONAL_META,
            ),
            max_size=4,
        ),
    },
    optional=OPTIONAL_META,
)
COMMANDS = st.fixed_dictionaries(
    {
        "sessionUpdate": st.just("available_commands_update"),
        "availableCommands": st.lists(
            st.fixed_dictionaries(
                {"name": st.text(min_size=1, max_size=10), "description": st.text(max_size=20)},
                optional={
                    "input": st.none() | st.fixed_dictionaries({"hint": st.text(max_size=10)}, optional=OPTIONAL_META),
                    **OPTIONAL_META,
                },
            ),
            max_size=4,
        ),
    },
    optional=OPTIONAL_META,
)


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(PLAN)
def test_an_agents_plan_reaches_the_editor_as_it_wrote_it(tmp_path: Path, plan: dict[str, Any]) -> None:
    agent = _agent(tmp_path)
    events = agent.feed(line({"method": "session/update", "params": {"sessionId": "s", "update": plan}}))
    assert [u for u in _translated(events) if u["sessionUpdate"] == "plan"] == [plan]
    (event,) = [e for e in events if e.type == "plan_update"]
    assert [x.content for x in event.entries] == [x["content"] for x in plan["entries"]]  # the union's view too


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(COMMANDS)
def test_an_agents_commands_reach_the_editor_as_it_wrote_them(tmp_path: Path, commands: dict[str, Any]) -> None:
    from types import SimpleNamespace

    from acp_mux.server.sessions.live_session import LiveSession

    agent = _agent(tmp_path)
    events = agent.feed(line({"method": "session/update", "params": {"sessionId": "s", "update": commands}}))
    (event,) = [e for e in events if e.type == "commands_update"]
    sent: list[dict[str, Any]] = []
    session = SimpleNamespace(choices=None, id="s", _send_update=lambda _sid, payload: sent.append(payload))
    LiveSession._on_commands(session, event)  # type: ignore[arg-type]
    assert sent == [commands if "_meta" not in commands else {k: v for k, v in commands.items() if k != "_meta"}]


def test_a_malformed_plan_is_still_shown_as_far_as_it_goes(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    plan = {"sessionUpdate": "plan", "entries": [{"content": "a", "status": "doing", "priority": "high"}]}
    events = agent.feed(line({"method": "session/update", "params": {"sessionId": "s", "update": plan}}))
    assert [u for u in _translated(events) if u["sessionUpdate"] == "plan"] == [
        {"sessionUpdate": "plan", "entries": [{"content": "a", "priority": "high", "status": "pending"}]}
    ]


# ── the edge: what does not fit ACP ────────────────────────────────────────────────────────────────────────────
def test_a_request_outside_acp_is_answered_invalid_params_and_said(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    events = agent.feed(
        line({"id": 41, "method": "session/request_permission", "params": {"sessionId": "s", "options": []}}),
        line({"id": 42, "method": "fs/read_text_file", "params": {"sessionId": "s", "path": 7}}),
    )
    answers = {m["id"]: m for m in agent.sent() if m.get("id") in (41, 42) and "method" not in m}
    assert {i: a["error"]["code"] for i, a in answers.items()} == {41: -32602, 42: -32602}
    assert "toolCall" in answers[41]["error"]["message"] and "path" in answers[42]["error"]["message"]
    assert [e.level for e in events if e.type == "debug"] == ["warn", "warn"]
    assert not [e for e in events if e.type == "approval_request"]


def test_an_answer_outside_acp_is_a_typed_failure_naming_the_fields(tmp_path: Path) -> None:
    agent = Agent(str(tmp_path), prompt=None)
    events = agent.feed(line({"id": 2, "result": {"sessionId": 5}}))  # session/new answered with a number
    (error,) = [e for e in events if e.type == "error"]
    assert "session/new" in error.message and "sessionId" in error.message and not error.recoverable


def test_an_update_outside_acp_is_shown_as_far_as_it_goes_never_forwarded(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    events = agent.feed(
        update("agent_message_chunk", content={"type": "text", "text": "hi", "annotations": 3}),
        update("usage_update", used="many", size=10),
    )
    assert "".join(e.delta for e in events if e.type == "text_delta") == "hi"
    assert [e.type for e in events if e.type in ("debug", "agent_update")] == ["debug", "debug"]


# ── elicitations: to the editor that declared the mode, else today's dialog or a refusal ──────────────────────
FORM = {
    "sessionId": "s",
    "mode": "form",
    "message": "Allow tool: write\nPath: /p/notes.txt",
    "requestedSchema": {"type": "object", "properties": {"value": {"type": "string", "enum": ["Approve", "Deny"]}}},
}
URL = {"sessionId": "s", "mode": "url", "message": "Sign in", "url": "https://example.test/x", "elicitationId": "e1"}


def _omp(tmp_path: Path, declared: dict[str, Any] | None) -> Agent:
    from acp_mux.adapters.acp_agents.omp import OmpAdapter

    agent = Agent(str(tmp_path), prompt=None, client_capabilities={"elicitation": declared} if declared else {})
    agent.adapter = OmpAdapter()  # (the family's omp: elicitation_form set; same handshake)
    agent.ctx = ParseContext(run_id="r1", agent="omp", cwd=str(tmp_path))
    agent.adapter.start(agent.options, agent.ctx)
    agent.feed(line({"id": 1, "result": {"protocolVersion": 1, "agentCapabilities": {}}}))
    agent.feed(line({"id": 2, "result": {"sessionId": "s"}}))
    return agent


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from([FORM, URL]), JSON)
def test_an_elicitation_reaches_an_editor_that_declared_its_mode_and_the_answer_comes_back_unchanged(
    tmp_path: Path, asked: dict[str, Any], answer: Any
) -> None:
    agent = _omp(tmp_path, {"form": {}, "url": {}})
    init = agent.sent()[0]["params"]["clientCapabilities"]
    assert init["elicitation"] == {"form": {}, "url": {}}  # the agent learns what the editor shows
    (relayed,) = agent.feed(line({"id": 50, "method": "elicitation/create", "params": asked}))
    assert relayed.type == "client_request" and relayed.method == "elicitation/create"
    assert relayed.params == {k: v for k, v in asked.items() if k != "sessionId"}  # the session adds its own id
    assert not [e for e in agent.events if e.type == "approval_request"]  # no second owner of the question
    agent.adapter.respond_client_request(relayed.request_id, answer, None, agent.ctx)
    (reply,) = [m for m in agent.sent() if m.get("id") == 50]
    assert reply["result"] == (answer if answer is not None else {})


def test_without_the_editors_forms_omps_approval_form_is_a_permission_dialog_and_a_url_is_declined(
    tmp_path: Path,
) -> None:
    agent = _omp(tmp_path, None)
    assert agent.sent()[0]["params"]["clientCapabilities"]["elicitation"] == {"form": {}}
    events = agent.feed(line({"id": 51, "method": "elicitation/create", "params": FORM}))
    assert [e.type for e in events if e.type in ("approval_request", "client_request")] == ["approval_request"]
    agent.feed(line({"id": 52, "method": "elicitation/create", "params": URL}))
    (reply,) = [m for m in agent.sent() if m.get("id") == 52]
    assert reply["result"] == {"action": "decline"}


def test_a_cancel_answers_a_form_still_open_in_the_editor_cancelled(tmp_path: Path) -> None:
    agent = _omp(tmp_path, {"form": {}})
    agent.adapter.send_prompt(Prompt.of_text("hi"), agent.ctx)
    (relayed,) = agent.feed(line({"id": 53, "method": "elicitation/create", "params": FORM}))
    agent.adapter.interrupt(agent.ctx)
    (reply,) = [m for m in agent.sent() if m.get("id") == 53]
    assert reply["result"] == {"action": "cancel"}
    agent.adapter.respond_client_request(relayed.request_id, {"action": "accept"}, None, agent.ctx)  # too late
    assert not [m for m in agent.sent() if m.get("id") == 53]  # answered once (sent() reads what is new)


def test_our_answers_are_checked_by_the_schema_and_never_withheld(tmp_path: Path, caplog: Any) -> None:
    agent = _agent(tmp_path)
    good = {"outcome": {"outcome": "selected", "optionId": "proceed_once", "_meta": {"k": [1, None]}}}
    agent.adapter.answer_agent(agent.ctx, 61, "session/request_permission", good)
    agent.adapter.answer_agent(agent.ctx, 62, "session/request_permission", {"outcome": {"outcome": "maybe"}})
    answers = {m["id"]: m["result"] for m in agent.sent() if m.get("id") in (61, 62)}
    assert answers == {61: good, 62: {"outcome": {"outcome": "maybe"}}}  # (a bug of ours: sent, never a stall)
    assert "does not fit ACP" in caplog.text


# ── elicitation/complete: the url flow's second half, to the editor that was shown the url ─────────────────────
def _complete(params: Any) -> str:
    return line({"method": "elicitation/complete", "params": params})


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=12), st.none() | META_DICT, EXTRA)
def test_a_url_elicitations_completion_reaches_the_editor_that_was_shown_the_url_as_the_agent_wrote_it(
    tmp_path: Path, elicitation_id: str, meta: dict[str, Any] | None, extra: dict[str, Any]
) -> None:
    agent = _omp(tmp_path, {"url": {}})
    (relayed,) = agent.feed(
        line({"id": 54, "method": "elicitation/create", "params": {**URL, "elicitationId": elicitation_id}})
    )
    agent.adapter.respond_client_request(relayed.request_id, {"action": "accept"}, None, agent.ctx)
    agent.sent()  # (what is new from here)
    completed = {"elicitationId": elicitation_id, **({"_meta": meta} if meta is not None else {}), **extra}
    (told,) = agent.feed(_complete(completed))
    assert told.type == "client_notification" and told.method == "elicitation/complete"
    assert told.params == completed  # unchanged: _meta and keys no ACP version defines kept
    assert told.params["elicitationId"] == relayed.params["elicitationId"]
    assert agent.sent() == []  # a notification: nothing goes back to the agent


@pytest.mark.parametrize("declared", [None, {"form": {}}])
def test_a_completion_is_dropped_where_the_editor_never_saw_the_url(tmp_path: Path, declared: Any) -> None:
    agent = _omp(tmp_path, declared)
    agent.feed(line({"id": 55, "method": "elicitation/create", "params": URL}))  # declined here, never shown
    assert agent.feed(_complete({"elicitationId": "e1"})) == []


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(JSON)
def test_a_completion_outside_acp_is_dropped_and_said_and_the_run_goes_on(tmp_path: Path, params: Any) -> None:
    try:
        wire.parse_params("elicitation/complete", params)
        assume(False)  # (one that fits is the test above's)
    except wire.AcpShapeError:
        pass
    agent = _omp(tmp_path, {"url": {}})
    events = agent.feed(_complete(params), update("agent_message_chunk", content={"type": "text", "text": "on"}))
    said = [e for e in events if e.type in ("debug", "client_notification")]
    if params is None or isinstance(params, dict):  # a JSON-RPC notification: the ACP edge reads it, and says so
        assert [(e.type, e.level) for e in said] == [("debug", "warn")] and "elicitation/complete" in said[0].message
    else:  # params that are no object: not JSON-RPC, dropped before (in the log)
        assert said == []
    assert "".join(e.delta for e in events if e.type == "text_delta") == "on"

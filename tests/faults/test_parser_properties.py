"""Every adapter's parser against whatever an agent might print (hardening issue, "Done when": property tests).

An agent CLI is a program we do not control: a new version renames a field, a crash truncates a line, a plugin
prints a banner, a response arrives for a request we never sent. For every transport of every agent in the table,
hypothesis feeds the adapter (as the run runtime does, one ParseContext, after ``start``) a sequence made of real
recorded lines of every agent, those lines mutated (a field deleted or given a value of another type), stray
responses to the adapter's own requests, arbitrary JSON and plain text, with an interrupt somewhere and a random
exit at the end. The properties:

* the parser never raises (the runtime would turn that into "acp-mux internal error" and end the session);
* every event is a valid event: it re-validates from its own JSON form;
* what the runtime delivers (everything up to the first terminal event, then only diagnostics) keeps the ordering
  contract (spec 000 §25): turns bracketed, text and thinking bracketed, each tool call start → ready → result once.

Runs are derandomized (tests/conftest.py), so CI sees the same examples every time.
"""

from __future__ import annotations

import json
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.adapters.registry import ENTRIES
from acp_mux.adapters.base import get_adapter
from acp_mux.core.events import union as ev
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.process.spawn import ExitStatus
from acp_mux.core.run.prompt import Prompt, TextPart
from tests.adapters.helpers import assert_ordering, make_ctx

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# The session folder: a fresh empty directory per example. The ACP family answers fs/write_text_file itself inside
# the session's folder, so generated writes must land somewhere private (the recordings' /work/project is outside).
# What the runtime still delivers after a terminal event (run.py: _ALWAYS_DELIVERED).
AFTER_TERMINAL = ("debug", "log", "session_end")

TRANSPORTS = [(name, transport) for name, row in ENTRIES.items() for transport in row.transports]


@cache
def corpus() -> tuple[str, ...]:
    """Every line an agent printed in the recordings: native JSON lines (claude, codex, pi) and the agent's side of
    the ACP conversations (gemini, omp, hermes, copilot, opencode)."""
    lines: list[str] = []
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        if path.name.endswith(".stdin.jsonl"):
            continue
        for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if not raw.strip() or raw.startswith("#"):
                continue
            try:
                value = json.loads(raw)
            except ValueError:
                continue
            if isinstance(value, dict) and value.get("from") == "agent" and isinstance(value.get("msg"), dict):
                lines.append(json.dumps(value["msg"]))
            elif isinstance(value, dict) and "from" not in value:
                lines.append(raw)
    assert len(lines) > 500, "the recordings went missing: the property test would only see noise"
    return tuple(lines)


@cache
def claude_init() -> str:
    return next(line for line in corpus() if '"subtype":"init"' in line.replace(" ", "") and '"session_id"' in line)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path into a JSON value (dict keys and list indices)."""
    found: list[tuple[Any, ...]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        found.append(prefix + (key,))
        found += _paths(child, prefix + (key,))
    return found


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A recorded line with one field deleted or replaced by a value of any type."""
    value = json.loads(draw(st.sampled_from(corpus())))
    paths = _paths(value)
    if not paths:
        return json.dumps(value)
    path = draw(st.sampled_from(paths))
    parent = value
    for key in path[:-1]:
        parent = parent[key]
    if isinstance(parent, dict) and draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(json_values)
    return json.dumps(value)


@st.composite
def stray_response(draw: st.DrawFn) -> str:
    """A response to one of the adapter's own request ids (or a neighbour), with any result or error."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": draw(st.integers(0, 8) | st.text(max_size=6))}
    if draw(st.booleans()):
        message["result"] = draw(json_values)
    else:
        message["error"] = draw(
            st.fixed_dictionaries({"code": st.integers(-33000, 500), "message": st.text(max_size=20)}) | json_values
        )
    return json.dumps(message)


lines = st.one_of(
    st.sampled_from(corpus()),
    mutated(),
    stray_response(),
    json_values.map(json.dumps),
    st.text(max_size=40),
)


def _valid(event: Any) -> None:
    assert isinstance(event, ev.BaseEvent), event
    again = type(event).model_validate(json.loads(event.model_dump_json()))
    assert again.type == event.type


def _delivered(events: list[Any]) -> list[Any]:
    """What the run runtime passes on: everything up to the first terminal event, then only diagnostics."""
    out: list[Any] = []
    terminal = False
    for event in events:
        if terminal and event.type not in AFTER_TERMINAL:
            continue
        out.append(event)
        if ev.is_terminal_event(event) and event.type != "interrupted":
            terminal = True
    return out


@pytest.mark.parametrize(("agent", "transport"), TRANSPORTS, ids=[f"{a}-{t}" for a, t in TRANSPORTS])
@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_output_is_parsed_without_raising_into_valid_ordered_events(
    agent: str, transport: str, data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as cwd:
        _check_any_output(agent, transport, data, cwd)


def _check_any_output(agent: str, transport: str, data: st.DataObject, cwd: str) -> None:
    adapter = get_adapter(agent, transport)
    ctx = make_ctx(agent, cwd)
    options = RunOptions(agent=agent, cwd=cwd, prompt=Prompt((TextPart("hello"),)))
    adapter.start(options, ctx)
    ctx.take_outbox()
    sequence = data.draw(st.lists(lines, max_size=25), label="lines")
    if transport == "stream-json":  # claude's own invariant: every turn's output follows its init line
        sequence.insert(0, claude_init())
    interrupt_at = data.draw(st.integers(-1, len(sequence)), label="interrupt before line")
    events: list[Any] = []
    for i, line in enumerate(sequence):
        if i == interrupt_at:
            adapter.interrupt(ctx)
        events += adapter.parse_line(line, ctx)
        ctx.take_outbox()
    code = data.draw(st.sampled_from([0, 1, 137, None]), label="exit code")
    status = ExitStatus(code, None) if code is not None else ExitStatus(None, "SIGKILL")
    events += adapter.finish(status, ctx)
    for event in events:
        _valid(event)
    assert_ordering(_delivered(events))


# ── what the properties above found, pinned as plain examples ─────────────────────────────────────────────────────
def _started(agent: str, cwd: str = "/nonexistent/project") -> tuple[Any, Any]:
    adapter = get_adapter(agent)
    ctx = make_ctx(agent, cwd)
    adapter.start(RunOptions(agent=agent, cwd=cwd, prompt=Prompt((TextPart("hello"),))), ctx)
    ctx.take_outbox()
    return adapter, ctx


@pytest.mark.parametrize("odd_id", [[], {"a": 1}, "¹", "1e3", 1e308 * 10, -0.0])
def test_a_response_with_an_odd_id_matches_nothing_and_never_raises(odd_id: Any) -> None:
    adapter, ctx = _started("gemini")  # the ACP family's JSON-RPC peer: initialize is pending as id 0 or 1
    line = json.dumps({"jsonrpc": "2.0", "id": odd_id, "result": {}}, allow_nan=True)
    assert list(adapter.parse_line(line, ctx)) == []


def test_pi_lines_in_another_layout_are_read_like_pi_own() -> None:
    """pi's fast path reads its exact layout; ``{"type": "agent_end", ...}`` with spaces used to reach a handler
    with the wrong signature and raise."""
    adapter, ctx = _started("pi")
    assert list(adapter.parse_line('{"type": "agent_end", "messages": []}', ctx)) == []
    assert list(adapter.parse_line('{"type": "update", "x": 1}', ctx)) == []


def test_an_acp_tool_call_id_of_the_wrong_type_is_ignored() -> None:
    adapter, ctx = _started("hermes")
    update = {"sessionUpdate": "tool_call", "toolCallId": [], "title": "x", "kind": "execute", "status": "pending"}
    line = json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}})
    assert not [e for e in adapter.parse_line(line, ctx) if e.type.startswith("tool")]


def test_a_tool_call_announced_again_after_its_end_is_not_started_twice() -> None:
    ctx = make_ctx("gemini", "/nonexistent/project")
    events = ctx.tool_start("t1", "execute", {}, ready=True) + ctx.tool_result("t1", "ok")
    assert ctx.tool_start("t1", "execute", {}, ready=True) == []
    assert_ordering(events + ctx.end_turn())

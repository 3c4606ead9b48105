"""The ACP family reads a run of plain text chunks of one message as one (``AcpClientAdapter.parse_from``): what
the run emits is the same as when every line is parsed alone and adjacent deltas are joined afterwards (the run's
``join_adjacent_deltas``), for any mix of lines.

Tried by hypothesis against the adapters that join (the family's own, omp, hermes, opencode): chunks of two kinds,
three message ids and none, another session's, text with blank lines (hermes strips a new message's leading ones)
and long enough to pass the joined-delta bound, between tool calls, a chunk with annotations (not plain), a
response, a non-JSON line. The order of every event, each message's text, the text the agent said since its last
tool call, and the bound on a joined delta are compared. And every adapter whose hooks read lines or chunks says
whether it joins, in its own class.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.adapters.acp_agents.acp_client import AcpClientAdapter, AcpRun
from acp_mux.adapters.registry import ENTRIES
from acp_mux.adapters.base import get_adapter
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.text.delta_join import JOINABLE, MOST_JOINED, join_adjacent_deltas
from acp_mux.core.events.union import BaseEvent
from acp_mux.core.run.parse_context import ParseContext

SID = "s-1"
JOINING = ("family", "omp", "hermes", "opencode")


class Family(AcpClientAdapter):
    name = "family"
    binary = "family"


def in_session(name: str) -> tuple[Any, ParseContext]:
    """The adapter with ``initialize`` and ``session/new`` answered, as after the handshake."""
    adapter = Family() if name == "family" else get_adapter(name)
    ctx = ParseContext(run_id="r", agent=name, cwd="/tmp")
    adapter.start(RunOptions(agent=name, cwd="/tmp"), ctx)
    for answer in ({"protocolVersion": 1, "agentCapabilities": {}}, {"sessionId": SID}):
        request_id = max(int(i) for i in AcpRun.of(ctx).peer.pending)
        list(adapter.parse_line(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": answer}), ctx))
    ctx.take_outbox()
    return adapter, ctx


def update(body: dict[str, Any], session: str = SID) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": body}})


def chunk(kind: str, text: str, message: str | None, session: str) -> str:
    body: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    if message != "absent":
        body["messageId"] = message
    return update(body, session)


texts = st.one_of(
    st.sampled_from(["", "\n", "\n\nHi", "a", "b c ", "Line 1\n", "é🙂"]),
    st.integers(1, 3).map(lambda n: "x" * (MOST_JOINED // 2 * n)),  # passes the bound within two or three
)
chunks = st.builds(
    chunk,
    st.sampled_from(["agent_message_chunk", "agent_thought_chunk"]),
    texts,
    st.sampled_from(["m1", "m2", None, "absent"]),
    st.sampled_from([SID, SID, SID, "other-session"]),
)
others = st.sampled_from(
    [
        update({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "ls", "kind": "execute"}),
        update({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}),
        update(
            {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "noted", "annotations": {"priority": 1}},
            }
        ),
        update({"sessionUpdate": "plan", "entries": []}),
        json.dumps({"jsonrpc": "2.0", "id": 99, "result": {}}),
        "not json at all",
    ]
)
bursts = st.lists(st.one_of(chunks, chunks, chunks, others), max_size=40)


def emitted(parsed: Iterator[list[BaseEvent]]) -> list[BaseEvent]:
    """What the run emits for a burst, given each parse's events in order: adjacent deltas joined, anything else
    where it came (``RunHandle._handle_lines``)."""
    out: list[BaseEvent] = []
    held: list[BaseEvent] = []
    for events in parsed:
        if events and all(e.type in JOINABLE for e in events):
            held += events
            continue
        out += join_adjacent_deltas(held) + events
        held = []
    return out + join_adjacent_deltas(held)


def line_by_line(adapter: Any, ctx: ParseContext, lines: list[str]) -> list[BaseEvent]:
    """What the run emitted before parse_from: each line parsed alone."""
    return emitted(list(adapter.parse_line(line, ctx)) for line in lines)


def by_runs(adapter: Any, ctx: ParseContext, lines: list[str]) -> list[BaseEvent]:
    """The same through parse_from, as the run reads a burst now."""

    def parses() -> Iterator[list[BaseEvent]]:
        at = 0
        while at < len(lines):
            parsed, taken = adapter.parse_from(lines, at, ctx)
            assert 1 <= taken <= len(lines) - at
            at += taken
            yield list(parsed)

    return emitted(parses())


def shape(events: list[BaseEvent]) -> list[tuple[Any, ...]]:
    """Events with each stream's adjacent deltas merged (where a joined delta is cut may differ, not its text)."""
    out: list[tuple[Any, ...]] = []
    ids: dict[str, int] = {}  # a message id acp-mux made is random: compared by the order ids first appear in
    for event in events:
        fields = event.model_dump(exclude={"delta", "accumulated_text", "timestamp", "duration_ms"})
        if fields.get("message_id") is not None:
            fields["message_id"] = ids.setdefault(fields["message_id"], len(ids))
        key = tuple(sorted((k, repr(v)) for k, v in fields.items()))
        if event.type in JOINABLE and out and out[-1][0] == "delta" and out[-1][1] == key:
            out[-1] = ("delta", key, out[-1][2] + event.delta, event.accumulated_text)  # type: ignore[attr-defined]
        elif event.type in JOINABLE:
            out.append(("delta", key, event.delta, event.accumulated_text))  # type: ignore[attr-defined]
        else:
            out.append(("event", key))
    return out


@pytest.mark.parametrize("name", JOINING)
@settings(max_examples=150, deadline=None)
@given(burst=bursts)
def test_a_burst_read_by_runs_emits_what_it_emitted_line_by_line(name: str, burst: list[str]) -> None:
    (one, one_ctx), (runs, runs_ctx) = in_session(name), in_session(name)
    expected, got = line_by_line(one, one_ctx, burst), by_runs(runs, runs_ctx, burst)
    assert shape(got) == shape(expected)
    assert AcpRun.of(runs_ctx).said.text() == AcpRun.of(one_ctx).said.text()
    written = {json.loads(line)["params"]["update"]["content"]["text"] for line in burst if '"text"' in line}
    for event in got:  # a joined delta stays within the bound; only a chunk longer by itself passes it
        if event.type in JOINABLE:
            assert len(event.delta) <= MOST_JOINED or event.delta in written  # type: ignore[attr-defined]


def test_a_run_of_chunks_of_one_message_is_one_delta_and_a_change_of_message_ends_it() -> None:
    adapter, ctx = in_session("omp")
    lines = [chunk("agent_message_chunk", f"c{i} ", "m1", SID) for i in range(50)]
    lines += [chunk("agent_message_chunk", "new", "m2", SID)]
    parsed, taken = adapter.parse_from(lines, 0, ctx)
    deltas = [e for e in parsed if e.type == "text_delta"]
    assert taken == 50 and [d.delta for d in deltas] == ["".join(f"c{i} " for i in range(50))]
    parsed, taken = adapter.parse_from(lines, 50, ctx)
    assert taken == 1 and [e.type for e in parsed][:2] == ["message_stop", "message_start"]


def test_chunks_of_an_agent_still_loading_its_history_are_not_shown() -> None:
    adapter, ctx = in_session("omp")
    AcpRun.of(ctx).loading = True
    lines = [chunk("agent_message_chunk", "old", "m1", SID)] * 3
    parsed, taken = adapter.parse_from(lines, 0, ctx)
    assert list(parsed) == [] and taken == 1


@pytest.mark.parametrize("name", [n for n in ENTRIES if isinstance(get_adapter(n), AcpClientAdapter)])
def test_every_acp_adapter_whose_hooks_read_lines_or_chunks_says_whether_it_joins(name: str) -> None:
    """A new hook on on_update or parse_line must decide, in its own class, whether joined chunks read the same."""
    cls = type(get_adapter(name))
    for klass in cls.__mro__:
        if klass is AcpClientAdapter:
            break
        if "on_update" in vars(klass) or "parse_line" in vars(klass):
            assert "joins_text_chunks" in vars(klass), f"{klass.__name__} overrides a hook but does not say"

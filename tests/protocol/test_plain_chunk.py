"""The edge's fast path for plain text chunks (acp_mux/protocol/plain_chunk.py) never says more than the model would.

Generated ``session/update`` params around the plain shape (every kind, every content block, ``messageId`` of
any JSON type, ``_meta``/``annotations``/unknown keys at each level, arbitrary JSON in each place): whatever the
fast check accepts, the pinned model accepts and dumps back unchanged; and an ACP adapter reading the line with
the fast path gives the same events and the same edge verdict as one that validates every update in full.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.adapters.acp_agents.acp_client import AcpRun
from acp_mux.protocol import wire
from acp_mux.protocol.plain_chunk import is_plain_text_chunk
from tests.adapters.test_acp_client import Agent
from tests.protocol.test_wire import CONTENT_BLOCK, EXTRA, JSON, META_DICT, TEXTISH

KINDS = st.sampled_from(
    ["agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "tool_call", "plan", "no_such_kind"]
)
PLAIN_CONTENT = st.fixed_dictionaries({"type": st.just("text"), "text": TEXTISH})
CONTENT = st.one_of(
    PLAIN_CONTENT,
    CONTENT_BLOCK,
    PLAIN_CONTENT.flatmap(lambda c: EXTRA.map(lambda extra: {**extra, **c})),
    st.fixed_dictionaries({"type": JSON, "text": JSON}),
    JSON,
)
UPDATE = st.fixed_dictionaries(
    {"sessionUpdate": KINDS | JSON, "content": CONTENT},
    optional={
        "messageId": st.none() | TEXTISH | JSON,
        "_meta": st.none() | META_DICT | JSON,
        "annotations": JSON,
    },
).flatmap(lambda u: st.one_of(st.just(u), EXTRA.map(lambda extra: {**extra, **u})))
PLAIN = st.fixed_dictionaries(
    {
        "sessionId": TEXTISH,
        "update": st.fixed_dictionaries(
            {
                "sessionUpdate": st.sampled_from(["agent_message_chunk", "agent_thought_chunk"]),
                "content": PLAIN_CONTENT,
            },
            optional={"messageId": st.none() | TEXTISH},
        ),
    }
)
# where a mutation lands: the params, the update, the content
LEVELS: tuple[tuple[str, ...], ...] = ((), ("update",), ("update", "content"))
KEY_NAMES = [
    "sessionId",
    "update",
    "sessionUpdate",
    "content",
    "messageId",
    "type",
    "text",
    "_meta",
    "annotations",
    "x-new",
]
KEYS = st.sampled_from(KEY_NAMES)
MUTATION = st.tuples(
    st.sampled_from(LEVELS),
    st.sampled_from(["set", "drop"]),
    KEYS,
    st.one_of(st.none(), st.integers(), st.sampled_from(["text", "agent_message_chunk", "image"]), st.just({}), JSON),
)


def _mutated(params: dict[str, Any], mutations: list[tuple[tuple[str, ...], str, str, Any]]) -> Any:
    """A plain chunk with a few keys set to any JSON or dropped, at any level (copies: the input stays whole)."""
    out = json.loads(json.dumps(params))
    for level, op, key, value in mutations:
        target = out
        for step in level:
            target = target.get(step) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            continue
        if op == "set":
            target[key] = json.loads(json.dumps(value))  # its own copy: a later mutation may land inside it
        else:
            target.pop(key, None)
    return out


NEAR_PLAIN = st.builds(_mutated, PLAIN, st.lists(MUTATION, min_size=1, max_size=2))
PARAMS = st.one_of(
    NEAR_PLAIN,
    st.fixed_dictionaries({"sessionId": TEXTISH | JSON, "update": UPDATE}, optional={"_meta": st.none() | META_DICT}),
    st.fixed_dictionaries({"sessionId": TEXTISH, "update": UPDATE}).flatmap(
        lambda p: EXTRA.map(lambda extra: {**extra, **p})
    ),
    JSON,
)


@settings(max_examples=1500)
@given(PARAMS)
def test_what_the_fast_check_accepts_the_model_accepts_and_dumps_unchanged(params: Any) -> None:
    _accepted_only_if_it_fits(params)


def _accepted_only_if_it_fits(params: Any) -> None:
    """The rule: when the fast check accepts, the model accepts and dumps the params back unchanged."""
    if not is_plain_text_chunk(params):
        return  # not judged: the full validation decides, as it always did
    model = wire.parse_params("session/update", params)
    assert model is not None and wire.dump(model) == params


@settings(max_examples=2000)
@given(NEAR_PLAIN)
def test_a_plain_chunk_changed_anywhere_is_accepted_only_where_the_model_accepts_it(params: Any) -> None:
    _accepted_only_if_it_fits(params)


ONE_CHANGE = [
    (level, op, key, value)
    for level in LEVELS
    for key in KEY_NAMES
    for op, value in [
        ("drop", None),
        *(("set", v) for v in (None, 0, 1.5, True, "", "text", "image", {}, [], {"a": 1})),
    ]
]


@pytest.mark.parametrize("change", ONE_CHANGE, ids=str)
def test_a_plain_chunk_with_any_one_change_is_accepted_only_where_the_model_accepts_it(change: Any) -> None:
    for named in (None, "m1"):
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
        plain = {"sessionId": "s", "update": update if named is None else {**update, "messageId": named}}
        _accepted_only_if_it_fits(_mutated(plain, [change]))


@settings(max_examples=200)
@given(
    st.sampled_from(["agent_message_chunk", "agent_thought_chunk"]),
    TEXTISH,
    TEXTISH,
    st.none() | st.just(None) | TEXTISH,
    st.booleans(),
)
def test_every_plain_text_chunk_takes_the_fast_path(
    kind: str, session_id: str, text: str, message_id: str | None, named: bool
) -> None:
    update: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    if named:
        update["messageId"] = message_id
    assert is_plain_text_chunk({"sessionId": session_id, "update": update})
    assert not is_plain_text_chunk({"sessionId": session_id, "update": {**update, "_meta": {}}})
    assert not is_plain_text_chunk({"sessionId": session_id, "update": {**update, "content": {"type": "text"}}})


def _read(tmp_path: Path, params: Any, fast: bool) -> tuple[list[dict[str, Any]], str | None, str, list[str]]:
    """One fresh gemini run reads the line: its events, the edge's verdict, the text it keeps, the message ids."""
    agent = Agent(str(tmp_path), prompt=None)
    agent.open_session()
    raw = json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params})
    if fast:
        events = agent.feed(raw)
    else:
        with mock.patch("acp_mux.adapters.acp_agents.acp_client.is_plain_text_chunk", lambda _params: False):
            events = agent.feed(raw)
    run = AcpRun.of(agent.ctx)
    error = run.checked[1]
    dumped = [event.model_dump() for event in events]
    ids: dict[str, str] = {}  # an id acp-mux made is random: named by the order ids first appear in
    for event in dumped:
        if event.get("message_id") is not None:
            event["message_id"] = ids.setdefault(event["message_id"], f"id-{len(ids)}")
    return dumped, None if error is None else error.reason, run.last_text, sorted(ids.values())


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(PARAMS.filter(lambda p: isinstance(p, dict) and isinstance(p.get("update"), dict)))
def test_an_acp_adapter_reads_any_chunk_line_the_same_with_and_without_the_fast_path(
    tmp_path: Path, params: dict[str, Any]
) -> None:
    assert _read(tmp_path, params, fast=True) == _read(tmp_path, params, fast=False)

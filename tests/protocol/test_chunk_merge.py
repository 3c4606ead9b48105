"""Text chunks waiting together for the editor go out joined (acp_mux/protocol/chunk_merge.py), and nothing else
changes: the editor sees the same text, in the same order, every other message untouched and never crossed."""

from __future__ import annotations

import asyncio
import copy
import json
import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.protocol import wire
from acp_mux.protocol.chunk_merge import merge_text_chunks
from acp_mux.protocol.plain_chunk import is_plain_text_chunk


def chunk(text: str, session: str = "s", kind: str = "agent_message_chunk", **extra: Any) -> dict[str, Any]:
    update: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": text}, **extra}
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": update}}


texts = st.text(max_size=6)
plain = st.builds(
    lambda text, session, kind, mid: chunk(text, session, kind, **({} if mid == "-" else {"messageId": mid})),
    texts,
    st.sampled_from(["s", "t"]),
    st.sampled_from(["agent_message_chunk", "agent_thought_chunk"]),
    st.sampled_from(["-", None, "m1", "m2"]),
)
# Messages that look close to a plain chunk but are not one, and messages of other kinds: never merged.
others = st.one_of(
    st.builds(lambda t: chunk(t, annotations={"priority": 1.0}), texts),
    st.builds(lambda t: chunk(t, _meta={"k": 1}), texts),
    st.builds(lambda t: {**chunk(t), "params": {**chunk(t)["params"], "_meta": {}}}, texts),
    st.builds(lambda t: chunk(t, kind="user_message_chunk"), texts),
    st.builds(lambda n: {"jsonrpc": "2.0", "id": n, "result": {"stopReason": "end_turn"}}, st.integers(0, 9)),
    st.just(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "Read"}},
        }
    ),
    st.just({"jsonrpc": "2.0", "id": 3, "method": "session/request_permission", "params": {}}),
)
streams = st.lists(st.one_of(plain, plain, plain, others), max_size=40)


def mergeable(message: Any) -> bool:
    return (
        message.get("method") == "session/update"
        and set(message) == {"jsonrpc", "method", "params"}
        and (is_plain_text_chunk(message["params"]))
    )


def key(message: dict[str, Any]) -> tuple[Any, ...]:
    update = message["params"]["update"]
    return message["params"]["sessionId"], update["sessionUpdate"], update.get("messageId", "absent")


def canonical(messages: list[Any]) -> list[Any]:
    """What the editor makes of a stream: each run of one message's chunks as its joined text, every other message
    as itself (by identity: it must be the very message handed in)."""
    out: list[Any] = []
    for message in messages:
        if mergeable(message):
            if out and out[-1][0] == "text" and out[-1][1] == key(message):
                out[-1] = ("text", key(message), out[-1][2] + message["params"]["update"]["content"]["text"])
            else:
                out.append(("text", key(message), message["params"]["update"]["content"]["text"]))
        else:
            out.append(("other", id(message)))
    return out


@settings(max_examples=400, deadline=None)
@given(streams)
def test_the_editor_sees_the_same_text_in_the_same_order_and_every_other_message_untouched(
    messages: list[Any],
) -> None:
    before = copy.deepcopy(messages)
    merged = merge_text_chunks(messages)
    assert messages == before  # the messages handed in are never changed (the protocol log has seen them)
    assert canonical(merged) == canonical(messages)
    # as few messages as the same text allows: no two adjacent chunks of one message are left apart
    for a, b in zip(merged, merged[1:]):
        assert not (mergeable(a) and mergeable(b) and key(a) == key(b))
    for message in merged:  # every merged chunk still fits the pinned schema
        if mergeable(message) and all(message is not m for m in messages):
            wire.parse_params("session/update", message["params"])


def test_a_stream_without_a_run_to_merge_comes_back_as_it_was() -> None:
    messages = [chunk("a"), chunk("b", kind="agent_thought_chunk"), chunk("c", messageId="x"), chunk("d")]
    merged = merge_text_chunks(messages)
    assert all(a is b for a, b in zip(merged, messages)) and len(merged) == len(messages)


def test_chunks_of_other_messages_sessions_or_across_a_tool_call_stay_apart() -> None:
    tool = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "Read"}},
    }
    merged = merge_text_chunks(
        [
            chunk("a", messageId="m"),
            chunk("b", messageId="m"),
            tool,
            chunk("c", messageId="m"),
            chunk("d", messageId="n"),
            chunk("e", session="t", messageId="n"),
        ]
    )
    assert [m["params"]["update"].get("content", {}).get("text") for m in merged] == ["ab", None, "c", "d", "e"]


# ── the connection: one burst of the loop goes out joined; what was written is never sent again ────────────────
async def _written(bursts: list[list[dict[str, Any]]], response_last: bool) -> list[dict[str, Any]]:
    from acp_mux.server.rpc import Connection

    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    conn = Connection(in_r, out_w)
    served = asyncio.ensure_future(conn.serve())
    await asyncio.sleep(0)
    for burst in bursts:
        for message in burst:
            conn.notify(message["method"], message["params"])
        await asyncio.sleep(0.01)  # the burst is flushed and written before the next one starts
    if response_last:
        conn._send({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}})
    os.close(in_w)
    await served
    await conn.drain()
    os.close(out_w)
    with os.fdopen(out_r, "rb") as fh:
        return [json.loads(line) for line in fh.read().splitlines()]


@pytest.mark.asyncio
@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(texts, min_size=1, max_size=30), min_size=1, max_size=4))
async def test_the_connection_writes_each_burst_joined_and_never_resends_written_text(bursts: list[list[str]]) -> None:
    lines = await _written([[chunk(t, messageId="m") for t in burst] for burst in bursts], response_last=True)
    assert lines[-1] == {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}  # after every chunk
    shown = [line["params"]["update"]["content"]["text"] for line in lines[:-1]]
    assert "".join(shown) == "".join(t for burst in bursts for t in burst)
    assert len(shown) <= len(bursts)  # one chunk per burst at most: the burst went out in one piece

"""The per-turn transcript keeps what a replay needs, once: joined messages and each tool call's last state."""

from __future__ import annotations

from acp_mux.server.store import TranscriptBuffer


def chunk(kind: str, text: str) -> dict:
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}}


def test_text_chunks_become_one_message_per_run_of_a_kind() -> None:
    buf = TranscriptBuffer()
    for part in ("Hel", "lo"):
        buf.add(chunk("agent_thought_chunk", part))
    for part in ("Wor", "ld"):
        buf.add(chunk("agent_message_chunk", part))
    buf.add({"sessionUpdate": "usage_update", "used": 1, "size": 2})  # not part of a replay
    buf.add(chunk("agent_message_chunk", "!"))
    assert buf.take() == [chunk("agent_thought_chunk", "Hello"), chunk("agent_message_chunk", "World!")]
    assert buf.take() == []


def test_tool_updates_fold_into_the_call_and_live_views_are_kept_once() -> None:
    buf = TranscriptBuffer()
    buf.add({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "ls", "kind": "execute", "status": "pending"})
    buf.add(chunk("agent_message_chunk", "running"))
    for n in range(50):  # a live shell view refreshed 50 times
        view = [{"type": "content", "content": {"type": "text", "text": f"line {n}\n" * 1000}}]
        buf.add({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "in_progress", "content": view})
    buf.add({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "_meta": {"terminal_output": {"data": "x"}}})
    buf.add({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "rawOutput": "ok"})
    buf.add({"sessionUpdate": "tool_call_update", "toolCallId": "orphan", "status": "failed"})
    out = buf.take()
    assert [u["sessionUpdate"] for u in out] == ["tool_call", "agent_message_chunk", "tool_call_update"]
    call = out[0]
    assert call["status"] == "completed" and call["rawOutput"] == "ok" and call["title"] == "ls"
    assert call["content"][0]["content"]["text"].startswith("line 49\n")  # the last view only
    assert out[2] == {"sessionUpdate": "tool_call_update", "toolCallId": "orphan", "status": "failed"}

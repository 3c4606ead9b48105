"""``session/load`` shows each message with the ``messageId`` its live chunks carried, for recorded claude and codex
sessions played through the real bridge (the ids are in the event log: on each message's events and on the deltas
the log folds), and the prompt response carries the turn's usage. A log written before messages had ids still
names each message, the same way on every load."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from acp_mux.core.events import union as ev
from acp_mux.server.records.event_log import EventLogWriter, read_envelopes
from acp_mux.server.records.replay import replay_updates
from acp_mux.translation.updates import UpdateTranslator
from tests.server.recorded_runs import load, play

CHUNKS = ("agent_message_chunk", "agent_thought_chunk")
CASES = [("claude", "write_edit_allow"), ("claude", "resume"), ("codex", "text"), ("codex", "write_edit_allow")]


def messages(updates: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """(kind, messageId) of each run of chunks of one message, in order (chunk coalescing aside)."""
    out: list[tuple[str, str | None]] = []
    for u in updates:
        if u["sessionUpdate"] in CHUNKS:
            key = (u["sessionUpdate"], u.get("messageId"))
            if not out or out[-1] != key:
                out.append(key)
    return out


@pytest.mark.parametrize(("cli", "name"), CASES, ids=[f"{c}-{n}" for c, n in CASES])
def test_a_replay_shows_the_message_ids_the_live_turn_showed(cli: str, name: str, tmp_path: Path, monkeypatch) -> None:
    state = tmp_path / "state"

    async def scenario() -> None:
        session_id, turns, results = await play(cli, name, state, monkeypatch)
        live = messages([u for turn in turns for u in turn])
        assert live and all(message_id for _, message_id in live)
        assert len({message_id for _, message_id in live}) > 1 or cli == "codex" and name == "text"
        assert messages(await load(cli, state, session_id, monkeypatch)) == live
        assert messages(await load(cli, state, session_id, monkeypatch)) == live  # and again, the same
        for result in results:
            assert result["usage"]["totalTokens"] > 0  # the turn's tokens, from the scripted model server

    asyncio.run(scenario())


def test_the_log_keeps_the_id_on_folded_deltas_and_on_a_message_kept_whole(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    writer = EventLogWriter(log, "s")

    def delta(cls: Any, text: str, message_id: str) -> Any:
        return cls(delta=text, message_id=message_id, run_id="r")

    events = [
        ev.MessageStartEvent(message_id="m1", run_id="r"),
        delta(ev.TextDeltaEvent, "a", "m1"),
        delta(ev.TextDeltaEvent, "b", "m1"),
        ev.MessageStopEvent(text="ab", message_id="m1", run_id="r"),  # the deltas go: the stop keeps it whole
        ev.ThinkingStartEvent(message_id="t1", run_id="r"),
        delta(ev.ThinkingDeltaEvent, "x", "t1"),
        delta(ev.ThinkingDeltaEvent, "y", "t2"),  # another message's: not folded into t1's
    ]
    for event in events:
        writer.event(event)
    writer.flush()
    stored = [(e["type"], e["data"].get("messageId"), e["data"].get("delta")) for e in read_envelopes(log)]
    assert stored == [
        ("message_start", "m1", None),
        ("message_stop", "m1", None),
        ("thinking_start", "t1", None),
        ("thinking_delta", "t1", "x"),
        ("thinking_delta", "t2", "y"),
    ]


def test_a_log_without_message_ids_names_each_message_after_its_start(tmp_path: Path) -> None:
    """An older log: no id anywhere. Each message is named after its message_start envelope, on every load."""
    envelopes: list[Any] = [
        {"event_id": "E0", "run_id": "r", "sequence": 0, "occurred_at": "", "type": "user.message", "data": {}},
        {"event_id": "E1", "run_id": "r", "sequence": 1, "occurred_at": "", "type": "message_start", "data": {}},
        {
            "event_id": "E2",
            "run_id": "r",
            "sequence": 2,
            "occurred_at": "",
            "type": "text_delta",
            "data": {"delta": "a"},
        },
        {
            "event_id": "E3",
            "run_id": "r",
            "sequence": 3,
            "occurred_at": "",
            "type": "message_stop",
            "data": {"text": "a"},
        },
        {"event_id": "E4", "run_id": "r", "sequence": 4, "occurred_at": "", "type": "message_start", "data": {}},
        {
            "event_id": "E5",
            "run_id": "r",
            "sequence": 5,
            "occurred_at": "",
            "type": "message_stop",
            "data": {"text": "b"},
        },
    ]

    def shown() -> list[tuple[str, str | None]]:
        from acp_mux.adapters.stream_agents.claude import ClaudeAdapter

        return messages(list(replay_updates(envelopes, UpdateTranslator(ClaudeAdapter().tool_table, "/"))))

    assert shown() == [("agent_message_chunk", "replay-E1"), ("agent_message_chunk", "replay-E4")]
    assert shown() == shown()

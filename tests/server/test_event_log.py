"""The session event log: envelopes, the folding rule, gap-free sequence, crash tolerance, retention, old format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acp_mux.core.events import union as ev
from acp_mux.core.text.joined_text import JoinedText
from acp_mux.server.records import event_log
from acp_mux.server.records.event_log import (
    EventLogWriter,
    envelope_line,
    legacy_envelopes,
    prune_log,
    read_envelopes,
)


def counter_ids():
    n = iter(range(10**6))
    return lambda ts: f"id{next(n):06d}"


def stamped(event: ev.BaseEvent, run: str = "run-a", ts: int = 1_700_000_000_000) -> ev.BaseEvent:
    event.run_id, event.timestamp = run, ts
    return event


def text_deltas(words: list[str], run: str = "run-a") -> list[ev.BaseEvent]:
    parts = JoinedText()
    out = []
    for w in words:
        parts.append(w)
        out.append(stamped(ev.TextDeltaEvent.lazy(w, parts), run))
    return out


def writer(tmp_path: Path) -> EventLogWriter:
    return EventLogWriter(tmp_path / "s.events.jsonl", "sess", ids=counter_ids())


def stored(tmp_path: Path) -> list[dict]:
    return list(read_envelopes(tmp_path / "s.events.jsonl"))


def test_a_message_of_many_deltas_is_one_line_carrying_its_whole_text(tmp_path: Path) -> None:
    log = writer(tmp_path)
    log.record("run-a", "user.message", {"content": [{"type": "text", "text": "hi"}]}, 1)
    log.event(stamped(ev.MessageStartEvent()))
    words = [f"w{i} " for i in range(5000)]
    for e in text_deltas(words):
        log.event(e)
    log.event(stamped(ev.MessageStopEvent(text="".join(words))))
    log.flush()
    envs = stored(tmp_path)
    assert [e["type"] for e in envs] == ["user.message", "message_start", "message_stop"]
    assert envs[2]["data"] == {"text": "".join(words)}
    assert [e["sequence"] for e in envs] == [0, 1, 2]


def test_deltas_a_stop_does_not_cover_are_kept_folded_and_accumulated_is_never_stored(tmp_path: Path) -> None:
    log = writer(tmp_path)
    log.event(stamped(ev.MessageStartEvent()))
    for e in text_deltas(["Hel", "lo"]):
        log.event(e)
    log.event(stamped(ev.TokenUsageEvent(input_tokens=1, output_tokens=2)))  # interrupts the run of deltas
    for e in text_deltas([" there"]):
        log.event(e)
    log.flush()  # a cancelled turn: the message never stops
    envs = stored(tmp_path)
    assert [(e["type"], e["data"].get("delta")) for e in envs] == [
        ("message_start", None), ("text_delta", "Hello"), ("token_usage", None), ("text_delta", " there"),
    ]  # fmt: skip
    assert all("accumulated" not in e["data"] for e in envs)


def test_shell_output_and_tool_input_fold_per_kind_and_per_tool_call(tmp_path: Path) -> None:
    log = writer(tmp_path)
    for chunk in ("a\n", "b\n"):
        log.event(stamped(ev.ShellStdoutDeltaEvent(delta=chunk)))
    log.event(stamped(ev.ShellStderrDeltaEvent(delta="oops\n")))
    for tool, chunk in (("t1", '{"a"'), ("t1", ":1}"), ("t2", "{}")):
        log.event(stamped(ev.ToolInputDeltaEvent(tool_call_id=tool, delta=chunk)))
    log.flush()
    assert [(e["type"], e["data"]) for e in stored(tmp_path)] == [
        ("shell_stdout_delta", {"delta": "a\nb\n"}),
        ("shell_stderr_delta", {"delta": "oops\n"}),
        ("tool_input_delta", {"delta": '{"a":1}', "toolCallId": "t1"}),
        ("tool_input_delta", {"delta": "{}", "toolCallId": "t2"}),
    ]


def test_a_huge_output_is_kept_bounded_head_and_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(event_log, "FOLD_CAP_CHARS", 100)
    log = writer(tmp_path)
    for i in range(1000):
        log.event(stamped(ev.ShellStdoutDeltaEvent(delta=f"{i:04d}\n")))
    log.flush()
    (env,) = stored(tmp_path)
    text = env["data"]["delta"]
    assert text.startswith("0000\n0001\n") and text.endswith("0998\n0999\n")
    assert "characters not kept in the session log" in text and len(text) < 300


def test_sequence_is_gap_free_per_run_over_what_is_stored(tmp_path: Path) -> None:
    log = writer(tmp_path)
    log.record("run-a", "user.message", {"content": []}, 1)
    log.event(stamped(ev.MessageStartEvent(), "run-a"))
    for e in text_deltas(["x"] * 100, "run-a"):
        log.event(e)
    log.event(stamped(ev.MessageStopEvent(text="x" * 100), "run-a"))
    log.record("run-b", "user.message", {"content": []}, 2)
    log.event(stamped(ev.TurnStartEvent(turn_index=0), "run-b"))
    log.flush()
    log.event(stamped(ev.TurnEndEvent(turn_index=0), "run-b"))
    log.record("run-a", "turn.ended", {"stopReason": "end_turn"}, 3)
    log.flush()
    by_run: dict[str, list[int]] = {}
    for env in stored(tmp_path):
        by_run.setdefault(env["run_id"], []).append(env["sequence"])
    assert by_run == {"run-a": [0, 1, 2, 3], "run-b": [0, 1, 2]}


def test_envelope_lines_are_canonical_and_survive_any_code_point(tmp_path: Path) -> None:
    env = {
        "type": "x",
        "data": {"b": 1, "a": [float("nan")], "s": "emoji \ud83d cut"},
        "sequence": 0,
        "run_id": "r",
        "event_id": "e",
        "schema_version": "1",
        "session_id": "s",
        "occurred_at": "t",
    }
    line = envelope_line(env)
    assert line.startswith('{"schema_version":"1","event_id":"e","run_id":"r","session_id":"s","sequence":0,')
    line.encode("utf-8")  # a lone surrogate is escaped, never written as invalid UTF-8
    back = json.loads(line)
    assert back["data"] == {"a": [None], "b": 1, "s": "emoji \ud83d cut"}
    assert list(back["data"]) == ["a", "b", "s"]
    assert envelope_line(back) == line


def test_a_torn_last_line_is_skipped_and_lines_appended_after_it_are_not_lost(tmp_path: Path) -> None:
    log = writer(tmp_path)
    log.record("run-a", "user.message", {"content": []}, 1)
    log.flush()
    path = tmp_path / "s.events.jsonl"
    with open(path, "ab") as fh:  # the bridge died in the middle of a write
        fh.write(b'{"schema_version":"1","event_id":"id9","run_id":"run-a","seq')
    warnings: list[str] = []
    assert [e["type"] for e in read_envelopes(path, warnings.append)] == ["user.message"]
    assert "torn" in warnings[0]
    log.record("run-b", "user.message", {"content": []}, 2)  # a new bridge goes on
    log.flush()
    warnings.clear()
    assert [e["run_id"] for e in read_envelopes(path, warnings.append)] == ["run-a", "run-b"]
    assert len(warnings) == 1 and "not JSON" in warnings[0]


def test_lines_of_the_wrong_shape_are_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "s.events.jsonl"
    good = envelope_line(
        {
            "schema_version": "1",
            "event_id": "e",
            "run_id": "r",
            "session_id": "s",
            "sequence": 0,
            "occurred_at": "t",
            "type": "turn_start",
            "data": {"turnIndex": 0},
        }
    )
    path.write_text(
        "\n".join(["[1,2]", '{"type": 3}', '{"type":"x","run_id":"r","sequence":true,"data":{}}', good]) + "\n"
    )
    warnings: list[str] = []
    assert [e["type"] for e in read_envelopes(path, warnings.append)] == ["turn_start"]
    assert len(warnings) == 3


def test_unknown_and_invalid_event_types_read_back_as_unknown_events() -> None:
    base = {"schema_version": "1", "event_id": "e", "run_id": "r", "session_id": "s", "sequence": 0, "occurred_at": "t"}
    future = event_log.event_from_envelope({**base, "type": "hologram", "data": {"x": 1}})
    broken = event_log.event_from_envelope({**base, "type": "turn_start", "data": {"turnIndex": "many"}})
    known = event_log.event_from_envelope({**base, "type": "turn_start", "data": {"turnIndex": 2}})
    assert isinstance(future, ev.UnknownEvent) and future.type == "hologram"
    assert isinstance(broken, ev.UnknownEvent) and broken.type == "turn_start"
    assert isinstance(known, ev.TurnStartEvent) and known.turn_index == 2 and known.run_id == "r"


def test_writes_are_batched_off_the_streaming_path(tmp_path: Path) -> None:
    """Inside a loop nothing is written per event: the batch goes out on the timer (or an explicit flush)."""
    import asyncio

    async def scenario() -> tuple[int, int]:
        log = writer(tmp_path)
        for i in range(50):
            log.event(stamped(ev.TurnStartEvent(turn_index=i)))
        before = len(stored(tmp_path))
        await asyncio.sleep(event_log.FLUSH_INTERVAL_S * 3)
        return before, len(stored(tmp_path))

    assert asyncio.run(scenario()) == (0, 50)


def test_flush_soon_writes_on_the_next_loop_turn_and_later_events_wait_for_their_own_interval(tmp_path: Path) -> None:
    """The prompt's record goes out on the loop's next turn (while the agent works on the prompt); what the agent
    says next starts a fresh interval, so no write falls ~200 ms after the prompt, where slower first words land."""
    import asyncio

    async def scenario() -> list[int]:
        log = writer(tmp_path)
        log.record("run-a", "user.message", {"content": [{"type": "text", "text": "hi"}]})  # arms the interval
        log.flush_soon()
        log.flush_soon()  # twice: still one write
        counts = [len(stored(tmp_path))]
        await asyncio.sleep(0)
        counts.append(len(stored(tmp_path)))
        log.event(stamped(ev.TurnStartEvent(turn_index=0)))
        for _ in range(3):
            await asyncio.sleep(0)
        counts.append(len(stored(tmp_path)))  # the agent's event waits for its own interval
        await asyncio.sleep(event_log.FLUSH_INTERVAL_S * 2)
        counts.append(len(stored(tmp_path)))
        return counts

    assert asyncio.run(scenario()) == [0, 1, 1, 2]


def test_prune_leaves_a_gap_marker_that_keeps_each_run_gap_free_from_it(tmp_path: Path) -> None:
    log = writer(tmp_path)
    for turn, run in enumerate(["run-a", "run-a", "run-b"]):
        log.record(run, "user.message", {"content": [{"type": "text", "text": f"turn {turn}"}]}, turn)
        log.event(stamped(ev.TurnStartEvent(turn_index=turn), run))
        log.event(stamped(ev.TurnEndEvent(turn_index=turn), run))
        log.record(run, "turn.ended", {"stopReason": "end_turn"}, turn)
    log.flush()
    path = tmp_path / "s.events.jsonl"
    removed = prune_log(path, keep_last=6, pruned_at="2030-01-01T00:00:00.000Z", ids=counter_ids())
    envs = list(read_envelopes(path))
    assert removed == 8  # the cut (6) moved forward to a prompt: what is kept starts with a whole turn
    assert envs[0]["type"] == "gap.events_pruned"
    assert envs[0]["run_id"] == "run-a" and envs[0]["sequence"] == 7
    assert envs[0]["data"] == {
        "first_pruned_sequence": 0,
        "last_pruned_sequence": 7,
        "events": 8,
        "pruned_at": "2030-01-01T00:00:00.000Z",
        "reason": "retention",
    }
    assert [(e["run_id"], e["sequence"], e["type"]) for e in envs[1:]] == [
        ("run-b", 0, "user.message"), ("run-b", 1, "turn_start"), ("run-b", 2, "turn_end"), ("run-b", 3, "turn.ended"),
    ]  # fmt: skip
    # pruning again (no prompt left to start at) folds the old marker into the new one
    assert prune_log(path, keep_last=1, pruned_at="2030-01-02T00:00:00.000Z", ids=counter_ids()) == 4
    envs = list(read_envelopes(path))
    gaps = {e["run_id"]: (e["sequence"], e["data"]["first_pruned_sequence"], e["data"]["events"]) for e in envs[:-1]}
    assert gaps == {"run-a": (7, 0, 8), "run-b": (2, 0, 3)}
    assert (envs[-1]["run_id"], envs[-1]["sequence"]) == ("run-b", 3)


def test_an_old_transcript_reads_as_legacy_envelopes_the_same_on_every_read(tmp_path: Path) -> None:
    path = tmp_path / "s.transcript.jsonl"
    updates = [
        {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hi"}},
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hello"}},
    ]
    path.write_text("".join(json.dumps(u) + "\n" for u in updates) + "garbage\n")
    first = list(legacy_envelopes(path, "sess", "2025-01-01T00:00:00.000Z", warn=lambda m: None))
    second = list(legacy_envelopes(path, "sess", "2025-01-01T00:00:00.000Z", warn=lambda m: None))
    assert first == second
    assert [e["data"] for e in first] == updates
    assert {e["type"] for e in first} == {"acp.update"} and [e["sequence"] for e in first] == [0, 1]


def test_a_huge_message_is_stored_once_and_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(event_log, "FOLD_CAP_CHARS", 100)
    log = writer(tmp_path)
    words = [f"{i:04d} " for i in range(1000)]
    log.event(stamped(ev.MessageStartEvent()))
    for e in text_deltas(words):
        log.event(e)
    log.event(stamped(ev.MessageStopEvent(text="".join(words))))
    log.flush()
    envs = stored(tmp_path)
    assert [e["type"] for e in envs] == ["message_start", "message_stop"]  # the clipped deltas were not kept too
    text = envs[1]["data"]["text"]
    assert text.startswith("0000 0001 ") and text.endswith("0998 0999 ") and len(text) < 300


def test_a_long_fold_keeps_its_head_and_exactly_its_last_half_cap_in_a_few_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many more deltas than the cap: the stored text is the head, a note of what was left out, and the last
    cap/2 characters; while it streams the fold holds a few joined pieces, not a string per delta."""
    monkeypatch.setattr(event_log, "FOLD_CAP_CHARS", 1000)
    log = writer(tmp_path)
    chunks = [f"{i:05d}\n" for i in range(20_000)]  # 120,000 characters: the tail is cut many times
    for chunk in chunks:
        log.event(stamped(ev.ShellStdoutDeltaEvent(delta=chunk)))
    fold = log._fold
    assert fold is not None and fold.head.pieces() + fold.tail.pieces() < 1100
    log.flush()
    (env,) = stored(tmp_path)
    whole = "".join(chunks)
    head = "".join(chunks[:84])  # 84 × 6 characters: the first deltas that reach cap/2
    expected = head + event_log._omitted(len(whole) - len(head) - 500) + whole[-500:]
    assert env["data"]["delta"] == expected

"""Old-format sessions still load; ``acp-mux sessions`` lists, shows (unknown types as they are), exports, prunes."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

from acp_mux.cli.sessions import run_sessions
from acp_mux.server.records.event_log import EventLogWriter
from acp_mux.server.records.store import SessionRecord, SessionStore
from tests.server.recorded_runs import Editor, server_for

OLD_RECORD = {  # a record as the bridge wrote it before the event log
    "session_id": "01OLDSESSION",
    "agent": "demo",
    "cwd": "/",
    "native_session_id": "n-1",
    "mode": None,
    "model": None,
    "title": "old times",
    "created_at": "2025-01-01T00:00:00.000Z",
    "updated_at": "2025-01-02T00:00:00.000Z",
    "additional_directories": [],
}
OLD_UPDATES = [
    {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hello"}},
    {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hi, how can I help?"}},
    {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "ls", "kind": "execute", "status": "completed"},
]


def old_store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "state")
    store.root.mkdir(parents=True)
    (store.root / "01OLDSESSION.json").write_text(json.dumps(OLD_RECORD))
    store.legacy_path("01OLDSESSION").write_text("".join(json.dumps(u) + "\n" for u in OLD_UPDATES))
    return store


def new_turn(store: SessionStore, session_id: str, text: str, answer: str, extra: list[tuple[str, dict]] = ()) -> None:
    log = EventLogWriter(store.log_path(session_id), session_id)
    run = f"01RUN-{text}"  # one run per turn here: each writer numbers its runs from 0
    log.record(run, "user.message", {"content": [{"type": "text", "text": text}], "agent": "demo"}, 10)
    for kind, data in [
        ("turn_start", {"turnIndex": 0}),
        ("message_start", {}),
        ("message_stop", {"text": answer}),
        *extra,
        ("turn_end", {"turnIndex": 0}),
    ]:
        log.record(run, kind, data, 11)
    log.record(run, "turn.ended", {"stopReason": "end_turn"}, 12)
    log.flush()


async def loaded(store: SessionStore, session_id: str) -> list[dict]:
    editor = Editor()
    server = server_for("demo", store.root.parent, editor)
    await server.call("initialize", {"protocolVersion": 1})
    await server.call("session/load", {"sessionId": session_id, "cwd": "/", "mcpServers": []})
    await server.shutdown()
    return editor.updates


def cli(store: SessionStore, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    code = run_sessions(list(args), store, out)
    return code, out.getvalue()


def test_a_session_written_before_the_event_log_still_loads_and_goes_on(tmp_path: Path) -> None:
    store = old_store(tmp_path)
    assert asyncio.run(loaded(store, "01OLDSESSION")) == OLD_UPDATES
    new_turn(store, "01OLDSESSION", "and now?", "Now with an event log.")
    updates = asyncio.run(loaded(store, "01OLDSESSION"))
    assert updates[:3] == OLD_UPDATES
    assert updates[4]["messageId"] and updates[3:] == [  # a message of the new log names its message
        {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "and now?"}},
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "Now with an event log."},
            "messageId": updates[4]["messageId"],
        },
    ]
    code, first = cli(store, "export", "01OLD")
    assert code == 0 and first == cli(store, "export", "01OLDSESSION")[1]
    kinds = [json.loads(line)["type"] for line in first.splitlines()]
    assert kinds[:3] == ["acp.update"] * 3 and kinds[3] == "user.message"


def test_show_prints_the_conversation_and_unknown_types_as_they_are(tmp_path: Path) -> None:
    store = old_store(tmp_path)
    new_turn(
        store,
        "01OLDSESSION",
        "and now?",
        "Answer.",
        extra=[("hologram", {"shape": "cube"}), ("debug", {"message": "x"})],
    )
    code, text = cli(store, "show", "01OLDSESSION")
    assert code == 0
    assert text.startswith("# old times\n")
    assert "## You\nhello" in text and "## Agent\nHi, how can I help?" in text
    assert "> tool [execute] ls" in text
    assert "## You\nand now?\n## Agent\nAnswer." in text
    assert '[hologram] {"shape": "cube"}' in text  # a type this version does not know: shown, not an error
    assert "[debug]" not in text  # known types with nothing to show stay quiet
    assert text.rstrip().endswith("--- turn ended: end_turn")


def test_list_and_unknown_ids(tmp_path: Path) -> None:
    store = old_store(tmp_path)
    code, text = cli(store, "list")
    assert code == 0 and "01OLDSESSION" in text and "old times" in text
    code, text = cli(store, "list", "--json")
    assert json.loads(text)["sessionId"] == "01OLDSESSION"
    assert cli(store, "show", "../../etc/passwd")[0] == 1
    assert cli(store, "export", "nothing")[0] == 1


def test_prune_by_age_dry_run_then_for_real_and_by_length(tmp_path: Path) -> None:
    store = old_store(tmp_path)
    store.save(SessionRecord(session_id="01FRESH", agent="demo", cwd="/"))
    for n in range(5):
        new_turn(store, "01FRESH", f"q{n}", f"a{n}")
    code, text = cli(store, "prune", "--older-than", "30", "--dry-run")
    assert code == 0 and "would remove 1 sessions" in text and store.get("01OLDSESSION") is not None
    code, text = cli(store, "prune", "--older-than", "30", "--max-events", "7")
    assert "removed 1 sessions" in text and "of 01FRESH (a gap marker stays)" in text
    assert store.get("01OLDSESSION") is None and not store.legacy_path("01OLDSESSION").exists()
    code, shown = cli(store, "show", "01FRESH")
    assert "removed by retention" in shown and "## You\nq4" in shown and "q0" not in shown


def test_prune_refuses_a_bad_retention_setting_and_removes_nothing(tmp_path: Path, monkeypatch, capsys) -> None:
    store = old_store(tmp_path)
    monkeypatch.setenv("ACP_MUX_SESSION_MAX_AGE_DAYS", "-1")
    code, out = cli(store, "prune")
    assert code == 2 and "ACP_MUX_SESSION_MAX_AGE_DAYS" in capsys.readouterr().err
    assert store.get("01OLDSESSION") is not None

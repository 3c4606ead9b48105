"""``acp-mux sessions`` as a person reads it: help when alone, a list with a header, a count and ``--limit``, one
time format with its zone in ``list`` and ``show``, agents in plain words, and the person's ``/agent`` lines in
``show`` of a session that switched agents."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_mux.cli.sessions import agents_of, run_sessions, when
from acp_mux.core.text.visible import visible
from acp_mux.server.records.event_log import EventLogWriter
from acp_mux.server.records.store import SessionRecord, SessionStore


def store_with(tmp_path: Path, *records: dict) -> SessionStore:
    store = SessionStore(tmp_path / "state")
    store.root.mkdir(parents=True, exist_ok=True)
    for record in records:
        (store.root / f"{record['session_id']}.json").write_text(json.dumps(record))
    return store


def record(number: int, **extra: object) -> dict:
    return {
        "session_id": f"01SESSION{number:02d}",
        "agent": "demo",
        "cwd": "/home/p/project",
        "title": f"talk {number}",
        "created_at": f"2026-11-{number + 1:02d}T09:00:00.000Z",
        "updated_at": f"2026-11-{number + 1:02d}T10:30:05.123Z",
        **extra,
    }


def cli(store: SessionStore, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    code = run_sessions(list(args), store, out)
    return code, out.getvalue()


def test_sessions_alone_shows_its_help_not_a_usage_error(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "acp_mux", "sessions"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"ACP_MUX_STATE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: acp-mux sessions") and done.stderr == ""
    assert "list" in done.stdout and "prune" in done.stdout


def test_list_has_a_header_a_count_and_a_limit(tmp_path):
    store = store_with(tmp_path, *(record(n) for n in range(5)))
    code, text = cli(store, "list")
    lines = text.splitlines()
    assert code == 0 and lines[0] == f"5 sessions in {store.root} (newest first)"
    assert lines[2].split() == ["ID", "UPDATED", "TITLE"] and lines[3].split() == ["AGENT", "·", "FOLDER"]
    assert lines[4].split()[0] == "01SESSION04" and "2026-11-05 10:30:05 UTC" in lines[4]
    assert lines[5].strip() == "demo · /home/p/project"
    code, text = cli(store, "list", "--limit", "2")
    assert text.splitlines()[0] == f"5 sessions in {store.root} (the newest 2 shown)"
    assert [line.split()[0] for line in text.splitlines()[4::2]] == ["01SESSION04", "01SESSION03"]


def test_a_bad_limit_is_a_usage_error_that_says_why(tmp_path, capsys):
    store = store_with(tmp_path, record(1))
    for bad in ("0", "-3", "two", "1.5"):
        with pytest.raises(SystemExit) as exit_:
            run_sessions(["list", "--limit", bad], store, io.StringIO())
        assert exit_.value.code == 2
        assert "N must be a whole number from 1" in capsys.readouterr().err


def test_show_uses_the_same_time_format_and_the_persons_agent_lines(tmp_path):
    switched = record(7, agent="codex", turn_agents=["claude", "codex", "claude"])
    store = store_with(tmp_path, switched)
    log = EventLogWriter(store.log_path("01SESSION07"), "01SESSION07")
    log.record("r1", "user.message", {"content": [{"type": "text", "text": "hello"}], "agent": "claude"}, 10)
    log.record("r1", "turn.ended", {"stopReason": "end_turn"}, 11)
    log.record("b1", "user.command", {"text": "/agent codex"}, 12)
    log.record("b1", "bridge.notice", {"text": "Now talking to Codex.\n"}, 13)
    log.flush()
    code, text = cli(store, "show", "01SESSION07")
    assert code == 0
    assert "· claude, codex ·" in text and "created 2026-11-08 09:00:00 UTC · updated 2026-11-08 10:30:05 UTC" in text
    assert "## You\n/agent codex\n## Agent\nNow talking to Codex." in text
    code, listed = cli(store, "list")
    assert "claude, codex · /home/p/project" in listed and "[" not in listed.split("\n", 3)[3]


@given(st.text(max_size=40))
def test_any_stored_time_is_shown_without_failing(stored):
    """A record's time is whatever the file held: it is shown in the one format when it parses, as itself (made
    visible) when it does not, and never raises."""
    shown = when(stored)
    assert "\x1b" not in shown and "\r" not in shown
    try:
        moment = datetime.fromisoformat(stored.replace("Z", "+00:00"))
    except ValueError:
        return
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    assert shown == moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


@given(st.lists(st.text(min_size=1, max_size=12), max_size=5), st.text(min_size=1, max_size=12))
def test_agents_are_words_never_a_list_repr(turn_agents, agent):
    """Whatever agents a record names (a hostile name with brackets, quotes or escape sequences included), the
    list and show print the names joined by commas, each made visible, in the order they first answered."""
    shown = agents_of(SessionRecord("01X", agent, "/", turn_agents=turn_agents))
    distinct = list(dict.fromkeys(turn_agents))
    names = distinct if len(distinct) > 1 else [agent]
    assert shown == ", ".join(visible(name) for name in names)
    assert "\x1b" not in shown and "\r" not in shown

"""The session store trusts none of its files (issue 11 §8): ids, shapes, links, modes, retention."""

from __future__ import annotations

import json
import logging
import os
import stat
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from acp_mux.core.settings import SettingError
from acp_mux.server.records.event_log import read_envelopes
from acp_mux.server.records.store import SessionRecord, SessionStore, retention_from_env, valid_session_id


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "state")


def record(session_id: str, **kw) -> SessionRecord:
    return SessionRecord(session_id=session_id, agent="demo", cwd="/tmp", **kw)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.mark.parametrize("bad", ["../escape", "..", ".hidden", "-rf", "a/b", "", "x" * 129, "a\x00b", "é"])
def test_ids_that_could_be_paths_never_touch_the_disk(store: SessionStore, tmp_path: Path, bad: str) -> None:
    assert not valid_session_id(bad)
    with pytest.raises(KeyError):
        store.save(record(bad))
    assert store.get(bad) is None
    store.delete(bad)  # no error, nothing removed
    assert not (tmp_path / "escape.json").exists() and not list(tmp_path.glob("*.json"))


def test_a_record_of_the_wrong_shape_is_skipped_and_the_others_still_list(store: SessionStore, caplog) -> None:
    store.save(record("good"))
    root = store.root
    (root / "list.json").write_text("[1, 2]")
    (root / "types.json").write_text(json.dumps({"session_id": "types", "agent": "demo", "cwd": 7}))
    (root / "dirs.json").write_text(
        json.dumps({"session_id": "dirs", "agent": "demo", "cwd": "/", "additional_directories": "x"})
    )
    (root / "broken.json").write_text("{not json")
    (root / "other.json").write_text(json.dumps({"session_id": "good", "agent": "demo", "cwd": "/"}))  # names another
    (root / "escape.json").write_text(json.dumps({"session_id": "../../x", "agent": "demo", "cwd": "/"}))
    with caplog.at_level(logging.WARNING):
        assert [r.session_id for r in store.list()] == ["good"]
    skipped = " ".join(r.getMessage() for r in caplog.records)
    for name in ("list.json", "types.json", "dirs.json", "broken.json", "other.json", "escape.json"):
        assert name in skipped


def test_symlinks_are_never_followed(store: SessionStore, tmp_path: Path) -> None:
    store.save(record("real"))
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    (store.root / "linked.json").symlink_to(tmp_path / "target.json")
    (tmp_path / "target.json").write_text(json.dumps({"session_id": "linked", "agent": "demo", "cwd": "/"}))
    assert store.get("linked") is None and [r.session_id for r in store.list()] == ["real"]
    store.log_path("real").symlink_to(outside)  # a planted log: appending must not write through it
    log = store.event_log("real")
    log.record("run", "user.message", {"content": []}, 1)
    log.flush()
    assert outside.read_text() == "precious\n" and log.failed is not None
    assert list(store.envelopes("real")) == []
    store.delete("real")  # removes the link, never its target
    assert outside.read_text() == "precious\n" and not store.log_path("real").is_symlink()


def test_a_symlinked_store_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "sessions").symlink_to(tmp_path / "elsewhere")
    store = SessionStore(tmp_path / "state")
    assert store.save(record("s1")) is False  # refused, said (write_error), never raised into a turn
    assert store.write_error is not None and "not a plain directory" in store.write_error
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_the_store_is_private_and_a_wider_old_one_is_tightened(store: SessionStore) -> None:
    store.root.mkdir(parents=True, mode=0o755)
    os.chmod(store.root, 0o755)
    store.save(record("s1"))
    log = store.event_log("s1")
    log.record("run", "user.message", {"content": []}, 1)
    log.flush()
    assert mode(store.root) == 0o700
    assert mode(store.root / "s1.json") == 0o600 and mode(store.log_path("s1")) == 0o600
    os.chmod(store.log_path("s1"), 0o644)  # written by an older version
    log.record("run", "turn.ended", {"stopReason": "end_turn"}, 2)
    log.flush()
    assert mode(store.log_path("s1")) == 0o600


def _aged(store: SessionStore, session_id: str, days: float, now: datetime) -> None:
    store.save(record(session_id))
    path = store.root / f"{session_id}.json"
    data = json.loads(path.read_text())
    data["updated_at"] = (now - timedelta(days=days)).isoformat().replace("+00:00", "Z")
    path.write_text(json.dumps(data))


def test_retention_by_age_and_count_spares_open_sessions_and_clears_orphans(store: SessionStore) -> None:
    now = datetime(2030, 1, 1, tzinfo=timezone.utc)
    for sid, days in [("new", 1), ("mid", 10), ("old", 100), ("ancient", 400), ("open", 500)]:
        _aged(store, sid, days, now)
    store.log_path("gone").write_text("")  # the log of a session whose record was deleted
    dry = store.prune(older_than_days=90, protect=frozenset({"open"}), dry_run=True, now=now)
    assert sorted(dry.removed_sessions) == ["ancient", "old"] and store.get("old") is not None
    report = store.prune(older_than_days=90, keep_sessions=1, protect=frozenset({"open"}), now=now)
    assert sorted(report.removed_sessions) == ["ancient", "mid", "old"]
    assert report.orphans == ["gone.events.jsonl"] and not store.log_path("gone").exists()
    assert sorted(r.session_id for r in store.list()) == ["new", "open"]


def test_retention_cuts_long_logs_leaving_a_gap_marker(store: SessionStore) -> None:
    store.save(record("long"))
    log = store.event_log("long")
    for turn in range(10):
        log.record("run", "user.message", {"content": [{"type": "text", "text": f"q{turn}"}]}, turn)
        log.record("run", "turn.ended", {"stopReason": "end_turn"}, turn)
    log.flush()
    report = store.prune(max_events=4)
    assert report.pruned_events == {"long": 16}
    envs = list(read_envelopes(store.log_path("long")))
    assert envs[0]["type"] == "gap.events_pruned" and envs[0]["data"]["events"] == 16
    assert [e["sequence"] for e in envs] == [15, 16, 17, 18, 19]


def test_retention_settings_from_the_environment() -> None:
    assert retention_from_env({}) == (90, 1000)
    assert retention_from_env({"ACP_MUX_SESSION_MAX_AGE_DAYS": "7", "ACP_MUX_SESSION_MAX_COUNT": "off"}) == (7, None)
    assert retention_from_env({"ACP_MUX_SESSION_MAX_AGE_DAYS": " 0 ", "ACP_MUX_SESSION_MAX_COUNT": "OFF"}) == (
        None,
        None,
    )
    for bad in ("soon", "-1", "7.5", "", "1e3", "\u0663", "99999999"):  # refused, never read as something else
        with pytest.raises(SettingError, match="ACP_MUX_SESSION_MAX_AGE_DAYS"):
            retention_from_env({"ACP_MUX_SESSION_MAX_AGE_DAYS": bad})

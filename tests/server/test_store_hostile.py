"""The store is hostile input (issue 21, class 4/5): special files, other users' files, huge files, a store that
cannot be written, and secrets that must never reach the store's bytes nor ``acp-mux sessions`` output.

Every read of a special file runs in a thread with a deadline: a regression that blocks on a FIFO fails the test
instead of hanging the suite.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import socket
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from acp_mux.cli.sessions import run_sessions
from acp_mux.core.text import redact
from acp_mux.core.files.state_files import NotAStateFile, read_state_file
from acp_mux.server.wire import settings_shapes
from acp_mux.server.sessions.agent_choice import AgentChoices
from acp_mux.server.records.store import SessionRecord, SessionStore

OTHER_UID = 54321


def within(seconds: float, work: Callable[[], Any]) -> Any:
    """``work()``'s result, or a test failure if it has not returned in ``seconds`` (a hang, not a slow machine)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the test thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still blocked after {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def plant(path: Path, kind: str, content: bytes = b"") -> None:
    """Put a special file of ``kind`` at ``path`` (tests run as root, so a device and chown work); ``other_user``
    holds ``content``, which would be read as valid were the owner not checked."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        os.mknod(path, 0o600 | 0o020000, os.makedev(1, 5))  # a character device: /dev/zero, endless
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    elif kind == "directory":
        path.mkdir()
    elif kind == "other_user":
        path.write_bytes(content)
        os.chown(path, OTHER_UID, OTHER_UID)
    elif kind == "huge":
        with open(path, "wb") as fh:
            fh.truncate(64 << 20)  # sparse: 64 MB of NULs, not a record


KINDS = ["fifo", "device", "socket", "directory", "other_user", "huge"]
needs_root = pytest.mark.skipif(os.getuid() != 0, reason="devices and chown need root (the test machine runs as root)")


@needs_root
@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_where_a_record_should_be_is_skipped_at_once(tmp_path: Path, kind: str, caplog) -> None:
    store = SessionStore(tmp_path / "state")
    assert store.save(SessionRecord(session_id="good", agent="demo", cwd="/"))
    plant(store.root / "bad.json", kind, json.dumps({"session_id": "bad", "agent": "demo", "cwd": "/"}).encode())
    assert within(5, lambda: store.get("bad")) is None
    assert within(5, lambda: [r.session_id for r in store.list()]) == ["good"]
    assert "bad.json" in caplog.text  # skipped with a warning, not silently


@needs_root
@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_where_the_event_log_should_be_is_skipped_at_once(tmp_path: Path, kind: str) -> None:
    store = SessionStore(tmp_path / "state")
    assert store.save(SessionRecord(session_id="s1", agent="demo", cwd="/"))
    good = store.event_log("s1")
    good.record("run", "user.message", {"content": [{"type": "text", "text": "planted"}]}, 1)
    good.flush()
    content = store.log_path("s1").read_bytes()  # a valid log: only the owner check refuses it as other_user's
    store.log_path("s1").unlink()
    plant(store.log_path("s1"), kind, content)
    assert within(10, lambda: list(store.envelopes("s1"))) == []
    if kind == "huge":
        return  # a regular file of ours, only too long to be a line we wrote: appending to it is fine
    writer = store.event_log("s1")  # appending is refused too: nothing written into a FIFO, a device, another's file
    writer.record("run", "user.message", {"content": []}, 1)
    within(5, writer.flush)
    assert writer.failed is not None


def test_an_overlong_line_is_skipped_and_the_lines_after_it_are_read(tmp_path: Path, monkeypatch) -> None:
    from acp_mux.server.records import event_log

    monkeypatch.setattr(event_log, "MAX_LINE_BYTES", 1000)
    store = SessionStore(tmp_path / "state")
    writer = store.event_log("s1")
    writer.record("run", "user.message", {"content": [{"type": "text", "text": "before"}]}, 1)
    writer.flush()
    with open(store.log_path("s1"), "ab") as fh:
        fh.write(b"x" * 5000 + b"\n")
    writer.record("run", "turn.ended", {"stopReason": "end_turn"}, 2)
    writer.flush()
    assert [e["type"] for e in store.envelopes("s1")] == ["user.message", "turn.ended"]


@needs_root
@pytest.mark.parametrize("kind", ["fifo", "device", "directory", "other_user"])
def test_last_agent_and_remembered_settings_are_read_only_from_plain_files_of_ours(tmp_path: Path, kind: str) -> None:
    plant(tmp_path / "last-agent", kind, b"demo")
    choices = AgentChoices(("demo",), tmp_path)
    assert within(5, lambda: choices._last_used()) is None
    within(5, lambda: choices.remember("claude"))  # writing it back never waits on a FIFO either
    if kind == "other_user":
        assert (tmp_path / "last-agent").read_bytes() == b"demo"  # another user's file is never written
    plant(tmp_path / "agents" / "demo.json", kind, b'{"modes": []}')
    assert within(5, lambda: settings_shapes.read_saved(str(tmp_path / "agents"), "demo")) is None


def test_state_files_refuse_symlinks_and_giants(tmp_path: Path) -> None:
    (tmp_path / "real").write_bytes(b"claude")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(NotAStateFile):
        read_state_file(tmp_path / "link")
    (tmp_path / "big").write_bytes(b"x" * 101)
    with pytest.raises(NotAStateFile):
        read_state_file(tmp_path / "big", 100)
    assert read_state_file(tmp_path / "real", 6) == b"claude"


# ── a store that cannot be written ─────────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("how", ["file_where_folder", "enospc"])
def test_a_store_that_cannot_be_written_never_raises(tmp_path: Path, how: str, monkeypatch) -> None:
    if how == "file_where_folder":
        (tmp_path / "state").write_text("a file where the state folder should be\n")
    else:
        from acp_mux.server.records import store as store_module

        def full(path: Path, data: bytes) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(store_module, "write_atomic", full)
    store = SessionStore(tmp_path / "state")
    assert store.save(SessionRecord(session_id="s1", agent="demo", cwd="/")) is False
    assert store.write_error is not None
    writer = store.event_log("s1")
    writer.record("run", "user.message", {"content": []}, 1)
    writer.flush()  # never raises either
    if how == "file_where_folder":
        assert writer.failed is not None


# ── secrets never reach the store ──────────────────────────────────────────────────────────────────────────────
@pytest.fixture
def forget_secrets() -> Iterator[None]:
    redact.forget_all()
    yield
    redact.forget_all()


def _event_fields(secret: str, prefix: str, suffix: str) -> list[tuple[str, dict[str, Any]]]:
    """A turn whose every kind of field carries ``secret`` inside other text: prompt, answer, thinking, tool input
    and output, a notice, an error, an unknown type."""
    inner = f"{prefix}{secret}{suffix}"
    return [
        ("user.message", {"content": [{"type": "text", "text": inner}], "agent": "demo"}),
        ("message_stop", {"text": inner}),
        ("thinking_stop", {"thinking": inner}),
        (
            "tool_call_ready",
            {
                "toolCallId": "t1",
                "toolName": "Bash",
                "input": {"command": f"curl -H 'X: {inner}'", "env": {"TOKEN": inner}},
            },
        ),
        ("tool_result", {"toolCallId": "t1", "toolName": "Bash", "output": inner}),
        ("bridge.notice", {"text": inner}),
        ("turn.ended", {"error": {"code": -32603, "message": inner}}),
        ("x.future_type", {"nested": [{"deep": inner}]}),
    ]


def _store_with(tmp_path: Path, secret: str, prefix: str, suffix: str) -> SessionStore:
    store = SessionStore(tmp_path / f"state-{os.urandom(4).hex()}")
    record = SessionRecord(session_id="s1", agent="demo", cwd="/", title=f"{prefix}{secret}{suffix}")
    assert store.save(record)
    writer = store.event_log("s1")
    for n, (kind, data) in enumerate(_event_fields(secret, prefix, suffix)):
        writer.record("run", kind, data, n + 1)
    writer.flush()
    return store


def _sessions_output(store: SessionStore, *argv: str) -> str:
    out = io.StringIO()
    assert run_sessions(list(argv), store, out) == 0
    return out.getvalue()


def _all_bytes(store: SessionStore) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(store.root.iterdir()))


def _forms(secret: str) -> list[bytes]:
    """Every way the secret could sit in the store's bytes: raw, and as JSON escapes it."""
    forms = {secret.encode("utf-8", "surrogatepass")}
    for ascii_only in (False, True):
        forms.add(json.dumps(secret, ensure_ascii=ascii_only)[1:-1].encode("utf-8", "surrogatepass"))
    return sorted(forms)


ARGVS = (["show", "s1"], ["export", "s1"], ["list"], ["list", "--json"])
secrets_st = st.text(st.characters(blacklist_categories=("Cs",)), min_size=8, max_size=40)
around_st = st.text(max_size=10)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(secret=secrets_st, prefix=around_st, suffix=around_st)
def test_generated_secrets_never_reach_the_store_nor_sessions_output(
    tmp_path: Path, forget_secrets: None, secret: str, prefix: str, suffix: str
) -> None:
    # the secret must not be spelled by the store's own structure (a "secret" like '","data":{' is no secret)
    # nor by a timestamp (times differ between the two stores)
    plain = _store_with(tmp_path, "-" * 8, "", "")
    skeleton = _all_bytes(plain) + "".join(_sessions_output(plain, *argv) for argv in ARGVS).encode("utf-8", "replace")
    assume(not any(form in skeleton for form in _forms(secret)))
    assume(not re.fullmatch(r"[0-9:.TZ\- ]+", secret))
    redact.register([secret])
    store = _store_with(tmp_path, secret, prefix, suffix)
    stored = _all_bytes(store)
    assert redact.MASK.encode() in stored
    for form in _forms(secret):
        assert form not in stored
    for argv in ARGVS:
        assert secret not in _sessions_output(store, *argv), argv


def test_the_mask_cannot_spell_the_secret_again(forget_secrets: None) -> None:
    secret = "]abcdefghijk"  # '[redacted' + ']abc…' would be the secret once more after a single pass
    redact.register([secret])
    assert secret not in redact.redact(secret + "abcdefghijk" + "abcdefghijk")


def test_without_secrets_the_log_lines_are_unchanged(tmp_path: Path, forget_secrets: None) -> None:
    store = _store_with(tmp_path, "nothing-secret-here", "a", "b")
    assert b"nothing-secret-here" in _all_bytes(store) and redact.MASK.encode() not in _all_bytes(store)


def test_remembered_settings_are_written_past_a_fifo_at_the_old_temp_name(tmp_path: Path) -> None:
    from acp_mux.server.sessions.session_settings import SessionSettings

    cache = tmp_path / "agents"
    cache.mkdir(mode=0o700)
    os.mkfifo(cache / ".demo.json.tmp")  # the fixed temp name an older version opened for writing (and blocked on)
    settings = SessionSettings([], [("m1", "Model one")], None, "m1", from_agent=True)
    within(5, lambda: settings.remember("demo", cache))
    assert json.loads((cache / "demo.json").read_text())["current_model"] == "m1"
    assert oct(os.stat(cache / "demo.json").st_mode & 0o777) == "0o600"

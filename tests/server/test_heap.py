"""Freed heap memory handed back at turn end: a call that works where glibc has malloc_trim, and is a no-op (never
an error) elsewhere."""

from __future__ import annotations

import platform

import pytest

from acp_mux.server.sessions import heap


@pytest.fixture(autouse=True)
def fresh_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_trim", None)
    monkeypatch.setattr(heap, "_looked_up", False)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_glibc_trims() -> None:
    assert heap.release_freed_memory() is True
    assert heap.release_freed_memory() is True  # looked up once, called every time


def test_without_malloc_trim_nothing_happens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_find_trim", lambda: None)
    assert heap.release_freed_memory() is False


def test_a_failing_trim_does_not_break_the_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(pad: int) -> int:
        raise OSError("no")

    monkeypatch.setattr(heap, "_find_trim", lambda: broken)
    assert heap.release_freed_memory() is False


def test_the_bridges_runs_do_not_collect_the_text_it_already_streamed() -> None:
    """A session's run can live for the whole session: RunResult.text would hold every word the agent said."""
    from types import SimpleNamespace

    from acp_mux.server.sessions.live_session import LiveSession
    from acp_mux.server.records.store import SessionRecord

    session = SimpleNamespace(
        adapter=SimpleNamespace(name="demo"),
        record=SessionRecord(session_id="s", agent="demo", cwd="/tmp"),
        config=SimpleNamespace(model=None, mode=None, binary=None, env=None, extra_args=[], inactivity_timeout_s=None),
        mcp_servers=[],
        client_capabilities={},
        settings=SimpleNamespace(agent_values=dict),
        _extra_directory_args=list,
    )
    options = LiveSession._run_options(session, None)  # type: ignore[arg-type]
    assert options.collect_text is False and options.agent == "demo"

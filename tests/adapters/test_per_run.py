"""The one per-run state convention (``PerRun`` in ``adapters/base.py``) that every adapter uses.

Adapter instances are shared by all runs of an agent, so a run's memory must live on its ParseContext; these tests
pin the rules the adapters rely on: one state per run (never shared between runs), created on first use unless the
state refuses to exist before ``start``, and an agent's extended state found through the family's class.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from acp_mux.adapters.acp_agents.acp_client import AcpRun
from acp_mux.adapters.base import PerRun
from acp_mux.adapters.stream_agents.codex_exec import CodexRun
from acp_mux.adapters.acp_agents.gemini import GeminiAdapter, GeminiRun
from acp_mux.adapters.json_rpc_peer import JsonRpcPeer
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.parse_context import ParseContext


@dataclass
class _Counter(PerRun):
    KEY = "test.counter"
    seen: list[str] = field(default_factory=list)


def _ctx() -> ParseContext:
    return ParseContext(run_id="r", agent="test")


def test_of_creates_one_state_per_run_and_keeps_it() -> None:
    ctx, other = _ctx(), _ctx()
    assert _Counter.find(ctx) is None
    state = _Counter.of(ctx)
    state.seen.append("a")
    assert _Counter.of(ctx) is state and _Counter.find(ctx) is state
    assert _Counter.of(other).seen == []  # another run starts empty


def test_keep_replaces_the_runs_state() -> None:
    ctx = _ctx()
    _Counter.of(ctx).seen.append("old")
    fresh = _Counter(seen=["new"]).keep(ctx)
    assert _Counter.of(ctx) is fresh and fresh.seen == ["new"]


def test_a_state_under_the_wrong_key_is_an_error_not_a_silent_reset() -> None:
    ctx = _ctx()
    ctx.state[_Counter.KEY] = {"seen": []}
    with pytest.raises(TypeError, match="test.counter"):
        _Counter.of(ctx)


def test_every_state_names_its_key() -> None:
    with pytest.raises(TypeError, match="KEY"):

        class _Nameless(PerRun):
            pass


def test_the_acp_run_exists_only_after_start() -> None:
    ctx = _ctx()
    with pytest.raises(RuntimeError, match="not started"):
        AcpRun.of(ctx)
    assert AcpRun.find(ctx) is None


def test_an_agents_extended_state_is_the_familys_too() -> None:
    ctx = _ctx()
    GeminiAdapter().start(RunOptions(agent="gemini", cwd="/tmp"), ctx)
    run = GeminiRun.of(ctx)
    assert AcpRun.of(ctx) is run and not run.after_load
    assert run.options.cwd == "/tmp" and run.peer.pending  # initialize is in flight on this run's peer


def test_codex_runs_keep_their_own_peer() -> None:
    ctx, other = _ctx(), _ctx()
    assert isinstance(CodexRun.of(ctx).peer, JsonRpcPeer)
    assert CodexRun.of(ctx).peer is not CodexRun.of(other).peer

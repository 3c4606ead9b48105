"""A new session asks before it changes anything: the registry's "asks" fact per agent agrees with the adapters,
and no mode name an editor or a session record can send widens codex's default without naming the wider mode.

The real CLIs are held to the fact by the write-then-edit end-to-end tests (tests/e2e/test_real_agents.py), which
run in the default mode; these tests keep the fact, the adapters and the text ``doctor`` prints from drifting.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_mux.adapters.rpc_agents.codex import APP_SERVER_POLICIES, ASK_MODE, CodexAdapter, resolve_app_mode
from acp_mux.adapters.stream_agents.codex_exec import _MODE_ALIASES
from acp_mux.adapters.registry import ASKABLE, DEMO_AGENT, ENTRIES, Asking
from acp_mux.adapters.base import get_adapter
from acp_mux.server.wire import settings_shapes as shapes
from acp_mux.server.sessions.session_settings import mode_dicts

SUPPORTED = [name for name, row in ENTRIES.items() if row.supported]
# codex's modes that run something without asking, and every name that reaches them
UNASKING = {mode for mode, (policy, _) in APP_SERVER_POLICIES.items() if policy != "untrusted"}
UNASKING_NAMES = UNASKING | {alias for alias, mode in _MODE_ALIASES.items() if mode in UNASKING}


def unasked_modes(asking: Asking) -> list[str]:
    """The mode ids the fact names as running without asking (each as `--mode X` or `X` in backticks)."""
    return re.findall(r"`(?:--mode )?([\w-]+)`", asking.unasked)


@pytest.mark.parametrize("name", SUPPORTED)
def test_every_agent_has_the_fact_and_declared_modes_agree_with_it(name: str) -> None:
    asking = ENTRIES[name].asking
    assert asking is not None, f"{name} does not say what it asks before"
    adapter = get_adapter(name)
    if not adapter.modes:  # the agent reports its own modes: the end-to-end tests check the names
        return
    ids = [m.id for m in adapter.modes]
    assert asking.mode == adapter.default_mode, (name, asking.mode, adapter.default_mode)
    assert set(unasked_modes(asking)) <= set(ids), (name, unasked_modes(asking), ids)


@pytest.mark.parametrize("name", [n for n in SUPPORTED if n not in ("openclaw", "hermes", DEMO_AGENT)])
def test_the_default_asks_before_writes_edits_and_commands(name: str) -> None:
    """Every agent but the two whose limits the fact spells out asks before all three by default."""
    assert {"writes", "edits", "commands"} <= set(ENTRIES[name].asking.asks)  # type: ignore[union-attr]


def test_codex_starts_in_ask_whose_policy_is_untrusted() -> None:
    adapter = CodexAdapter()
    assert adapter.default_mode == ASK_MODE.id == resolve_app_mode(None) == resolve_app_mode("default")
    assert APP_SERVER_POLICIES[ASK_MODE.id] == ("untrusted", "workspace-write")
    assert {"auto", "read-only", "full-access"} <= set(APP_SERVER_POLICIES)  # still there to choose


@given(st.one_of(st.text(max_size=30), st.sampled_from(sorted(UNASKING_NAMES | {"ask", "default", "ASK", " auto"}))))
def test_no_mode_name_widens_codex_unless_it_names_the_wider_mode(text: str) -> None:
    """An attacker's (or a stale record's) mode string: unknown → refused (None), never a mode that asks less;
    only the exact id or alias of a wider mode reaches it."""
    resolved = resolve_app_mode(text)
    assert resolved is None or resolved in APP_SERVER_POLICIES
    if resolved in UNASKING:
        assert text in UNASKING_NAMES


@given(st.one_of(st.none(), st.text(max_size=20)))
def test_a_codex_session_opened_with_any_unknown_mode_starts_asking(mode: str | None) -> None:
    adapter = CodexAdapter()
    start = shapes.starting_settings(
        mode_dicts(adapter.modes), list(adapter.models), adapter.default_mode, None, mode, None
    )
    if mode not in {m.id for m in adapter.modes}:
        assert start["current_mode"] == ASK_MODE.id


@given(st.lists(st.text(max_size=12), max_size=5))
def test_the_fact_refuses_what_it_cannot_name(words: list[str]) -> None:
    if all(w in ASKABLE for w in words):
        assert Asking("m", tuple(words), "x").asks == tuple(words)
    else:
        with pytest.raises(ValueError):
            Asking("m", tuple(words), "x")


@given(
    st.lists(st.sampled_from(ASKABLE), unique=True),
    st.sampled_from(["", "`--mode yolo`"]),
    st.sampled_from(["", "some limit"]),
)
def test_the_text_names_everything_asked_and_how_to_turn_it_off(asks: list[str], unasked: str, limits: str) -> None:
    text = Asking("m", tuple(asks), "x", unasked=unasked, limits=limits).text
    assert all(what in text for what in asks) and (limits in text)
    assert (f"without asking: {unasked}" in text) if unasked else ("no mode runs without asking" in text)
    assert text.startswith("before nothing") == (not asks)

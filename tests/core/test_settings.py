"""ACP_MUX_* settings have one grammar each; hypothesis tries every other string and none is read as a value."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_mux.core.settings import MAX_AGE_DAYS, MAX_SESSIONS, SETTINGS, SettingError, read_setting, settings_problem

LIMITS = {"ACP_MUX_SESSION_MAX_AGE_DAYS": MAX_AGE_DAYS, "ACP_MUX_SESSION_MAX_COUNT": MAX_SESSIONS}
# strings near the grammar's edges, mixed with anything at all
near = st.sampled_from(
    [
        "-1",
        "0",
        "1",
        "+1",
        "1.0",
        "7.5",
        "1e3",
        "0x10",
        "1_000",
        "٣",
        "１",
        "off",
        "OFF",
        "of",
        "none",
        "",
        " ",
        "90 days",
        "36500",
        "36501",
        "10000000",
        "10000001",
        "99999999999999",
        "debug",
        "Warning",
        "TRACE",
        "yes",
        "true",
        "0",
        "1",
        " 1 ",
    ]
)
values = st.one_of(near, st.text(max_size=12), st.integers(-(10**6), 10**8).map(str))


@given(st.sampled_from(sorted(LIMITS)), values)
def test_a_number_setting_is_a_whole_number_in_range_or_off_and_nothing_else(name: str, raw: str) -> None:
    text = raw.strip()
    fits = text.lower() == "off" or (
        re.fullmatch(r"[0-9]{1,12}", text, re.ASCII) is not None and int(text) <= LIMITS[name]
    )
    if fits:
        value = read_setting(name, {name: raw})
        assert value == (None if text.lower() == "off" or int(text) == 0 else int(text))
    else:
        with pytest.raises(SettingError) as caught:
            read_setting(name, {name: raw})
        assert name in str(caught.value) and "whole number" in str(caught.value)


@given(values)
def test_enumerated_settings_take_only_their_words(raw: str) -> None:
    levels = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
    if raw.strip().upper() in levels:
        assert read_setting("ACP_MUX_LOG_LEVEL", {"ACP_MUX_LOG_LEVEL": raw}) == raw.strip().upper()
    else:
        with pytest.raises(SettingError, match="ACP_MUX_LOG_LEVEL"):
            read_setting("ACP_MUX_LOG_LEVEL", {"ACP_MUX_LOG_LEVEL": raw})
    if raw.strip() in ("0", "1"):
        assert read_setting("ACP_MUX_CLAUDE_PREWARM", {"ACP_MUX_CLAUDE_PREWARM": raw}) == raw.strip()
    else:
        with pytest.raises(SettingError, match="0 \\(off\\) or 1 \\(on\\)"):
            read_setting("ACP_MUX_CLAUDE_PREWARM", {"ACP_MUX_CLAUDE_PREWARM": raw})


def test_unset_means_the_default_and_every_problem_is_named_at_once() -> None:
    assert read_setting("ACP_MUX_SESSION_MAX_COUNT", {}, 1000) == 1000
    assert settings_problem({}) is None
    message = settings_problem({"ACP_MUX_SESSION_MAX_AGE_DAYS": "-1", "ACP_MUX_LOG_LEVEL": "loud"})
    assert message is not None and "ACP_MUX_SESSION_MAX_AGE_DAYS='-1'" in message and "ACP_MUX_LOG_LEVEL" in message
    assert set(SETTINGS) >= {"ACP_MUX_SESSION_MAX_AGE_DAYS", "ACP_MUX_SESSION_MAX_COUNT", "ACP_MUX_LOG_LEVEL"}


@given(st.one_of(values, st.sampled_from(["ask", "never", "codex", "claude", "Codex", "ASK", "codex,claude", "auto"])))
def test_failover_takes_ask_never_or_an_agent_name_and_nothing_else(raw: str) -> None:
    """``ACP_MUX_FAILOVER``: a near-miss (another case, a list, a blank) is refused with the variable's name, never
    read as some agent or as "ask"; a name that is no agent's (``auto``) is refused by the server, which knows the
    agents (core knows none)."""
    from acp_mux.adapters.registry import ENTRIES
    from acp_mux.server.branches.failover import session_default, setting_problem

    name = "ACP_MUX_FAILOVER"
    text = raw.strip()
    if text in ("ask", "never") or text in ENTRIES:
        assert read_setting(name, {name: raw}) == text == session_default({name: raw})
        assert setting_problem({name: raw}) is None
    else:
        problem = setting_problem({name: raw})
        assert problem is not None and name in problem
        with pytest.raises(SettingError, match=name):
            session_default({name: raw})
    assert session_default({}) == "ask"

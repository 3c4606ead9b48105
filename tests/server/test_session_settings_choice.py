"""The answer to ``session/set_config_option`` for an agent's own option shows the value the agent took."""

from __future__ import annotations

from acp_mux.core.events.union import SessionOptionsEvent
from acp_mux.server.sessions.session_settings import SessionSettings


def effort(value: str) -> dict[str, object]:
    choices = [{"value": v, "name": v} for v in ("low", "high")]
    return {"id": "reasoning_effort", "name": "Effort", "type": "select", "currentValue": value, "options": choices}


def test_a_taken_choice_is_the_options_current_value_until_the_agent_reports_its_own() -> None:
    settings = SessionSettings([], [], None, None)
    settings.apply(SessionOptionsEvent(config_options=[effort("low")]))
    settings.chosen("reasoning_effort", "high")
    assert settings.agent_option("reasoning_effort") == effort("high")
    settings.chosen("unknown", "x")  # only the option named changes
    assert settings.config_options() == [effort("high")]
    settings.apply(SessionOptionsEvent(config_options=[effort("low")]))  # the agent's own report wins
    assert settings.config_options() == [effort("low")]

"""pi's own controls through its RPC mode (``pi_settings``): its model list and thinking level, read from pi's answers
in the shapes pi 0.73.1 sends (checked on the real CLI by ``tests/e2e/test_pi_controls_real.py``), and answers of
any other shape read without raising."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.adapters.rpc_agents.pi import PiAdapter, PiRun
from acp_mux.adapters.rpc_agents.pi_settings import PiControls, thinking_levels
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.union import BaseEvent, SessionOptionsEvent
from acp_mux.core.run.parse_context import ParseContext
from tests.adapters.helpers import make_ctx, sent

CWD = "/work/project"
FAKE = {"id": "fake-model", "name": "Fake", "provider": "fake", "reasoning": True, "contextWindow": 128000}
PLAIN = {"id": "plain", "name": "Plain", "provider": "fake", "reasoning": False}
XHIGH = {"id": "max", "provider": "openai", "reasoning": True, "thinkingLevelMap": {"xhigh": "xhigh", "minimal": None}}


def started(agent_options: dict[str, Any] | None = None) -> tuple[PiAdapter, ParseContext, dict[str, str]]:
    """A pi run after start: the ids of the commands it sent, by type."""
    adapter, ctx = PiAdapter(), make_ctx("pi", CWD)
    adapter.start(RunOptions(agent="pi", cwd=CWD, env={}, agent_options=agent_options or {}), ctx)
    return adapter, ctx, {c["type"]: c["id"] for c in sent(ctx)}


def answer(adapter: PiAdapter, ctx: ParseContext, command_id: str, command: str, data: Any) -> list[BaseEvent]:
    line = {"type": "response", "id": command_id, "command": command, "success": True, "data": data}
    return list(adapter.parse_line(json.dumps(line), ctx))


def options(events: list[BaseEvent]) -> SessionOptionsEvent:
    found = [e for e in events if isinstance(e, SessionOptionsEvent)]
    assert found, events
    return found[-1]


def test_pis_models_and_thinking_level_are_offered_from_its_own_answers() -> None:
    adapter, ctx, ids = started()
    answer(adapter, ctx, ids["get_state"], "get_state", {"model": FAKE, "thinkingLevel": "medium"})
    shown = options(
        answer(adapter, ctx, ids["get_available_models"], "get_available_models", {"models": [FAKE, PLAIN]})
    )
    assert [(m.id, m.name) for m in shown.models or ()] == [("fake/fake-model", "Fake"), ("fake/plain", "Plain")]
    assert shown.current_model == "fake/fake-model"
    (level,) = shown.config_options or ()
    assert (level["id"], level["category"], level["currentValue"]) == ("thinking_level", "thought_level", "medium")
    assert [o["value"] for o in level["options"]] == ["off", "minimal", "low", "medium", "high"]


def test_a_chosen_level_goes_to_pi_and_pis_own_report_moves_it() -> None:
    adapter, ctx, ids = started()
    answer(adapter, ctx, ids["get_state"], "get_state", {"model": FAKE, "thinkingLevel": "off"})
    assert adapter.set_config_option("thinking_level", "high", ctx)
    assert sent(ctx)[-1] | {"id": ""} == {"id": "", "type": "set_thinking_level", "level": "high"}
    assert PiRun.of(ctx).options.agent_options == {"thinking_level": "high"}  # a later pi is started with it
    assert not adapter.set_config_option("thinking_level", "xhigh", ctx)  # this model has no xhigh
    assert not adapter.set_config_option("thinking_level", 3, ctx)
    assert not adapter.set_config_option("effort", "high", ctx)
    assert sent(ctx) == []
    # a model switch: pi answers with the model and reports the level it clamped to
    set_model = adapter.set_model("fake/plain", ctx)
    assert set_model and sent(ctx)[-1]["type"] == "set_model"
    command_id = next(k for k, v in PiRun.of(ctx).waiting.items() if v == "model")
    shown = options(answer(adapter, ctx, command_id, "set_model", PLAIN))
    assert shown.current_model == "fake/plain" and shown.config_options == []  # nothing to choose without reasoning
    line = json.dumps({"type": "thinking_level_changed", "level": "off"})
    assert options(list(adapter.parse_line(line, ctx))).config_options == []
    assert PiRun.of(ctx).controls.level == "off"


def test_the_chosen_level_is_a_flag_of_a_pi_started_later() -> None:
    spec = PiAdapter().build_spawn(RunOptions(agent="pi", cwd=CWD, env={}, agent_options={"thinking_level": "low"}))
    assert spec.args[spec.args.index("--thinking") + 1] == "low"
    spec = PiAdapter().build_spawn(RunOptions(agent="pi", cwd=CWD, env={}, agent_options={"thinking_level": "x; rm"}))
    assert "--thinking" not in spec.args


def test_levels_follow_pis_own_rule() -> None:
    assert thinking_levels(PLAIN) == ["off"]
    assert thinking_levels(XHIGH) == ["off", "low", "medium", "high", "xhigh"]
    assert thinking_levels({"reasoning": True, "thinkingLevelMap": "nonsense"}) == ["off", "minimal", "low", "medium", "high"]  # fmt: skip


def test_a_model_pi_runs_but_does_not_list_is_still_shown() -> None:
    controls = PiControls()
    controls.take_models({"models": [PLAIN]})
    shown = options(controls.take_state({"model": FAKE, "thinkingLevel": "low"}))
    assert [m.id for m in shown.models or ()] == ["fake/fake-model", "fake/plain"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
MODELISH = st.fixed_dictionaries(
    {},
    optional={
        "id": JSON | st.sampled_from(["m", ""]),
        "provider": JSON | st.just("p"),
        "name": JSON,
        "reasoning": JSON,
        "thinkingLevelMap": JSON | st.dictionaries(st.sampled_from(["off", "low", "xhigh"]), JSON),
    },
)


@settings(max_examples=300, deadline=None)
@given(
    state=JSON | st.fixed_dictionaries({}, optional={"model": JSON | MODELISH, "thinkingLevel": JSON}),
    models=JSON | st.fixed_dictionaries({}, optional={"models": JSON | st.lists(JSON | MODELISH, max_size=4)}),
    chosen=JSON | MODELISH,
    level=JSON | st.sampled_from(["off", "high", "xhigh"]),
)
def test_any_shape_of_pis_answers_is_read_without_raising(state: Any, models: Any, chosen: Any, level: Any) -> None:
    adapter, ctx, ids = started()
    events = answer(adapter, ctx, ids["get_state"], "get_state", state)
    events += answer(adapter, ctx, ids["get_available_models"], "get_available_models", models)
    events += list(adapter.parse_line(json.dumps({"type": "thinking_level_changed", "level": level}), ctx))
    adapter.set_model("p/m", ctx)
    command_id = next((k for k, v in PiRun.of(ctx).waiting.items() if v == "model"), "none")
    events += answer(adapter, ctx, command_id, "set_model", chosen)
    taken = adapter.set_config_option("thinking_level", level, ctx)
    controls = PiRun.of(ctx).controls
    assert not taken or level in controls.levels()
    for shown in (e for e in events if isinstance(e, SessionOptionsEvent)):  # only well-formed models are offered
        assert all(m.id and isinstance(m.id, str) for m in shown.models or ())
        for option in shown.config_options or ():
            assert option["currentValue"] in [o["value"] for o in option["options"]]

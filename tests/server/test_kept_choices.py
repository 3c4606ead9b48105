"""The agent's own settings the person chose (effort, Fast mode, a thinking level) are kept in the session record, for
every agent, and come back when the session is reopened (``session/load``, ``session/resume``): shown as they were,
given to the agent's process, restored in an agent that starts without them. A stored value of any shape is checked
when the record is read: what is not an ACP config option is dropped, and the record itself still loads."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.union import BaseEvent, SessionOptionsEvent
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.protocol import v1
from acp_mux.server.sessions.live_session import BridgeConfig, LiveSession
from acp_mux.server.sessions.session_settings import SessionSettings
from acp_mux.server.records.store import SessionRecord, SessionStore
from tests.server.memory_agents import MemoryAdapter, MemoryProcess


def effort(value: str, levels: tuple[str, ...] = ("default", "low", "high")) -> dict[str, Any]:
    choices = [{"value": v, "name": v.capitalize()} for v in levels]
    return {
        "id": "effort",
        "name": "Effort",
        "category": "thought_level",
        "type": "select",
        "currentValue": value,
        "options": choices,
    }


def fast(on: bool) -> dict[str, Any]:
    return {"id": "fast", "name": "Fast mode", "category": "model_config", "type": "boolean", "currentValue": on}


def test_the_chosen_options_survive_a_round_trip_through_the_store(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    record = SessionRecord(session_id="S1", agent="claude", cwd="/p", chosen_options=[effort("high"), fast(True)])
    assert store.save(record)
    loaded = store.get("S1")
    assert loaded is not None and loaded.chosen_options == [effort("high"), fast(True)]


def test_bad_stored_options_are_dropped_and_the_record_still_loads(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.save(SessionRecord(session_id="S1", agent="claude", cwd="/p", mode="plan"))
    path = store.root / "S1.json"
    data = json.loads(path.read_text())
    data["chosen_options"] = [
        effort("high"),
        effort("max"),  # not one of its own choices
        {**fast(True), "currentValue": "yes"},  # a boolean that is not a bool
        {
            "id": "model",
            "name": "Model",
            "type": "select",
            "currentValue": "x",
            "options": [{"value": "x", "name": "x"}],
        },
        {**effort("low"), "id": "effort"},  # the same id again: the first one stands
        "effort=high",
        {"id": "fast", "name": "Fast", "type": "toggle", "currentValue": True},
    ]
    path.write_text(json.dumps(data))
    loaded = store.get("S1")
    assert loaded is not None and loaded.mode == "plan"
    assert loaded.chosen_options == [effort("high")]
    data["chosen_options"] = {"effort": "high"}  # not even a list
    path.write_text(json.dumps(data))
    loaded = store.get("S1")
    assert loaded is not None and loaded.chosen_options == []


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=16,
)
CHOICE = st.fixed_dictionaries({}, optional={"value": JSON | st.sampled_from(["a", "b"]), "name": JSON | st.just("A")})
OPTIONISH = st.fixed_dictionaries(
    {},
    optional={
        "id": JSON | st.sampled_from(["effort", "fast", "mode", ""]),
        "name": JSON | st.just("Effort"),
        "type": JSON | st.sampled_from(["select", "boolean"]),
        "currentValue": JSON | st.sampled_from(["a", True]),
        "category": JSON,
        "options": JSON
        | st.lists(CHOICE | st.fixed_dictionaries({"group": JSON, "name": JSON, "options": st.lists(CHOICE)})),
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stored=JSON | st.lists(JSON | OPTIONISH, max_size=5))
def test_any_stored_shape_loads_as_valid_acp_options_or_nothing(tmp_path: Path, stored: Any) -> None:
    store = SessionStore(tmp_path)
    store.save(SessionRecord(session_id="S1", agent="codex", cwd="/p"))
    path = store.root / "S1.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "chosen_options": stored}))
    loaded = store.get("S1")
    assert loaded is not None  # the record loads whatever its options hold
    ids = [o["id"] for o in loaded.chosen_options]
    assert len(ids) == len(set(ids)) and not {"mode", "model", "agent", "failover"} & set(ids)
    for option in loaded.chosen_options:
        v1.SessionConfigOption.model_validate(option)  # ACP's own schema takes each one
        assert SessionSettings.offers(option, option["currentValue"])


def test_a_reopened_session_shows_gives_and_restores_the_kept_choices() -> None:
    settings = SessionSettings([], [], None, None)
    settings.reopened([effort("high"), fast(True)])
    assert settings.config_options() == [effort("high"), fast(True)]  # the load answer, before the agent reports
    assert settings.agent_values() == {"effort": "high", "fast": True}  # a process started now is given them
    # the agent reports effort as it started (with the kept value), fast not yet: nothing to set in it
    settings.apply(SessionOptionsEvent(config_options=[effort("high")]))
    assert settings.to_restore() == {}
    # fast appears, off (an agent that does not start with it): it is set in the agent, once
    settings.apply(SessionOptionsEvent(config_options=[effort("high"), fast(False)]))
    assert settings.to_restore() == {"fast": True}
    assert settings.to_restore() == {}


def test_a_kept_choice_the_agent_no_longer_offers_is_dropped_not_forced() -> None:
    settings = SessionSettings([], [], None, None)
    settings.reopened([effort("high")])
    settings.apply(SessionOptionsEvent(config_options=[effort("default", ("default", "low"))]))
    assert settings.to_restore() == {}
    assert settings.kept([effort("high")]) == [effort("default", ("default", "low"))]  # the record follows


def test_the_record_keeps_a_choice_while_its_option_is_hidden_and_takes_a_new_one() -> None:
    settings = SessionSettings([], [], None, None)
    settings.apply(SessionOptionsEvent(config_options=[effort("default"), fast(False)]))
    settings.chosen("effort", "high")
    chosen = settings.chosen_option([], "effort")
    assert chosen == [effort("high")]
    settings.apply(SessionOptionsEvent(config_options=[]))  # a model without these options
    assert settings.kept(chosen) == [effort("high")]


class OptionsAgent(MemoryProcess):
    """An agent that reports its effort option (``low``) when it opens, and takes a new value in place."""

    def __init__(self) -> None:
        super().__init__()
        self.set: list[dict[str, Any]] = []
        self.say("ready")
        self.say("options:low")

    async def write(self, data: str | bytes) -> None:
        message = json.loads(data)
        self.set.append(message)
        self.say(f"options:{message['effort']}")


class OptionsAdapter(MemoryAdapter):
    def __init__(self) -> None:
        super().__init__("a")
        self.started_with: list[dict[str, Any]] = []

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        self.started_with.append(dict(options.agent_options))
        return super().build_spawn(options)

    def set_config_option(self, option_id: str, value: Any, ctx: ParseContext) -> bool:
        ctx.send({option_id: value})
        return True

    def parse_other(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        value = line.removeprefix("options:")
        return [SessionOptionsEvent(config_options=[effort(value)])]


async def test_a_reopened_session_sets_the_kept_choice_in_an_agent_that_starts_without_it(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.save(SessionRecord(session_id="s1", agent="a", cwd=str(tmp_path), chosen_options=[effort("high")]))
    record = store.get("s1")
    assert record is not None
    updates: list[Any] = []
    adapter, agent = OptionsAdapter(), OptionsAgent()
    session = LiveSession(
        record,
        adapter,
        BridgeConfig(agent="a"),
        store,
        send_update=lambda _sid, payload: updates.append(payload),
        request=lambda method, params: asyncio.sleep(0),
    )
    assert {o["id"]: o["currentValue"] for o in session.config_options()}["effort"] == "high"  # the load answer

    async def spawn(_spec: SpawnSpec) -> OptionsAgent:
        return agent

    with mock.patch("acp_mux.core.run.handle.spawn", spawn):
        session.warm()
        try:
            for _ in range(200):
                if agent.set and updates and updates[-1]["configOptions"][-1]["currentValue"] == "high":
                    break
                await asyncio.sleep(0.01)
        finally:
            await session.close()
    assert adapter.started_with == [{"effort": "high"}]  # given at start, for an adapter that takes it there
    assert agent.set == [{"effort": "high"}]  # and set once in the agent that reported "low"
    assert updates[-1]["configOptions"][-1]["currentValue"] == "high"
    kept = store.get("s1")
    assert kept is not None and kept.chosen_options == [effort("high")]

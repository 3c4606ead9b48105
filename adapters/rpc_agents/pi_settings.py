"""pi's own controls through ``pi --mode rpc``: its model list and thinking level, as the editor sees them and as pi
takes them (issue 38).

Where the values come from (pi 0.73 ``docs/rpc.md``, ``dist/modes/rpc/rpc-mode.js``): ``get_available_models``
lists the models pi can run (full Model objects: ``provider``, ``id``, ``name``, ``reasoning``,
``thinkingLevelMap``), ``get_state`` names the current model and ``thinkingLevel``, the ``set_model`` answer is the
new model, and pi reports every level change itself (the ``thinking_level_changed`` event, also when a model
switch clamps the level). All of it arrives at session start, so the editor sees pi's own models, not a fixed table.

Which levels a model takes is pi's own rule (``pi-ai`` ``getSupportedThinkingLevels``): a model without
``reasoning`` has only ``off``; one with it has every level its ``thinkingLevelMap`` does not map to null, and
``xhigh`` only where the map names it. The level is offered as ``thinking_level`` (category ``thought_level``) on a
model that reasons; a choice goes to pi as ``set_thinking_level`` and applies from the next model request on. A
process started later gets it as ``--thinking`` (:func:`spawn_args`).

Everything here reads pi's answers of any shape: a model without a string provider and id, a level pi does not
name, a map that is not an object are ignored, never raised on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp_mux.core.events.lazy_events import ev
from acp_mux.core.text.shapes import as_dict, as_list, as_str

if TYPE_CHECKING:
    from acp_mux.core.run.contract import RunOptions
    from acp_mux.core.events.union import BaseEvent

__all__ = ["LEVELS", "THINKING", "PiControls", "model_id", "spawn_args", "thinking_levels"]

THINKING = "thinking_level"
LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")  # pi-ai's EXTENDED_THINKING_LEVELS, in its order
_LEVEL_NAMES = {"xhigh": "Extra high"}


def model_id(model: Any) -> str | None:
    """``provider/id`` of one of pi's Model objects (what ``set_model`` and ``--model`` take), else its bare id."""
    model = as_dict(model)
    provider, ident = model.get("provider"), model.get("id")
    if isinstance(ident, str) and ident:
        return f"{provider}/{ident}" if isinstance(provider, str) and provider else ident
    return None


def thinking_levels(model: Any) -> list[str]:
    """The levels pi lets ``model`` run at (pi-ai's getSupportedThinkingLevels); ``off`` alone without reasoning."""
    model = as_dict(model)
    if model.get("reasoning") is not True:
        return ["off"]
    mapped = as_dict(model.get("thinkingLevelMap"))
    levels = []
    for level in LEVELS:
        if level in mapped and mapped[level] is None:
            continue
        if level == "xhigh" and level not in mapped:
            continue
        levels.append(level)
    return levels


@dataclass
class PiControls:
    """What one pi process said of its models and thinking level (kept on the adapter's per-run state)."""

    models: list[dict[str, Any]] = field(default_factory=list)  # get_available_models, each with a provider/id
    listed: bool = False  # pi answered get_available_models
    model: dict[str, Any] | None = None  # the current Model object
    level: str | None = None  # pi's current thinking level

    # ── what pi said ───────────────────────────────────────────────────────────────────────────────────────────
    def take_models(self, data: Any) -> list[BaseEvent]:
        """``get_available_models``' answer: pi's models (those without a provider/id left out)."""
        found = [m for m in as_list(as_dict(data).get("models")) if isinstance(m, dict) and model_id(m)]
        self.models = list({model_id(m): m for m in found}.values())  # one entry per id, as pi would pick it
        self.listed = True
        return self.options_event()

    def take_state(self, data: Any) -> list[BaseEvent]:
        """``get_state``' answer: the current model (a Model object, or null before one is chosen) and level."""
        state = as_dict(data)
        model = state.get("model")
        if isinstance(model, dict) and model_id(model):
            self.model = model
        level = state.get("thinkingLevel")
        if level in LEVELS:
            self.level = str(level)
        return self.options_event()

    def take_model(self, data: Any) -> list[BaseEvent]:
        """``set_model``'s answer: the model pi now runs."""
        if not model_id(data):
            return []
        self.model = as_dict(data)
        return self.options_event()

    def take_level(self, level: Any) -> list[BaseEvent]:
        """pi's ``thinking_level_changed`` event (a choice, or a model switch that clamped the level)."""
        if level not in LEVELS or level == self.level:
            return []
        self.level = str(level)
        return self.options_event()

    # ── what the person chooses ────────────────────────────────────────────────────────────────────────────────
    def choose_level(self, value: Any) -> bool:
        """The editor's level, when the current model takes it (pi would clamp anything else to another level)."""
        if not isinstance(value, str) or value not in self.levels():
            return False
        self.level = value
        return True

    # ── what the editor sees ───────────────────────────────────────────────────────────────────────────────────
    def levels(self) -> list[str]:
        return thinking_levels(self.model) if self.model is not None else []

    def current_model(self) -> str | None:
        return model_id(self.model) if self.model is not None else None

    def config_options(self) -> list[dict[str, Any]]:
        """``thinking_level`` on a model that reasons (one that has only ``off`` has nothing to choose)."""
        levels = self.levels()
        if len(levels) < 2:
            return []
        current = self.level if self.level in levels else levels[0]
        return [
            {
                "id": THINKING,
                "name": "Thinking level",
                "description": "How much the model reasons before it answers",
                "category": "thought_level",
                "type": "select",
                "currentValue": current,
                "options": [{"value": level, "name": _LEVEL_NAMES.get(level, level.capitalize())} for level in levels],
            }
        ]

    def options_event(self) -> list[BaseEvent]:
        """What the editor sees now: pi's models once listed (with the current one, listed or not), the current
        model and the thinking level; nothing before pi has named its model."""
        current = self.current_model()
        if current is None and not self.listed:
            return []
        fields: dict[str, Any] = {"current_model": current}
        if self.listed:
            models = [
                ev.SessionModelOption(id=str(model_id(m)), name=as_str(m.get("name")) or str(model_id(m)))
                for m in self.models
            ]
            if current is not None and all(o.id != current for o in models):  # pi runs it but does not list it
                models.insert(0, ev.SessionModelOption(id=current, name=as_str(as_dict(self.model).get("name"))))
            fields["models"] = models
        if self.model is not None:
            fields["config_options"] = self.config_options()
        return [ev.SessionOptionsEvent(**fields)]


def spawn_args(options: RunOptions) -> list[str]:
    """The thinking level the editor chose, as the flag of a pi started later (``--thinking <level>``)."""
    level = options.agent_options.get(THINKING)
    return ["--thinking", level] if isinstance(level, str) and level in LEVELS else []

"""Claude Code's own controls, read from the CLI and set through it: models, modes, effort, Fast mode, ultracode.

What a Claude CLI offers depends on its version and the account (2.1.332: default, opus, fable, sonnet, haiku, each
with its own effort levels and Fast mode support; 2.1.197: default, opus[1m], sonnet, sonnet[1m], haiku), so nothing
here is a fixed table: the answer to our ``initialize`` control request lists the models (``models``: value,
displayName, ``supportedEffortLevels``, ``supportsFastMode``, ``supportsAutoMode``), the Fast mode state
(``fast_mode_state``) and the permission mode. The adapter's declared models and modes stand only until that answer
comes. Ultracode is offered on the models with ``xhigh`` effort (claude-agent-acp's own rule when it has no
``get_settings`` report): acp-mux asks nothing more before the first prompt, which must wait for no extra request.

The editor sees them as claude-agent-acp 0.101 shows them (same ids, categories and on/off shapes): ``effort``
(``thought_level``: default plus the current model's levels), ``fast`` and ``ultracode`` (``model_config``: shown
only where the current model supports them; boolean for an editor that takes boolean options, else on/off), mode
``auto`` where the CLI's models support it. A change reaches the running CLI by the control requests the Agent SDK
sends (verified on 2.1.332, each changing the next model request: ``set_model`` → ``model``, ``apply_flag_settings``
``effortLevel`` → ``output_config.effort``, ``fastMode`` → ``speed: "fast"``); a process started later gets them as
flags (``--effort``, ``--settings`` with ``fastMode``/``ultracode``) from :attr:`RunOptions.agent_options`.

Effort follows the model as in claude-agent-acp: a level the new model lacks falls back to the default (and the
CLI's flag is cleared), Fast mode and ultracode hide on a model without them and come back with the person's choice.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp_mux.adapters.base import ModeInfo, PerRun
from acp_mux.adapters.config_toggles import takes_boolean_options, toggle_option, toggle_value
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.text.shapes import as_list

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent

__all__ = ["ClaudeSettingsRun", "AUTO_MODE", "EFFORT", "FAST", "ULTRACODE", "spawn_args"]

EFFORT = "effort"
FAST = "fast"
ULTRACODE = "ultracode"
DEFAULT_EFFORT = "default"
AUTO_MODE = ModeInfo("auto", "Auto", "Claude decides which actions need your approval")
Control = Callable[[dict[str, Any]], str]  # sends one control request to Claude, returns its request id


@dataclass
class ClaudeSettingsRun(PerRun):
    """What one Claude run knows of Claude's own settings (``ClaudeSettingsRun.of(ctx)``)."""

    KEY = "claude_settings"

    boolean: bool = False  # the editor takes boolean config options
    known: bool = False  # the CLI has listed its models (its initialize answer)
    models: list[dict[str, Any]] = field(default_factory=list)  # the CLI's model infos, as it sent them
    model: str = "default"  # the chosen model's option value
    mode: str | None = None
    # the editor chose a mode in this run (``set_mode``): the CLI's answers to requests sent before it (its initialize
    # answer names the mode it started in) must not put the old mode back
    mode_chosen: bool = False
    effort: str | None = None  # None: the CLI's own default
    fast: bool = False
    ultracode: bool = False
    pending: dict[str, str] = field(default_factory=dict)  # control request id → what its answer means

    # ── start ──────────────────────────────────────────────────────────────────────────────────────────────────
    @classmethod
    def begin(cls, options: RunOptions, ctx: ParseContext) -> ClaudeSettingsRun:
        """The run's settings as the session left them: the model and mode asked for, the editor's last choices."""
        st = cls.of(ctx)
        st.boolean = takes_boolean_options(options.client_capabilities)
        st.model = options.model or "default"
        st.mode = options.mode
        chosen = options.agent_options
        effort = chosen.get(EFFORT)
        st.effort = effort if isinstance(effort, str) and effort != DEFAULT_EFFORT else None
        st.fast = toggle_value(chosen.get(FAST)) is True
        st.ultracode = toggle_value(chosen.get(ULTRACODE)) is True
        return st

    def on_initialize(self, body: dict[str, Any], control: Control, declared: tuple[ModeInfo, ...]) -> list[BaseEvent]:
        """The CLI's initialize answer: its models, Fast mode state and mode."""
        models = [m for m in as_list(body.get("models")) if isinstance(m, dict) and isinstance(m.get("value"), str)]
        if not models:  # an older CLI that lists nothing: the adapter's declared table stays
            return []
        self.models, self.known = models, True
        if "fast_mode_state" in body:
            self.fast = body.get("fast_mode_state") != "off"  # "cooldown" is still on (claude-agent-acp)
        mode = body.get("current_permission_mode")
        if isinstance(mode, str) and mode and not self.mode_chosen:
            self.mode = mode
        return [self.options_event(declared)]

    def on_answer(self, request_id: str) -> list[BaseEvent]:
        """The CLI took one of our settings requests: what the editor sees may have changed (a model's options)."""
        return [self.options_event()] if self.pending.pop(request_id, None) is not None else []

    def on_report(self, line: dict[str, Any]) -> list[BaseEvent]:
        """Fast mode as the CLI reports it on ``system/init`` and each ``result`` (``fast_mode_state``): it may turn
        it off itself (its rate limit's cooldown stays on). Only while the model has Fast mode: on another model the
        state says nothing of the person's choice, which comes back with a model that has it (claude-agent-acp)."""
        state = line.get("fast_mode_state")
        if line.get("type") not in ("system", "result") or not isinstance(state, str) or not self.known:
            return []
        if self.model_info().get("supportsFastMode") is not True or (state != "off") == self.fast:
            return []
        self.fast = state != "off"
        return [self.options_event()]

    def owns(self, request_id: str) -> bool:
        return request_id in self.pending

    # ── the editor's changes ───────────────────────────────────────────────────────────────────────────────────
    def set_option(self, option_id: str, value: Any, control: Control) -> bool:
        """``effort``, ``fast`` or ``ultracode`` to the running CLI (``apply_flag_settings``); False for anything
        else, or a value the option does not offer."""
        if option_id == EFFORT:
            levels = self.effort_levels()
            if not isinstance(value, str) or (value != DEFAULT_EFFORT and value not in levels):
                return False
            self.effort = None if value == DEFAULT_EFFORT else value
            self._apply_flags(control, {"effortLevel": self.effort})
        elif option_id in (FAST, ULTRACODE):
            enabled = toggle_value(value)
            if enabled is None:
                return False
            if option_id == FAST:
                self.fast = enabled
                self._apply_flags(control, {"fastMode": enabled})
            else:
                self.ultracode = enabled
                self._apply_flags(control, {"ultracode": enabled})
        else:
            return False
        return True

    def set_model(self, model: str, control: Control) -> None:
        """``set_model``, then the options of the new model: a pinned effort it lacks is cleared in the CLI too."""
        self.model = model
        self.pending[control({"subtype": "set_model", "model": model})] = "set_model"
        if self.effort is not None and self.effort not in self.effort_levels():
            self.effort = None
            self._apply_flags(control, {"effortLevel": None})

    def _apply_flags(self, control: Control, settings: dict[str, Any]) -> None:
        # Since CLI 2.1.284 an effort change without an ``ultracode`` key turns ultracode off (claude-agent-acp's
        # effortFlagSettings): send it along while ultracode is on.
        if "effortLevel" in settings and self.ultracode:
            settings = {**settings, "ultracode": True}
        self.pending[control({"subtype": "apply_flag_settings", "settings": settings})] = "apply_flag_settings"

    # ── what the editor sees ───────────────────────────────────────────────────────────────────────────────────
    def model_info(self) -> dict[str, Any]:
        return next((m for m in self.models if m.get("value") == self.model), {})

    def effort_levels(self) -> list[str]:
        info = self.model_info()
        levels = as_list(info.get("supportedEffortLevels")) if info.get("supportsEffort") else []
        return [level for level in levels if isinstance(level, str)]

    def modes(self, declared: tuple[ModeInfo, ...]) -> list[ModeInfo]:
        """The adapter's modes, with ``auto`` where the CLI's models support it (before bypass, as Claude lists)."""
        if not any(m.get("supportsAutoMode") is True for m in self.models):
            return list(declared)
        at = next((i for i, m in enumerate(declared) if m.id == "bypassPermissions"), len(declared))
        return [*declared[:at], AUTO_MODE, *declared[at:]]

    def config_options(self) -> list[dict[str, Any]]:
        """``effort``, ``fast`` and ``ultracode`` for the current model, in claude-agent-acp's shapes."""
        options: list[dict[str, Any]] = []
        levels = self.effort_levels()
        if levels:
            choices = [{"value": DEFAULT_EFFORT, "name": "Default"}]
            choices += [{"value": level, "name": _level_name(level)} for level in levels]
            options.append(
                {
                    "id": EFFORT,
                    "name": "Effort",
                    "description": "Available effort levels for this model",
                    "category": "thought_level",
                    "type": "select",
                    "currentValue": self.effort if self.effort in levels else DEFAULT_EFFORT,
                    "options": choices,
                }
            )
        info = self.model_info()
        if info.get("supportsFastMode") is True:
            text = "Faster responses on supported models"
            options.append(toggle_option(FAST, "Fast mode", text, "model_config", self.fast, self.boolean))
        # ultracode runs on the models with xhigh effort (claude-agent-acp's modelSupportsUltracode)
        if "xhigh" in levels:
            text = "Dynamic workflows on every task, at any effort level"
            options.append(toggle_option(ULTRACODE, "Ultracode", text, "model_config", self.ultracode, self.boolean))
        return options

    def options_event(self, declared: tuple[ModeInfo, ...] | None = None) -> BaseEvent:
        """What the editor sees now: the options and current model; with ``declared`` (the adapter's modes, on the
        CLI's first answer) also the CLI's models, the modes it allows and its current mode. Later events never
        carry a mode: the editor's own mode changes go through the adapter's ``set_mode``, not through here."""
        fields: dict[str, Any] = {"config_options": self.config_options(), "current_model": self.model}
        if declared is not None:
            fields["models"] = [
                ev.SessionModelOption(
                    id=str(m["value"]),
                    name=str(m.get("displayName") or m["value"]),
                    description=str(m.get("description") or ""),
                )
                for m in self.models
            ]
            modes = self.modes(declared)
            fields["modes"] = [ev.SessionModeOption(id=m.id, name=m.name, description=m.description) for m in modes]
            if self.mode:
                fields["current_mode"] = self.mode
        return ev.SessionOptionsEvent(**fields)


def _level_name(level: str) -> str:
    """``xhigh`` → ``Xhigh``, ``extra_high`` → ``Extra High`` (claude-agent-acp's effortLevelName)."""
    return " ".join(part[:1].upper() + part[1:] for part in level.replace("-", "_").split("_"))


def spawn_args(options: RunOptions) -> list[str]:
    """The editor's effort, Fast mode and ultracode choices as flags of a new Claude process (``--effort``,
    ``--settings`` JSON: 2.1.332 verified), so a restarted process keeps what the running one had."""
    chosen = options.agent_options
    args: list[str] = []
    effort = chosen.get(EFFORT)
    if isinstance(effort, str) and effort and effort != DEFAULT_EFFORT:
        args += ["--effort", effort]
    flags = {key: toggle_value(chosen.get(option)) for key, option in (("fastMode", FAST), ("ultracode", ULTRACODE))}
    flags = {key: value for key, value in flags.items() if value is not None}
    if flags:
        args += ["--settings", json.dumps(flags, separators=(",", ":"))]
    return args

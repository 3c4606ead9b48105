"""A session's modes, models and other settings, as the editor sees them: one place that knows where they come from.

Agents driven through their native formats (claude, codex) have fixed modes and models declared by their adapter.
Agents that speak ACP themselves report theirs at session time, later than the bridge answers ``session/new``
(which never waits for an agent), and may change them at any moment (a mode switch, a new option). So the editor
gets what is known when the session opens, then ``config_option_update`` / ``current_mode_update`` whenever the
agent reports more: the answer stays fast. What an agent reported last time is remembered per agent
(``<state dir>/agents/<name>.json``, private to the user), so the next session opens with the agent's real modes
and models at once; anything that changed since is corrected by the updates. Until an agent has ever reported its
modes, a mode the editor picks is taken on trust and applied when the agent's session opens.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_mux.server.wire import settings_shapes as shapes
from acp_mux.server.records.private_files import write_atomic

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from acp_mux.adapters.base import AgentAdapter, ModeInfo
    from acp_mux.core.events.union import ModeChangeEvent, SessionOptionsEvent


@dataclass
class SessionSettings:
    modes: list[ModeInfo]
    models: list[tuple[str, str]]  # (id, name)
    current_mode: str | None
    current_model: str | None
    extra_options: list[dict[str, Any]] = field(default_factory=list)  # the agent's own settings, passed through
    from_agent: bool = False  # the agent has reported its own (vs. the adapter's declared defaults)
    # The person's choices kept in the session record, not yet seen in this run's agent: each is given to the agent
    # once, when it first reports that option (:meth:`to_restore`)
    restoring: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def remembered(
        cls, adapter: AgentAdapter, cache_dir: Path, mode: str | None, model: str | None
    ) -> "SessionSettings":
        """The declared settings, or what this agent reported last time when it reports its own."""
        saved = None if adapter.modes or adapter.models else shapes.read_saved(str(cache_dir), adapter.name)
        return cls._starting(adapter, saved, mode, model)

    @classmethod
    def _starting(cls, adapter: AgentAdapter, saved: Any, mode: str | None, model: str | None) -> "SessionSettings":
        """Through :func:`~acp_mux.server.wire.settings_shapes.starting_settings`, which the launcher also uses to
        answer ``session/new`` early; the adapter's own :class:`ModeInfo` objects are kept (they say read-only)."""
        from acp_mux.adapters.base import ModeInfo

        start = shapes.starting_settings(
            mode_dicts(adapter.modes), list(adapter.models), adapter.default_mode, saved, mode, model
        )
        declared = {m.id: m for m in adapter.modes}
        modes = [
            declared.get(m["id"]) or ModeInfo(id=m["id"], name=m["name"], description=m["description"])
            for m in start["modes"]
        ]
        return cls(modes, start["models"], start["current_mode"], start["current_model"])

    def remember(self, agent: str, cache_dir: Path) -> None:
        """Keep what the agent reported for the next session's first answer (best effort, user-private)."""
        if not self.from_agent:
            return
        data = {
            "modes": mode_dicts(self.modes),
            "models": [list(m) for m in self.models],
            "current_mode": self.current_mode,
            "current_model": self.current_model,
        }
        try:
            cache_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            # a fresh temp name (mkstemp) renamed over it: a FIFO or link planted at a fixed temp name is never opened
            write_atomic(cache_dir / f"{agent}.json", json.dumps(data).encode())
        except OSError as exc:
            log.debug("could not remember %s's settings: %s", agent, exc)

    # ── what the agent reported ────────────────────────────────────────────────────────────────────────────────
    def apply(self, event: SessionOptionsEvent | ModeChangeEvent) -> bool:
        """Take a ``session_options`` or ``mode_change`` event; True when what the editor sees changed."""
        from acp_mux.adapters.base import ModeInfo

        before = self.config_options()
        if event.type == "mode_change":
            self.current_mode = event.mode_id
        else:
            if event.modes is not None:  # a mode the adapter declared read-only stays so (claude's plan)
                known = {m.id: m.read_only for m in self.modes}
                self.modes = [
                    ModeInfo(id=m.id, name=m.name, description=m.description, read_only=known.get(m.id, False))
                    for m in event.modes
                ]
                self.from_agent = True
            if event.current_mode is not None:
                self.current_mode = event.current_mode
            if event.models is not None:
                self.models = [(m.id, m.name or m.id) for m in event.models]
                self.from_agent = True
            if event.current_model is not None:
                self.current_model = event.current_model
            if event.config_options is not None:
                self.extra_options = list(event.config_options)
        return self.config_options() != before

    def chosen(self, option_id: str, value: Any) -> None:
        """The agent took the editor's value for one of its own options: the answer to ``session/set_config_option``
        shows it at once (the agent's own report, when it sends one, follows and wins)."""
        self.extra_options = [
            {**o, "currentValue": value} if o.get("id") == option_id else o for o in self.extra_options
        ]

    # ── the person's choices, kept in the session record ───────────────────────────────────────────────────────
    def reopened(self, chosen: list[dict[str, Any]]) -> None:
        """A session reopened with the options the person chose (the record's, already checked): shown as they were
        until the agent reports its own, given to a process started now (:meth:`agent_values`), and restored in the
        agent that does not start with them (:meth:`to_restore`)."""
        known = {o.get("id") for o in self.extra_options}
        self.extra_options = [*self.extra_options, *(o for o in chosen if o["id"] not in known)]
        self.restoring = {o["id"]: o["currentValue"] for o in chosen}

    def to_restore(self) -> dict[str, Any]:
        """After an agent report: the kept choices the agent now offers but does not have (to be set in it), each
        settled once; a choice the option no longer offers is dropped, one the agent has not reported stays."""
        due: dict[str, Any] = {}
        for option_id in list(self.restoring):
            option = self.agent_option(option_id)
            if option is None:
                continue
            value = self.restoring.pop(option_id)
            if option.get("currentValue") != value and self.offers(option, value):
                due[option_id] = value
        return due

    def kept(self, chosen: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The record's choices brought up to date with what the session shows: a chosen option the agent reports
        takes its current shape and value (the agent's own change counts: a model without that level), one it does
        not report now (hidden on this model) or one still being restored is kept as it was."""
        out = []
        for stored in chosen:
            option = self.agent_option(stored["id"])
            out.append(stored if option is None or stored["id"] in self.restoring else option)
        return out

    def chosen_option(self, chosen: list[dict[str, Any]], option_id: str) -> list[dict[str, Any]]:
        """The record's choices with ``option_id`` as the session shows it now (just set by the person)."""
        self.restoring.pop(option_id, None)  # the person's newer choice wins over the one being restored
        option = self.agent_option(option_id)
        rest = [o for o in chosen if o["id"] != option_id]
        return rest + [option] if option is not None else rest

    # ── what the editor may ask for ────────────────────────────────────────────────────────────────────────────
    def mode_info(self) -> ModeInfo | None:
        return next((m for m in self.modes if m.id == self.current_mode), self.modes[0] if self.modes else None)

    def has_mode(self, mode: Any) -> bool:
        if not self.modes and not self.from_agent:  # the agent has not said yet: it will be asked when it starts
            return isinstance(mode, str) and bool(mode)
        return any(m.id == mode for m in self.modes)

    def has_model(self, model: Any) -> bool:
        return not self.models or any(m == model for m, _ in self.models)

    def agent_option(self, option_id: Any) -> dict[str, Any] | None:
        return next((o for o in self.extra_options if o.get("id") == option_id), None)

    def agent_values(self) -> dict[str, Any]:
        """The agent's own settings as shown now (id → current value): what a process started later is given."""
        return {str(o["id"]): o.get("currentValue") for o in self.extra_options if "id" in o}

    @staticmethod
    def offers(option: dict[str, Any], value: Any) -> bool:
        """Whether ``value`` is one the option takes: a boolean for a boolean option, else one of its choices
        (grouped or flat); an option of a type this version does not know takes anything (its agent decides)."""
        if option.get("type") == "boolean":
            return isinstance(value, bool)
        if option.get("type") != "select":
            return True
        choices = [o for o in option.get("options") or () if isinstance(o, dict)]
        grouped = [c for o in choices if "group" in o for c in o.get("options") or () if isinstance(c, dict)]
        return any(c.get("value") == value for c in choices + grouped)

    # ── the ACP shapes ─────────────────────────────────────────────────────────────────────────────────────────
    def modes_state(self) -> dict[str, Any] | None:
        return shapes.modes_state(mode_dicts(self.modes), self.current_mode)

    def config_options(self) -> list[dict[str, Any]]:
        return shapes.config_options(
            mode_dicts(self.modes), self.current_mode, self.models, self.current_model, self.extra_options
        )


def mode_dicts(modes: Any) -> list[dict[str, str]]:
    return [{"id": m.id, "name": m.name, "description": m.description} for m in modes]

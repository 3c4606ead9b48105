"""A session's modes, models and other settings, as the editor sees them: one place that knows where they come from.

Agents driven through their native formats (claude, codex) have fixed modes and models declared by their adapter.
Agents that speak ACP themselves report theirs at session time, later than the bridge answers ``session/new``
(which never waits for an agent), and may change them at any moment (a mode switch, a new option). So the editor
gets what is known when the session opens, then ``config_option_update`` / ``current_mode_update`` whenever the
agent reports more: the answer stays fast and never claims a mode the agent does not have.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acp_mux.adapters.base import AgentAdapter, ModeInfo


@dataclass
class SessionSettings:
    modes: list[ModeInfo]
    models: list[tuple[str, str]]  # (id, name)
    current_mode: str | None
    current_model: str | None
    extra_options: list[dict[str, Any]] = field(default_factory=list)  # the agent's own settings, passed through
    from_agent: bool = False  # the agent has reported its own (vs. the adapter's declared defaults)

    @classmethod
    def declared(cls, adapter: AgentAdapter, mode: str | None, model: str | None) -> "SessionSettings":
        modes = list(adapter.modes)
        current_mode = mode if any(m.id == mode for m in modes) else adapter.default_mode or (modes[0].id if modes else None)
        models = [(m, m) for m in adapter.models]
        current_model = model or (models[0][0] if models else None)
        return cls(modes, models, current_mode, current_model)

    # ── what the agent reported ────────────────────────────────────────────────────────────────────────────────
    def apply(self, event: Any) -> bool:
        """Take a ``session_options`` or ``mode_change`` event; True when what the editor sees changed."""
        from acp_mux.adapters.base import ModeInfo

        before = self.config_options()
        if event.type == "mode_change":
            self.current_mode = event.mode_id
        else:
            if event.modes is not None:
                self.modes = [ModeInfo(id=m.id, name=m.name, description=m.description) for m in event.modes]
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

    # ── what the editor may ask for ────────────────────────────────────────────────────────────────────────────
    def mode_info(self) -> ModeInfo | None:
        return next((m for m in self.modes if m.id == self.current_mode), self.modes[0] if self.modes else None)

    def has_mode(self, mode: Any) -> bool:
        return any(m.id == mode for m in self.modes)

    def has_model(self, model: Any) -> bool:
        return not self.models or any(m == model for m, _ in self.models)

    def agent_option(self, option_id: Any) -> dict[str, Any] | None:
        return next((o for o in self.extra_options if o.get("id") == option_id), None)

    # ── the ACP shapes ─────────────────────────────────────────────────────────────────────────────────────────
    def modes_state(self) -> dict[str, Any] | None:
        if not self.modes:
            return None
        available = [{"id": m.id, "name": m.name, "description": m.description} for m in self.modes]
        return {"currentModeId": self.mode_info().id if self.mode_info() else None, "availableModes": available}

    def config_options(self) -> list[dict[str, Any]]:
        options: list[dict[str, Any]] = []
        current = self.mode_info()
        if current is not None:
            options.append(
                {
                    "id": "mode",
                    "name": "Mode",
                    "category": "mode",
                    "type": "select",
                    "currentValue": current.id,
                    "options": [{"value": m.id, "name": m.name, "description": m.description} for m in self.modes],
                }
            )
        if self.models:
            options.append(
                {
                    "id": "model",
                    "name": "Model",
                    "category": "model",
                    "type": "select",
                    "currentValue": self.current_model or self.models[0][0],
                    "options": [{"value": m, "name": name} for m, name in self.models],
                }
            )
        return options + [o for o in self.extra_options if o.get("id") not in ("mode", "model")]

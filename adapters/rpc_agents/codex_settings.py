"""codex's own session controls through ``codex app-server``: its model list, reasoning effort, fast mode and
collaboration (plan) mode, as the editor sees them and as codex takes them.

Where the values come from: ``model/list`` (each model with its reasoning efforts, default effort and whether it
has the ``fast`` speed tier) and codex's answer to ``thread/start|resume|fork`` (the thread's model, effort and
service tier). Both arrive at session start; each answer re-emits one :class:`SessionOptionsEvent`, so the adapter's
fixed model table is only what the editor sees before codex has answered.

How a choice reaches codex: ``thread/settings/update`` (experimental, so ``initialize`` opts into
``experimentalApi``) with the model, ``effort``, ``serviceTier`` (``"fast"``, which codex sends the model as
``service_tier: priority``; null clears it) and ``collaborationMode`` (``{mode, settings:{model, reasoning_effort,
developer_instructions: null}}``, null instructions = codex's built-in ones for that mode). codex applies them
from the next turn on; its answer is when the editor's options are re-sent. A choice made before the thread exists
is sent once it does. The ids, names and categories are codex-acp 2.6's (``reasoning_effort`` /
``thought_level``, ``fast-mode`` / ``model_config``, ``collaboration_mode``), so an editor's settings carry over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acp_mux.adapters.base import PerRun
from acp_mux.adapters.config_toggles import toggle_option, toggle_value
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.text.shapes import as_dict, as_list, as_str

EFFORT_ID = "reasoning_effort"
FAST_ID = "fast-mode"
COLLABORATION_ID = "collaboration_mode"
PLAN, DEFAULT = "plan", "default"
_FAST_DESCRIPTION = "1.5x speed, increased usage"


@dataclass
class CodexControls(PerRun):
    """What the run knows of codex's settings and what the person chose (``CodexControls.of(ctx)``)."""

    KEY = "codex-controls"

    models: list[dict[str, Any]] = field(default_factory=list)  # model/list entries (hidden ones left out)
    model: str | None = None  # the thread's model
    effort: str | None = None  # None: the model's default effort
    fast: bool = False
    collaboration: str = DEFAULT
    boolean_options: bool = False  # the editor takes ``type: "boolean"`` config options
    listed: bool = False  # codex answered model/list (until then the editor keeps the adapter's fixed list)
    sent: int = 0  # thread/settings/update requests so far (their ids)
    unsent: bool = False  # chosen before the thread existed: sent once it does
    roots: list[str] = field(default_factory=list)  # extra writable roots codex reported (thread's sandbox)

    # ── what codex said ────────────────────────────────────────────────────────────────────────────────────────
    def take_models(self, result: Any) -> None:
        self.models = [m for m in as_list(as_dict(result).get("data")) if isinstance(m, dict) and not m.get("hidden")]
        self.models = [m for m in self.models if as_str(m.get("id"))]
        self.listed = True

    def take_thread(self, result: Any) -> None:
        """codex's answer to thread/start|resume|fork; values the person already chose are kept (sent next)."""
        answer = as_dict(result)
        sandbox = as_dict(answer.get("sandbox"))
        roots = sandbox.get("writableRoots")
        self.roots = [r for r in roots if isinstance(r, str)] if isinstance(roots, list) else []
        if self.unsent:  # what the person chose is sent next; only what they could not have chosen is learnt
            self.model = self.model or as_str(answer.get("model")) or None
            return
        self.model = as_str(answer.get("model")) or self.model
        self.effort = as_str(answer.get("reasoningEffort")) or None
        self.fast = as_str(answer.get("serviceTier")) in ("fast", "priority")

    # ── what the person chooses ────────────────────────────────────────────────────────────────────────────────
    def choose(self, option_id: str, value: Any) -> bool:
        """Take the editor's choice; False when it is no choice codex offers now."""
        if option_id == EFFORT_ID:
            if value not in self.efforts():
                return False
            self.effort = str(value)
        elif option_id == FAST_ID:
            on = toggle_value(value)
            if on is None or not self.supports_fast():
                return False
            self.fast = on
        elif option_id == COLLABORATION_ID:
            if value not in (PLAN, DEFAULT):
                return False
            self.collaboration = str(value)
        else:
            return False
        return True

    def choose_model(self, model: str) -> None:
        self.model = model
        if self.effort is not None and self.effort not in self.efforts():
            self.effort = None  # the new model does not offer it: its own default
        if not self.supports_fast():
            self.fast = False

    def settings_update(self, thread: str) -> dict[str, Any]:
        """``thread/settings/update`` params carrying every control (codex keeps them for the next turns).
        collaborationMode takes precedence over model and effort in codex, so it repeats them."""
        params: dict[str, Any] = {
            "threadId": thread,
            "effort": self.effort,
            "serviceTier": "fast" if self.fast and self.supports_fast() else None,
        }
        if self.model:
            params["model"] = self.model
            params["collaborationMode"] = {
                "mode": self.collaboration,
                "settings": {"model": self.model, "reasoning_effort": self.effort, "developer_instructions": None},
            }
        return params

    # ── what the editor sees ───────────────────────────────────────────────────────────────────────────────────
    def current(self) -> dict[str, Any] | None:
        return next((m for m in self.models if m.get("id") == self.model or m.get("model") == self.model), None)

    def efforts(self) -> list[str]:
        """The current model's reasoning efforts (before the thread says which model runs: any listed model's)."""
        current = self.current()
        if current is None and self.model is None:
            return list(dict.fromkeys(e for m in self.models for e in _efforts(m)))
        return _efforts(current)

    def current_effort(self) -> str | None:
        return self.effort or as_str(as_dict(self.current()).get("defaultReasoningEffort")) or None

    def supports_fast(self) -> bool:
        return "fast" in as_list(as_dict(self.current()).get("additionalSpeedTiers"))

    def options_event(self) -> Any:
        """One ``session_options`` event with codex's models and its other controls (None before model/list was
        answered: the thread's answer alone would offer controls without the model facts they depend on)."""
        if not self.listed:
            return None
        models = [
            ev.SessionModelOption(
                id=as_str(m.get("id")),
                name=as_str(m.get("displayName")) or as_str(m.get("id")),
                description=as_str(m.get("description")),
            )
            for m in self.models
        ]
        if models and self.model and self.current() is None:  # a model codex runs but does not list: still shown
            models.insert(0, ev.SessionModelOption(id=self.model, name=self.model))
        return ev.SessionOptionsEvent(
            models=models or None, current_model=self.model, config_options=self.config_options()
        )

    def config_options(self) -> list[dict[str, Any]]:
        options = [collaboration_option(self.collaboration)]
        efforts = as_list(as_dict(self.current()).get("supportedReasoningEfforts"))
        effort = self.current_effort()
        if efforts and effort:
            options.append(
                {
                    "id": EFFORT_ID,
                    "name": "Reasoning effort",
                    "description": "How much reasoning effort the model should use",
                    "category": "thought_level",
                    "type": "select",
                    "currentValue": effort,
                    "options": [
                        {
                            "value": as_str(as_dict(e).get("reasoningEffort")),
                            "name": as_str(as_dict(e).get("reasoningEffort")).capitalize(),
                            "description": as_str(as_dict(e).get("description")),
                        }
                        for e in efforts
                    ],
                }
            )
        if self.supports_fast():
            options.append(fast_option(self.fast, self.boolean_options))
        return options


def _efforts(model: dict[str, Any] | None) -> list[str]:
    return [as_str(as_dict(e).get("reasoningEffort")) for e in as_list(as_dict(model).get("supportedReasoningEfforts"))]


def collaboration_option(current: str) -> dict[str, Any]:
    return {
        "id": COLLABORATION_ID,
        "name": "Collaboration mode",
        "description": "How Codex collaborates for subsequent turns",
        "category": "collaboration_mode",
        "type": "select",
        "currentValue": current,
        "options": [
            {"value": DEFAULT, "name": "Default"},
            {"value": PLAN, "name": "Plan", "description": "Plan before making changes"},
        ],
    }


def fast_option(on: bool, boolean: bool) -> dict[str, Any]:
    """codex's Fast mode as codex-acp offers it (a boolean for an editor that takes them, else Off/On)."""
    described = (_FAST_DESCRIPTION, "Default speed, normal usage")
    return toggle_option(
        FAST_ID, "Fast mode", _FAST_DESCRIPTION, "model_config", on, boolean, off_first=True, described=described
    )

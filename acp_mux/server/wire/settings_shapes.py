"""A new session's modes and models, and their ACP shapes, from plain data: one piece for the launcher and the bridge.

The launcher answers ``session/new`` before the bridge is imported (:mod:`acp_mux.launcher.early_session`), from the
agent facts snapshot; the bridge answers every later question from :class:`~acp_mux.server.sessions.session_settings.
SessionSettings`. Both build what the editor sees with these functions, on plain lists and dicts, so the two
answers cannot differ. Only the standard library's ``json`` is used: anything heavier would be paid by the launcher
before the editor hears anything.

A mode is ``{"id", "name", "description"}``; a model is ``(id, name)``.
"""

from __future__ import annotations

import json
import os

from acp_mux.core.files.state_files import read_state_file

TYPE_CHECKING = False  # typing itself is one of the imports the launcher avoids
if TYPE_CHECKING:
    from typing import Any

    Mode = dict[str, str]


def starting_settings(
    declared_modes: list[Mode],
    declared_models: list[str],
    default_mode: str | None,
    saved: Any,
    mode: str | None,
    model: str | None,
) -> dict[str, Any]:
    """Modes, models and the current ones for a session opening now.

    ``declared_*``: what the adapter fixes (claude, codex); when it fixes nothing, the agent reports its own and
    ``saved`` (what it reported last time, :func:`read_saved`) stands in until it does. ``mode`` / ``model``: asked
    for by the session record or the command line; with saved settings, a ``mode`` they do not offer gives way to
    the saved current one, except when they offer no modes at all (the mode is then taken on trust, and applied
    when the agent's session opens).
    """
    modes = [dict(m) for m in declared_modes]
    models = [(m, m) for m in declared_models]
    current_mode = mode if any(m["id"] == mode for m in modes) else default_mode or (modes[0]["id"] if modes else None)
    current_model = model or (models[0][0] if models else None)
    settings: dict[str, Any] = {
        "modes": modes,
        "models": models,
        "current_mode": current_mode,
        "current_model": current_model,
    }
    if declared_modes or declared_models or not isinstance(saved, dict):
        return settings
    modes = [
        {"id": m["id"], "name": str(m.get("name") or m["id"]), "description": str(m.get("description") or "")}
        for m in saved.get("modes") or ()
        if isinstance(m, dict) and isinstance(m.get("id"), str)
    ]
    models = [
        (m[0], m[1])
        for m in saved.get("models") or ()
        if isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)
    ]
    saved_mode = saved.get("current_mode")
    saved_model = saved.get("current_model")
    trusted = isinstance(mode, str) and bool(mode) and (not modes or any(m["id"] == mode for m in modes))
    settings.update(
        modes=modes,
        models=models,
        current_mode=mode if trusted else saved_mode if isinstance(saved_mode, str) else None,
        current_model=model or (saved_model if isinstance(saved_model, str) else None),
    )
    return settings


def read_saved(cache_dir: str, agent: str) -> Any:
    """What ``agent`` reported last time (``<state>/agents/<agent>.json``), or None."""
    try:  # a plain file of ours only (a FIFO there must not hang the launcher)
        return json.loads(read_state_file(os.path.join(cache_dir, f"{agent}.json")))
    except (OSError, ValueError):
        return None


def current_mode_of(modes: list[Mode], current: str | None) -> Mode | None:
    """The current mode, or the first when the current one is not offered."""
    return next((m for m in modes if m["id"] == current), modes[0] if modes else None)


def modes_state(modes: list[Mode], current: str | None) -> dict[str, Any] | None:
    """ACP ``modes`` (``SessionModeState``), None without modes."""
    chosen = current_mode_of(modes, current)
    if chosen is None:
        return None
    available = [{"id": m["id"], "name": m["name"], "description": m["description"]} for m in modes]
    return {"currentModeId": chosen["id"], "availableModes": available}


def config_options(
    modes: list[Mode],
    current_mode: str | None,
    models: list[tuple[str, str]],
    current_model: str | None,
    extra: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """ACP ``configOptions``: mode, model, then the agent's own settings."""
    options: list[dict[str, Any]] = []
    chosen = current_mode_of(modes, current_mode)
    if chosen is not None:
        options.append(
            {
                "id": "mode",
                "name": "Mode",
                "category": "mode",
                "type": "select",
                "currentValue": chosen["id"],
                "options": [{"value": m["id"], "name": m["name"], "description": m["description"]} for m in modes],
            }
        )
    if models:
        options.append(
            {
                "id": "model",
                "name": "Model",
                "category": "model",
                "type": "select",
                "currentValue": current_model or models[0][0],
                "options": [{"value": m, "name": name} for m, name in models],
            }
        )
    return options + [o for o in extra if o.get("id") not in ("mode", "model")]


def session_state(session_id: str, settings: dict[str, Any], extra: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer to ``session/new`` (and load/resume): the id, modes when there are any, config options when any."""
    state: dict[str, Any] = {"sessionId": session_id}
    modes = modes_state(settings["modes"], settings["current_mode"])
    if modes:
        state["modes"] = modes
    options = config_options(
        settings["modes"], settings["current_mode"], settings["models"], settings["current_model"], extra
    )
    if options:
        state["configOptions"] = options
    return state


def stored_options(value: Any) -> list[dict[str, Any]]:
    """The agent's own config options a session record kept (the person's choices, ACP ``SessionConfigOption``
    shape), rebuilt from what ACP allows: a record is a file, so anything else in it — an entry that is no option, a
    select whose current value is not one of its choices, a boolean that is not a bool, acp-mux's own ids (mode,
    model, agent, failover) — is dropped, never raised on. At most :data:`MAX_STORED_OPTIONS`, each id once."""
    kept: dict[str, dict[str, Any]] = {}
    for option in value if isinstance(value, list) else ():
        rebuilt = _stored_option(option)
        if rebuilt is not None and rebuilt["id"] not in kept and len(kept) < MAX_STORED_OPTIONS:
            kept[rebuilt["id"]] = rebuilt
    return list(kept.values())


MAX_STORED_OPTIONS = 32
_BRIDGE_OPTIONS = ("mode", "model", "agent", "failover")  # kept by the record's own fields, or the bridge's


def _stored_option(option: Any) -> dict[str, Any] | None:
    if not isinstance(option, dict):
        return None
    ident, name, kind, current = option.get("id"), option.get("name"), option.get("type"), option.get("currentValue")
    if not (isinstance(ident, str) and ident and ident not in _BRIDGE_OPTIONS and isinstance(name, str)):
        return None
    rebuilt: dict[str, Any] = {"id": ident, "name": name}
    for key in ("description", "category"):
        if isinstance(option.get(key), str):
            rebuilt[key] = option[key]
    if kind == "boolean":
        return {**rebuilt, "type": "boolean", "currentValue": current} if isinstance(current, bool) else None
    if kind != "select" or not isinstance(current, str) or not isinstance(option.get("options"), list):
        return None
    choices: list[dict[str, Any]] = []
    for entry in option["options"]:
        if isinstance(entry, dict) and "group" in entry:
            group, label = entry.get("group"), entry.get("name")
            inner = [c for c in map(_stored_choice, entry.get("options") or ()) if c is not None]
            if isinstance(group, str) and isinstance(label, str) and isinstance(entry.get("options"), list):
                choices.append({"group": group, "name": label, "options": inner})
        elif (choice := _stored_choice(entry)) is not None:
            choices.append(choice)
    grouped = any("group" in c for c in choices)
    if grouped and not all("group" in c for c in choices):  # ACP: either flat choices or groups, never both
        return None
    values = [v["value"] for c in choices for v in (c["options"] if "group" in c else [c])]
    return {**rebuilt, "type": "select", "currentValue": current, "options": choices} if current in values else None


def _stored_choice(choice: Any) -> dict[str, Any] | None:
    if not (isinstance(choice, dict) and isinstance(choice.get("value"), str) and isinstance(choice.get("name"), str)):
        return None
    kept = {"value": choice["value"], "name": choice["name"]}
    return {**kept, "description": choice["description"]} if isinstance(choice.get("description"), str) else kept

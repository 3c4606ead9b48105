"""An agent's on/off setting as the editor can show it: a ``boolean`` config option for an editor that said it takes
them, else a select of ``on``/``off`` (agent-neutral; the shapes claude-agent-acp uses for its Fast mode and
ultracode toggles).

ACP (v1.21) lets an agent send ``type: "boolean"`` options only to a client that declared
``clientCapabilities.session.configOptions.boolean``; any other client would not know how to show or set one. So an
adapter builds its toggles with :func:`toggle_option` and reads the editor's answer back with :func:`toggle_value`,
which takes either spelling.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["ON", "OFF", "takes_boolean_options", "toggle_option", "toggle_value"]

ON = "on"
OFF = "off"


def takes_boolean_options(client_capabilities: Mapping[str, object] | None) -> bool:
    """Whether the editor declared ``session.configOptions.boolean`` (present and not null) in its ``initialize``."""
    session = (client_capabilities or {}).get("session")
    options = session.get("configOptions") if isinstance(session, dict) else None
    return isinstance(options, dict) and options.get("boolean") is not None


def toggle_option(
    option_id: str,
    name: str,
    description: str,
    category: str,
    enabled: bool,
    boolean: bool,
    *,
    off_first: bool = False,
    described: tuple[str, str] | None = None,
) -> dict[str, object]:
    """One on/off setting as an ACP ``SessionConfigOption``: a boolean, or the on/off select fallback (``off_first``:
    "Off" listed first; ``described``: the on and off choices' descriptions, as the agent's own adapter words them)."""
    base: dict[str, object] = {"id": option_id, "name": name, "description": description, "category": category}
    if boolean:
        return {**base, "type": "boolean", "currentValue": enabled}
    on: dict[str, str] = {"value": ON, "name": "On"}
    off: dict[str, str] = {"value": OFF, "name": "Off"}
    if described is not None:
        on["description"], off["description"] = described
    choices = [off, on] if off_first else [on, off]
    return {**base, "type": "select", "currentValue": ON if enabled else OFF, "options": choices}


def toggle_value(value: object) -> bool | None:
    """The editor's answer for a toggle (``true``/``false`` or ``"on"``/``"off"``); None for anything else."""
    if isinstance(value, bool):
        return value
    return True if value == ON else False if value == OFF else None

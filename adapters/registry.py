"""Agent name → adapter. The one place the server and ``doctor`` learn which agents exist.

Adapters are imported on first use, so starting the bridge for one agent never imports the other nine.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_mux.adapters.base import AgentAdapter

AGENT_NAMES: tuple[str, ...] = (
    "claude",
    "codex",
    "gemini",
    "copilot",
    "cursor",
    "opencode",
    "pi",
    "omp",
    "openclaw",
    "hermes",
)

# The bundled scripted agent behind `acp-mux demo` and the bridge's own tests.
DEMO_AGENT = "demo"

_MODULES: dict[str, str] = {
    "claude": "acp_mux.adapters.claude:ClaudeAdapter",
    "codex": "acp_mux.adapters.codex:CodexAdapter",
    DEMO_AGENT: "acp_mux.adapters.scripted:ScriptedAdapter",
}


# Alternative transports, for agents that have more than one way in (``--transport`` / ACP_MUX_<AGENT>_TRANSPORT).
_TRANSPORTS: dict[str, dict[str, str]] = {
    "codex": {"app-server": _MODULES["codex"], "exec": "acp_mux.adapters.codex_exec:CodexExecAdapter"},
}


def transports(name: str) -> tuple[str, ...]:
    """The transports an agent can be run with; the first is the default."""
    return tuple(_TRANSPORTS.get(name, {}))


class UnknownAgent(LookupError):
    def __init__(self, name: str) -> None:
        super().__init__(f"unknown agent {name!r}; choose one of: {', '.join(AGENT_NAMES)}")


class AgentNotAvailable(LookupError):
    """A known agent whose adapter this version does not ship yet."""


def known(name: str) -> bool:
    return name in AGENT_NAMES or name == DEMO_AGENT


def available(name: str) -> bool:
    return name in _MODULES


@cache
def get_adapter(name: str, transport: str | None = None) -> "AgentAdapter":
    """The adapter for ``name``; ``transport`` picks an alternative one (e.g. codex ``exec``, where the installed
    codex has no ``app-server``)."""
    if not known(name):
        raise UnknownAgent(name)
    target = _MODULES.get(name)
    if target is None:
        raise AgentNotAvailable(
            f"acp-mux does not support {name} yet (supported now: {', '.join(n for n in AGENT_NAMES if n in _MODULES)})"
        )
    if transport:
        options = _TRANSPORTS.get(name, {})
        if transport not in options:
            choices = ", ".join(options) or "none besides the default"
            raise AgentNotAvailable(f"{name} has no transport {transport!r} (choose: {choices})")
        target = options[transport]
    module_name, _, class_name = target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)()

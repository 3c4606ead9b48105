"""``acp-mux`` with three more scripted agents (alpha, beta, gamma) to switch between, run as the bridge process.

The bridge is the real one on real stdio; only the agent table gains three rows, each the bundled scripted agent under
its own name, so switching between agents is exercised without any third-party CLI. With
``SWITCH_TEST_SLOW_EXIT_S`` set, each of these agents lingers that long after its stdin closes (as an agent that
saves its session on the way out does), so stopping one takes the bridge's whole polite-close grace and then a
terminate: a slow switch.

Run as ``python tests/server/switching_agents.py --agent auto`` (arguments as for ``acp-mux``).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from types import MappingProxyType

from acp_mux.adapters import registry

NAMES = ("alpha", "beta", "gamma")
AGENT_PROCESS = "acp_mux.adapters.stream_agents.scripted_agent"  # in the command line of every scripted agent process


def install() -> None:
    """Add the three rows to the agent table, before any other module reads it."""
    demo = registry.ENTRIES["demo"]
    rows = dict(registry.ENTRIES)
    for name in NAMES:
        rows[name] = dataclasses.replace(
            demo,
            name=name,
            display_name=f"Scripted {name}",
            transports={"scripted": f"tests.server.switching_agents:{name.capitalize()}"},
        )
    registry.ENTRIES = MappingProxyType(rows)


if __name__ == "__main__":  # the bridge; it imports the agents below from this file as tests.server.switching_agents
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    install()
    from acp_mux.cli.main import main

    raise SystemExit(main(sys.argv[1:]))

from acp_mux.adapters.stream_agents.scripted import ScriptedAdapter  # noqa: E402
from acp_mux.core.run.contract import RunOptions  # noqa: E402
from acp_mux.core.process.spawn import SpawnSpec  # noqa: E402


def through_shell(spec: SpawnSpec, script: str) -> SpawnSpec:
    """``spec`` run by ``/bin/sh -c script``, in which ``"$0" "$@"`` is the agent's own command line."""
    return dataclasses.replace(spec, command="/bin/sh", args=["-c", script, spec.command, *spec.args])


class _Switchable(ScriptedAdapter):
    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        spec = super().build_spawn(options)
        linger = os.environ.get("SWITCH_TEST_SLOW_EXIT_S")
        return through_shell(spec, f'"$0" "$@"; sleep {float(linger)}') if linger else spec


class Alpha(_Switchable):
    name = "alpha"


class Beta(_Switchable):
    name = "beta"


class Gamma(_Switchable):
    name = "gamma"

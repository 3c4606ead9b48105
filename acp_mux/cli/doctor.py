"""``acp-mux doctor``: which agents are installed, where, which version, how they will be run, what to do next."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING, Sequence

from acp_mux.adapters.registry import AGENT_NAMES, UnknownAgent, available, get_adapter, known, transports

if TYPE_CHECKING:
    from acp_mux.adapters.base import AgentAdapter

HEADER = ("agent", "found", "path", "version", "transport", "auth", "next step")


def _version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0][:40] if text else "?"


def _auth(adapter: AgentAdapter) -> str:
    """What will authenticate the agent: a key already in the environment, else how to sign in."""
    present = [var for var in adapter.auth_env if os.environ.get(var)]
    if present:
        return f"{present[0]} set"
    ways = [w for w in (adapter.login_command, " or ".join(adapter.auth_env)) if w]
    return " or ".join(ways) if ways else "none needed"


def _transport(name: str, adapter: AgentAdapter) -> str:
    others = transports(name)[1:]
    return adapter.transport + (f" (also: --transport {', '.join(others)})" if others else "")


def _row(name: str) -> tuple[tuple[str, ...], bool]:
    """One table row and whether the agent can be used right now."""
    if not available(name):
        return (name, "-", "-", "-", "-", "-", "not supported by this acp-mux version yet"), False
    adapter = get_adapter(name)
    path = shutil.which(adapter.resolve_binary())
    if not path:
        step = f"{adapter.install_hint or 'install ' + adapter.package}, or set {adapter.bin_env_var()}=/path/to/{adapter.binary}"
        return (name, "no", "-", "-", _transport(name, adapter), _auth(adapter), step), False
    return (name, "yes", path, _version(path), _transport(name, adapter), _auth(adapter), f"ready: acp-mux --agent {name}"), True


def run_doctor(argv: Sequence[str]) -> int:
    """Print the table; exit 1 only when the agents named on the command line are not all usable."""
    names = list(argv) or list(AGENT_NAMES)
    for name in names:
        if not known(name):
            print(f"acp-mux: {UnknownAgent(name)}", file=sys.stderr)
            return 2
    rows = [HEADER]
    unusable = False
    for name in names:
        row, usable = _row(name)
        rows.append(row)
        unusable |= not usable
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return 1 if (argv and unusable) else 0

"""``acp-mux doctor``: which agents are installed, where, which version, how they will be run, what to do next."""

from __future__ import annotations

import shutil
import subprocess
import sys
from typing import Sequence

from adapters.registry import AGENT_NAMES, AgentNotAvailable, UnknownAgent, available, get_adapter, known


def _version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
        return (out.stdout or out.stderr).strip().splitlines()[0][:40] if (out.stdout or out.stderr).strip() else "?"
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return "?"


def run_doctor(argv: Sequence[str]) -> int:
    names = list(argv) or list(AGENT_NAMES)
    rows = [("agent", "found", "path", "version", "transport", "next step")]
    unusable = False
    for name in names:
        if not known(name):
            print(f"acp-mux: {UnknownAgent(name)}", file=sys.stderr)
            return 2
        if not available(name):
            rows.append((name, "-", "-", "-", "-", "not supported by this acp-mux version yet"))
            unusable = True
            continue
        adapter = get_adapter(name)
        path = shutil.which(adapter.resolve_binary())
        if path:
            rows.append((name, "yes", path, _version(path), adapter.transport, adapter.auth_hint or "ready"))
        else:
            unusable = True
            rows.append((name, "no", "-", "-", adapter.transport, adapter.install_hint or f"install {adapter.package}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return 1 if (argv and unusable) else 0

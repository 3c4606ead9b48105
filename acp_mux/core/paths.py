"""Where acp-mux keeps what it writes for the user (sessions, agents' private state), in one place for every room."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$ACP_MUX_STATE_DIR``, else ``$XDG_STATE_HOME/acp-mux`` (default ``~/.local/state/acp-mux``)."""
    env = os.environ if env is None else env
    explicit = env.get("ACP_MUX_STATE_DIR")
    if explicit:
        return Path(explicit)
    home = env.get("HOME") or os.path.expanduser("~")
    base = env.get("XDG_STATE_HOME") or os.path.join(home, ".local", "state")
    return Path(base) / "acp-mux"

"""Where acp-mux keeps what it writes for the user (sessions, agents' private state), in one place for every room.

Only ``os`` is imported at module level: the launcher reads these paths to answer ``session/new`` before anything
heavier is loaded (:mod:`acp_mux.launcher.early_session`).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Mapping


def state_dir_name(env: Mapping[str, str] | None = None) -> str:
    """``$ACP_MUX_STATE_DIR``, else ``$XDG_STATE_HOME/acp-mux`` (default ``~/.local/state/acp-mux``)."""
    env = os.environ if env is None else env
    explicit = env.get("ACP_MUX_STATE_DIR")
    if explicit:
        return explicit
    home = env.get("HOME") or os.path.expanduser("~")
    base = env.get("XDG_STATE_HOME") or os.path.join(home, ".local", "state")
    return os.path.join(base, "acp-mux")


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """:func:`state_dir_name` as a :class:`~pathlib.Path`."""
    from pathlib import Path

    return Path(state_dir_name(env))

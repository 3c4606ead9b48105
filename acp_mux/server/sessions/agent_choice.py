"""Which agents one editor entry can switch between, and which one a new session starts with.

``acp-mux`` without ``--agent`` (or ``--agent auto``) serves every agent that can run here: supported by this
version and its executable found (what ``doctor`` calls usable). ``ACP_MUX_AGENTS=claude,codex`` narrows and orders
the list. A new session starts with ``ACP_MUX_DEFAULT_AGENT`` if set and usable, else the agent used last (kept
in the state directory), else the first usable one.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_mux.adapters.registry import AGENT_NAMES, ENTRIES, locate_binary
from acp_mux.core.files.state_files import read_state_file

AGENT_OPTION = "agent"


@dataclass(frozen=True)
class AgentChoices:
    names: tuple[str, ...]  # usable agents, in the order shown
    state_dir: Path

    @classmethod
    def discover(
        cls,
        state_dir: Path,
        env: dict[str, str] | None = None,
        runnable: Callable[[Sequence[str]], Sequence[str]] | None = None,
    ) -> "AgentChoices":
        """The usable agents; ``runnable`` (the command line's health check, the one ``doctor`` shows) further
        drops those proven unable to run here."""
        env = dict(os.environ) if env is None else env
        wanted = [n.strip() for n in env.get("ACP_MUX_AGENTS", "").split(",") if n.strip()]
        candidates = wanted or list(AGENT_NAMES)
        usable = [
            name
            for name in candidates
            if name in ENTRIES and ENTRIES[name].supported and locate_binary(ENTRIES[name], None, env)[0]
        ]
        if runnable is not None:
            keep = set(runnable(usable))
            usable = [name for name in usable if name in keep]
        return cls(tuple(usable), state_dir)

    def label(self, name: str) -> str:
        entry = ENTRIES.get(name)
        return entry.display_name if entry else name

    def default(self, env: dict[str, str] | None = None) -> str | None:
        env = dict(os.environ) if env is None else env
        for name in (env.get("ACP_MUX_DEFAULT_AGENT"), self._last_used()):
            if name in self.names:
                return name
        return self.names[0] if self.names else None

    def remember(self, name: str) -> None:
        """The agent a person picked: the next new session starts with it."""
        try:
            self.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = self.state_dir / "last-agent"
            # O_NONBLOCK: a FIFO planted there fails the open instead of waiting for a reader forever; only a
            # regular file of ours is emptied and written (never a device, never another user's file)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
            with os.fdopen(fd, "w") as fh:
                info = os.fstat(fd)
                if stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid():
                    os.ftruncate(fd, 0)
                    fh.write(name)
        except OSError:
            pass  # a preference, not a record: losing it costs one click

    def _last_used(self) -> str | None:
        try:  # a plain file of ours only: a FIFO or device planted there must not hang the bridge
            return read_state_file(self.state_dir / "last-agent", 256).decode("utf-8", "replace").strip() or None
        except OSError:
            return None

    def option(self, current: str) -> dict[str, object]:
        """The ``agent`` select config option, shown next to mode and model."""
        return {
            "id": AGENT_OPTION,
            "name": "Agent",
            "description": "Which coding agent answers the next prompt (the conversation and permissions carry over)",
            "type": "select",
            "currentValue": current,
            "options": [{"value": n, "name": self.label(n)} for n in self.names],
        }

"""One agent started before the bridge's event loop existed, kept for the first spawn, which takes it only when it
was started for exactly that spawn.

Why: an agent such as hermes takes seconds to start, and the person's typing pause begins when the launcher
answers ``session/new`` (:mod:`acp_mux.launcher.early_session`), a few hundred milliseconds before the bridge has
loaded what its run needs to start the agent. The launcher knows the session's folder and the command line then, so
it starts the agent itself (:mod:`acp_mux.launcher.early_agent`) and leaves it here; the session's run, when it
spawns its agent, takes this one instead (:func:`acp_mux.core.process.spawn.spawn`).

The rule that keeps this safe: the first spawn decides. It takes the agent only when its own spawn spec (command,
arguments, full environment, folder, private files) equals the one the agent was started with, so what runs is
exactly what the run would have started; otherwise the early agent is ended before the new one starts (two copies
of one agent never run side by side over the same state). An agent no spawn asked for is ended too
(:func:`discard`), and the supervisor's lifeline ends it if the bridge dies first.
"""

from __future__ import annotations

import logging
import subprocess
import threading
from typing import Protocol

log = logging.getLogger(__name__)


class Started(Protocol):
    """What this slot needs of a started agent (:class:`acp_mux.core.process.spawn.Started`), stated here so the process
    layer, which claims from the slot, is never imported back."""

    @property
    def spec(self) -> object: ...  # compared with the claiming spawn's SpawnSpec
    @property
    def popen(self) -> subprocess.Popen[bytes]: ...
    def end(self) -> None: ...


_lock = threading.Lock()
_kept: Started | None = None


def keep(started: Started) -> None:
    """Leave ``started`` for the first spawn (ending any agent kept before, which no spawn took)."""
    global _kept
    with _lock:
        previous, _kept = _kept, started
    if previous is not None:
        previous.end()


def claim(spec: object) -> Started | None:
    """The kept agent when it was started for exactly ``spec``, once; None otherwise. Either way nothing is kept
    afterwards: an agent started for another spec is ended here, before the caller starts its own."""
    kept = _take()
    if kept is None:
        return None
    if kept.spec == spec:  # one that already ended is the run's to report, as any agent that ends
        return kept
    log.info("the agent the launcher started (pid %d) is not the run's: ended", kept.popen.pid)
    kept.end()
    return None


def discard() -> bool:
    """End the kept agent, if any (no spawn took it); True if there was one."""
    kept = _take()
    if kept is None:
        return False
    kept.end()
    return True


def _take() -> Started | None:
    """The kept agent, no longer kept."""
    global _kept
    with _lock:
        kept, _kept = _kept, None
    return kept

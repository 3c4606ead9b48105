"""Nothing of ours outlives the bridge (spec §6.4).

:data:`TRACKER` remembers every agent process group we started and kills
them all when the bridge exits -- normally (atexit), on SIGTERM/SIGINT, or on
an uncaught exception.  A group stays tracked after its leader exits for as
long as anything (a backgrounded grandchild) still lives in it.

Both this and the stop of one agent (:meth:`acp_mux.core.process.spawn.AgentProcess.terminate`, what a switch, a close,
the end of a run and every other stop come to) end agents the same way: they let go of the agents' lifelines
(:mod:`acp_mux.core.process.supervision`), and each supervisor sweeps its group and whatever left it (``setsid``, daemons).
"""

from __future__ import annotations

import asyncio
import atexit
import signal
import sys
import time
from collections.abc import Callable
from typing import Any, Protocol

from acp_mux.core.process import supervision
from acp_mux.core.process.pgroup import group_alive, killpg


class AgentProcess(Protocol):
    """What the tracker reads of an agent process (:class:`acp_mux.core.process.spawn.AgentProcess`), stated here so the
    tracker, which the process layer loads, never imports it back."""

    @property
    def pid(self) -> int: ...
    @property
    def pgid(self) -> int: ...
    @property
    def exited(self) -> bool: ...


_WATCH_FIRST = 0.1  # s until the first emptiness check of a leaderless group
_WATCH_MAX = 1.0  # poll interval cap; bounds how stale a leaderless entry gets
SUPERVISOR_SWEEP_S = 0.8  # at exit, how long supervisors get to sweep their agents before we SIGKILL the groups


class ProcessTracker:
    """Every agent group that may still have live members, so none outlives us.

    A group is registered at spawn.  When its leader exits, it is forgotten
    only once the group is empty (:meth:`release`); until then it is polled
    while the event loop runs.  Its pgid cannot be reused while any member
    lives, and :meth:`kill_all` signals only groups it has just seen alive,
    so a stranger's group that later reuses the number is never hit.

    Exit-time handlers wait at most ``exit_grace`` s between SIGTERM and SIGKILL.
    """

    def __init__(self) -> None:
        self._procs: dict[int, AgentProcess] = {}
        self._watching: dict[int, AgentProcess] = {}
        self._installed = False
        self.exit_grace = 1.0

    def register(self, proc: AgentProcess) -> None:
        self.install_handlers()
        self._prune()
        self._procs[proc.pid] = proc

    def release(self, proc: AgentProcess) -> None:
        """The leader exited: forget ``proc`` as soon as its group is empty."""
        if self._procs.get(proc.pid) is not proc:
            return
        if not group_alive(proc.pgid):
            del self._procs[proc.pid]
        elif self._watching.get(proc.pid) is not proc:
            self._watch(proc, _WATCH_FIRST)

    def _watch(self, proc: AgentProcess, delay: float) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: _prune/kill_all re-check instead
            return
        self._watching[proc.pid] = proc

        def check() -> None:
            if self._watching.get(proc.pid) is proc:
                del self._watching[proc.pid]
            if self._procs.get(proc.pid) is not proc:
                return
            if not group_alive(proc.pgid):
                del self._procs[proc.pid]
            else:
                self._watch(proc, min(delay * 2, _WATCH_MAX))

        loop.call_later(delay, check)

    def _prune(self) -> None:
        """Drop entries whose leader exited and whose group is now empty."""
        for pid, proc in list(self._procs.items()):
            if proc.exited and not group_alive(proc.pgid):
                del self._procs[pid]

    @property
    def active_count(self) -> int:
        """Tracked groups with a running leader or a live leftover member."""
        self._prune()
        return len(self._procs)

    def kill_all(self, grace: float = 0.0) -> None:
        """Synchronous (atexit/signal-handler safe): release the supervisors' lifeline, TERM, wait, KILL.

        Releasing the lifeline makes every supervisor end its agent the way it would if we had been SIGKILLed —
        including descendants that left the group with setsid, which only the supervisor can find — so we wait
        at least :data:`SUPERVISOR_SWEEP_S` for that before the group-wide SIGKILL (at most ``grace`` if longer).
        Includes groups whose leader already exited but whose members live on.
        """
        procs = list(self._procs.values())
        self._procs.clear()
        self._watching.clear()
        released = supervision.release()
        groups = {p.pgid for p in procs if group_alive(p.pgid)}  # empty: maybe reused
        for g in groups:
            killpg(g, signal.SIGTERM)
            killpg(g, signal.SIGCONT)
        deadline = time.monotonic() + (max(grace, SUPERVISOR_SWEEP_S) if released and groups else grace)
        while groups and time.monotonic() < deadline:
            groups = {g for g in groups if group_alive(g)}
            if groups:
                time.sleep(0.01)
        for g in groups:
            if group_alive(g):
                killpg(g, signal.SIGKILL)

    def install_handlers(self) -> None:
        """atexit + SIGTERM/SIGINT + sys.excepthook; idempotent.

        A previous Python-level signal handler is called after kill_all (so
        SIGINT still raises KeyboardInterrupt, asyncio still cancels); with
        SIG_DFL we exit 128+signum; a SIG_IGN disposition is left alone.
        Signals are skipped off the main thread.
        """
        if self._installed:
            return
        self._installed = True
        atexit.register(lambda: self.kill_all(self.exit_grace))
        prev_hook = sys.excepthook

        def excepthook(tp: Any, val: Any, tb: Any) -> None:
            try:
                self.kill_all(self.exit_grace)
            finally:
                prev_hook(tp, val, tb)

        sys.excepthook = excepthook
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                prev = signal.getsignal(sig)
                if prev is signal.SIG_IGN:
                    continue
                signal.signal(sig, self._make_handler(prev))
            except (ValueError, OSError):  # not the main thread / no signals
                pass

    def _make_handler(self, prev: Any) -> Callable[[int, Any], None]:
        def handler(signum: int, frame: Any) -> None:
            self.kill_all(self.exit_grace)
            if callable(prev):
                prev(signum, frame)
            else:
                sys.exit(128 + signum)

        return handler


TRACKER = ProcessTracker()

"""The health check's verdicts kept for a day, so ``--agent auto`` does not ask every CLI its version at each start.

Why: asking all ten CLIs ``--version`` at once takes about 3 s on two busy cores (node start-up, mostly), which a
bridge must not spend before its first session. A verdict is reused only while nothing it depended on changed:
the executable (its real path, size and modification time), ``PATH``, and the ``node``, ``bun`` and ``python3``
that ``PATH`` finds (an engine error goes away when a newer node is installed). That is the verdict's
*fingerprint*; any change, or a day passing, asks again. ``doctor`` always asks afresh and stores what it found.

The file (``agent-health.json`` in the state folder) is read as any state file is: only a regular file of this
user, size-capped (:mod:`acp_mux.core.files.state_files`), and whatever it holds is checked entry by entry: an entry
that is not exactly what this module writes is ignored, never trusted. It is replaced whole
(:func:`acp_mux.core.files.own_files.write_atomic`), 0600. What ``--agent auto`` offers is decided from these verdicts
(:func:`runnable_agents`, :func:`usable_here`), here rather than in :mod:`acp_mux.cli.health`, which this module
reads: the two never import each other both ways.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from acp_mux.cli.health import CANNOT_RUN, NOT_VERIFIED, RUNS, Health, State, check_all

if TYPE_CHECKING:
    from acp_mux.server.sessions.agent_choice import AgentChoices

FILE = "agent-health.json"
FRESH_S = 24 * 3600
_INTERPRETERS = ("node", "bun", "python3")
_STATES: dict[str, State] = {RUNS: RUNS, CANNOT_RUN: CANNOT_RUN, NOT_VERIFIED: NOT_VERIFIED}


def fingerprint(path: str, env: Mapping[str, str]) -> str:
    """What a verdict on ``path`` depends on, hashed: the executable itself, PATH, and the interpreters on it."""
    search = env.get("PATH", "")
    parts: list[object] = [search]
    for name in (path, *(shutil.which(tool, path=search) for tool in _INTERPRETERS)):
        if not name:
            parts.append("-")
            continue
        real = os.path.realpath(name)
        try:
            info = os.stat(real)
            parts += [real, info.st_size, info.st_mtime_ns]
        except OSError:
            parts += [real, "gone"]
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()


def load(state_dir: Path) -> dict[str, dict[str, Any]]:
    """The stored verdicts by fingerprint; entries of any other shape are dropped (an empty map when unreadable)."""
    from acp_mux.core.files.state_files import read_state_file

    try:
        data = json.loads(read_state_file(state_dir / FILE))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        key: entry
        for key, entry in data.items()
        if isinstance(entry, dict)
        and entry.get("state") in _STATES
        and isinstance(entry.get("detail"), str)
        and isinstance(entry.get("at"), (int, float))
        and not isinstance(entry.get("at"), bool)
    }


def save(state_dir: Path, entries: Mapping[str, Mapping[str, Any]]) -> None:
    """Replace the file with ``entries``; a state folder that cannot be written only means asking again next time."""
    from acp_mux.core.files.own_files import write_atomic

    try:
        state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomic(state_dir / FILE, json.dumps(entries, sort_keys=True).encode())
    except OSError:
        pass


def remember(state_dir: Path, verdicts: Mapping[str, Health], env: Mapping[str, str], now: float) -> None:
    """Store fresh verdicts (executable path → health) beside the others still fresh."""
    entries = {key: entry for key, entry in load(state_dir).items() if now - entry["at"] < FRESH_S}
    for path, health in verdicts.items():
        entries[fingerprint(path, env)] = {"state": health.state, "detail": health.detail, "at": now}
    save(state_dir, entries)


def cached_check_all(
    paths: Sequence[str],
    env: Mapping[str, str],
    state_dir: Path,
    now: Callable[[], float] = time.time,
    *,
    check_missing: bool = True,
) -> list[Health]:
    """:func:`acp_mux.cli.health.check_all`, reusing each verdict that is fresh and whose fingerprint still holds.

    ``check_missing=False`` runs nothing: a CLI without a stored verdict is "not verified" (what a bridge starting
    for an editor uses, so the check never delays it; ``acp-mux doctor`` stores fresh verdicts)."""
    moment = now()
    stored = load(state_dir)
    found: dict[str, Health] = {}
    for path in paths:
        entry = stored.get(fingerprint(path, env))
        if entry is not None and 0 <= moment - entry["at"] < FRESH_S:
            found[path] = Health(_STATES[entry["state"]], entry["detail"])
    missing = [path for path in paths if path not in found]
    if missing and not check_missing:
        found.update({path: Health(NOT_VERIFIED, "not checked yet (acp-mux doctor checks it)") for path in missing})
    elif missing:
        fresh = dict(zip(missing, check_all(missing, env), strict=True))
        found.update(fresh)
        remember(state_dir, fresh, env, moment)
    return [found[path] for path in paths]


def runnable_agents(
    names: Sequence[str],
    env: Mapping[str, str] | None = None,
    state_dir: Path | None = None,
    *,
    check_missing: bool = True,
) -> tuple[str, ...]:
    """The agents among ``names`` that are supported, found and not proven unable to run, in the given order: what
    ``--agent auto`` offers (the same check ``doctor`` shows). With ``state_dir``, a verdict from the last day is
    reused while nothing it depended on changed (this cache); ``check_missing=False`` then
    runs no CLI at all (an agent without a stored verdict is offered, not yet verified)."""
    import os

    from acp_mux.adapters.registry import ENTRIES, locate_binary

    env = os.environ if env is None else env
    found = [
        (name, path)
        for name in names
        if name in ENTRIES and ENTRIES[name].supported
        for path in [locate_binary(ENTRIES[name], None, env)[0]]
        if path
    ]
    paths = [path for _, path in found]
    if state_dir is None:
        verdicts = check_all(paths, env)
    else:
        verdicts = cached_check_all(paths, env, state_dir, check_missing=check_missing)
    return tuple(name for (name, _), health in zip(found, verdicts, strict=True) if health.offered)


def usable_here() -> AgentChoices:
    """The agents ``doctor`` finds usable here, from its stored verdicts only (no CLI is run while the editor
    waits): what ``--agent auto`` offers, and what a single-agent session may carry on with at a usage limit."""
    from acp_mux.server.sessions.agent_choice import AgentChoices
    from acp_mux.server.records.store import state_dir

    root = state_dir()
    return AgentChoices.discover(
        root, runnable=lambda names: runnable_agents(names, state_dir=root, check_missing=False)
    )

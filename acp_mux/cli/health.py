"""Can an agent's CLI run here? One short ``--version`` run decides, for ``doctor`` and for ``--agent auto`` alike.

An executable on PATH is not yet an agent that starts: a Node CLI on a Node that is too old (openclaw on Node 20:
"node:sqlite is unavailable; use 24.16+"), a script whose interpreter is missing (omp without bun: ``env: 'bun':
No such file``) or a broken install fails the same way whatever it is asked. ``--version`` is the cheapest thing
every agent answers, so it is asked, with a short timeout, and judged:

- exit 0 with a version number and no error wording: it **runs** (the first line is its version);
- a non-zero exit, or exit 0 with an error instead of a version: it **cannot run** (what it said is kept, so the
  person reads the cause, e.g. the Node version it needs);
- no answer within the timeout, or no version number: **not verified** (a loaded machine is not a broken install;
  such an agent is still offered).

Nothing is sent anywhere: the agent is only asked its version, with stdin closed.
"""

from __future__ import annotations

import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Mapping, Sequence

if TYPE_CHECKING:
    from pathlib import Path

    from acp_mux.server.agent_choice import AgentChoices

TIMEOUT_S = 5.0
State = Literal["runs", "cannot run", "not verified"]
RUNS: State = "runs"
CANNOT_RUN: State = "cannot run"
NOT_VERIFIED: State = "not verified"
_VERSION = re.compile(r"\d+\.\d+")
# What a CLI prints when it cannot run at all, in the words Node, bun, env and Python use for it.
_FAILURE = re.compile(
    r"\b(error|unavailable|unsupported|not supported|no such file|not found|requires?|cannot|"
    r"please (upgrade|update|install)|traceback)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Health:
    """What one ``--version`` run showed: ``state`` is one of runs / cannot run / not verified; ``detail`` the
    version (runs) or the reason in the CLI's own words (the others), at most one line."""

    state: State
    detail: str

    @property
    def offered(self) -> bool:
        """Whether ``--agent auto`` offers it: everything but a CLI proven unable to run."""
        return self.state != CANNOT_RUN


def judge(exit_code: int, output: str) -> Health:
    """The verdict on a finished ``--version`` run (``output``: stdout, then stderr)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    first = lines[0][:120] if lines else ""
    failure = next((line[:160] for line in lines if _FAILURE.search(line)), None)
    if exit_code != 0:
        return Health(CANNOT_RUN, f"--version failed (exit {exit_code})" + (f": {failure or first}" if lines else ""))
    if failure is not None:
        return Health(CANNOT_RUN, failure)
    if not _VERSION.search(first):
        return Health(NOT_VERIFIED, f"--version printed no version ({first or 'nothing'})")
    return Health(RUNS, first[:60])


def check(path: str, env: Mapping[str, str] | None = None, timeout: float = TIMEOUT_S) -> Health:
    """Run ``path --version`` (stdin closed, at most ``timeout`` seconds) and judge what it did."""
    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=None if env is None else dict(env),
        )
    except subprocess.TimeoutExpired:
        return Health(NOT_VERIFIED, f"--version did not answer within {timeout:g} s")
    except OSError as exc:
        return Health(CANNOT_RUN, f"cannot be run: {exc.strerror or exc}")
    return judge(done.returncode, f"{done.stdout}\n{done.stderr}")


def check_all(paths: Sequence[str], env: Mapping[str, str] | None = None) -> list[Health]:
    """:func:`check` for several CLIs at once (each waits on its own process): the time of the slowest, not the sum."""
    if not paths:
        return []
    with ThreadPoolExecutor(max_workers=len(paths)) as pool:
        return list(pool.map(lambda path: check(path, env), paths))


def runnable_agents(
    names: Sequence[str],
    env: Mapping[str, str] | None = None,
    state_dir: Path | None = None,
    *,
    check_missing: bool = True,
) -> tuple[str, ...]:
    """The agents among ``names`` that are supported, found and not proven unable to run, in the given order: what
    ``--agent auto`` offers (the same check ``doctor`` shows). With ``state_dir``, a verdict from the last day is
    reused while nothing it depended on changed (:mod:`acp_mux.cli.health_cache`); ``check_missing=False`` then
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
        from acp_mux.cli.health_cache import cached_check_all

        verdicts = cached_check_all(paths, env, state_dir, check_missing=check_missing)
    return tuple(name for (name, _), health in zip(found, verdicts, strict=True) if health.offered)


def usable_here() -> AgentChoices:
    """The agents ``doctor`` finds usable here, from its stored verdicts only (no CLI is run while the editor
    waits): what ``--agent auto`` offers, and what a single-agent session may carry on with at a usage limit."""
    from acp_mux.server.agent_choice import AgentChoices
    from acp_mux.server.store import state_dir

    root = state_dir()
    return AgentChoices.discover(
        root, runnable=lambda names: runnable_agents(names, state_dir=root, check_missing=False)
    )

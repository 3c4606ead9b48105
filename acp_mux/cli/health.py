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
from typing import Literal, Mapping, Sequence

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

"""omp's retries of a failing model, read from its own log file (omp 18.2.3 says nothing of them over ACP).

omp logs through a rotating file, ``<state>/logs/omp.<local date>.<pid>.log`` (``.1``, ``.2`` … past 10 MB),
one JSON object a line. ``<state>`` is ``$XDG_STATE_HOME/omp`` once that folder exists (after ``omp config
init-xdg``), else ``$HOME/.omp`` (``$PI_CONFIG_DIR`` instead of ``.omp`` when set); named profiles are not
followed. Each turn attempt that ends with a provider error writes one line::

    {"level":"warn","pid":1234,"message":"agent turn ended with provider error","errorMessage":"500 The server …",
     "errorStatus":500, ...}

omp then retries the turn (``retry.maxRetries`` times, default 10, 0.5–8 s apart; a 429 without a retry-after
heuristically 30 s) unless the status is one it never retries (a 401, 403, 400: its error follows at once). The
bridge follows that file (:func:`log_finder`) and shows each failed attempt that omp will retry (:func:`failed_turn`).

The first such line comes only when a whole turn attempt has failed: omp's HTTP layer first tries each request 5
times (0.5, 1, 2, 4 s apart, or as a retry-after says) and its stream layer once more, all without a trace
anywhere (pi-utils ``fetchWithRetry``, src/fetch-retry.ts, calls the global ``fetch`` on each attempt and logs
nothing). acp-mux therefore starts omp with its own extension (``omp_extension/http_failures.ts``, ``omp -e``),
which observes that global ``fetch`` and logs each streaming model request answered 5xx/408/429 — the statuses
``fetchWithRetry`` retries — into the same file, as one line with only the status and the provider's first message
line (:func:`failed_answer`). The bridge shows the first of a prompt at once (a 500 without a retry-after: within
1 s instead of ~16–30 s), then each failed turn attempt as before.
"""

from __future__ import annotations

import json
import os
import re
import time
from datetime import datetime
from typing import Any, Callable, Mapping

from acp_mux.core.text.redact import redact

FAILED_TURN = "agent turn ended with provider error"
FAILED_ANSWER = "acp-mux: model answered with a retryable HTTP error"  # omp_extension/http_failures.ts
FAILED_CONNECT = "acp-mux: model request got no answer"  # the same extension: nothing answered at the address
DEFAULT_MAX_RETRIES = 10  # omp's retry.maxRetries when its settings do not say
MAX_REASON = 300
RECHECK_S = 2.0  # how often the logs folder is listed again once omp's file is found
_MAX_RETRIES = re.compile(r"""["']?maxRetries["']?\s*:\s*(\d+)""")
_NEVER_RETRIED = frozenset(range(400, 500)) - {408, 429}  # a refused key, a bad request: omp gives up at once


def state_roots(env: Mapping[str, str]) -> list[str]:
    """Where omp keeps its state (logs, settings) for an agent started with ``env``: XDG first when omp uses it."""
    roots = []
    xdg = env.get("XDG_STATE_HOME")
    if xdg and os.path.isdir(os.path.join(xdg, "omp")):
        roots.append(os.path.join(xdg, "omp"))
    home = env.get("HOME") or os.path.expanduser("~")
    roots.append(os.path.join(home, env.get("PI_CONFIG_DIR") or ".omp"))
    return roots


def log_finder(env: Mapping[str, str], pid: int, *, recheck_s: float = RECHECK_S) -> Callable[[], str | None]:
    """A function that names omp's current log file for process ``pid`` (None until omp has written one): the
    newest day, then the highest rotation index. Until the file exists every call lists the logs folder (omp
    prunes it to a few files per process and day); once found, only every ``recheck_s`` seconds (a new day or
    10 MB moves omp to another file, and the follower reads the rest of the old one first)."""
    pattern = re.compile(rf"^omp\.(\d{{4}}-\d{{2}}-\d{{2}})\.{pid}\.log(?:\.(\d+))?$")
    folders = [os.path.join(root, "logs") for root in state_roots(env)]
    found_at: list[tuple[float, str]] = []  # (when, path) of the last find

    def find() -> str | None:
        now = time.monotonic()
        if found_at and now - found_at[0][0] < recheck_s:
            return found_at[0][1]
        path = look()
        found_at[:] = [(now, path)] if path is not None else []
        return path

    def look() -> str | None:
        best: tuple[str, int, str] | None = None
        for folder in folders:
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                found = pattern.match(name)
                if found is not None:
                    key = (found.group(1), int(found.group(2) or 0), os.path.join(folder, name))
                    best = key if best is None or key[:2] > best[:2] else best
            if best is not None:
                return best[2]
        return None

    return find


def max_retries(env: Mapping[str, str]) -> int:
    """``retry.maxRetries`` from omp's settings (``<state>/agent/config.yml``), or omp's default when unset or
    unreadable. The settings are YAML (or JSON): only this one key is read, by its name."""
    for root in state_roots(env)[-1:]:
        try:
            with open(os.path.join(root, "agent", "config.yml"), encoding="utf-8") as fh:
                text = fh.read(1_000_000)
        except OSError:
            continue
        found = _MAX_RETRIES.search(text)
        if found is not None:
            return int(found.group(1))
    return DEFAULT_MAX_RETRIES


def failed_turn(line: str) -> tuple[int | None, str] | None:
    """(HTTP status or None, the provider's message) of omp's log line for a turn attempt that failed at the
    provider; None for any other line. One substring test rules out nearly every line (constant cost per line)."""
    return _logged_failure(line, FAILED_TURN, "errorStatus", "errorMessage")


def failed_answer(line: str) -> tuple[int | None, str] | None:
    """(HTTP status, the provider's message) of the line acp-mux's omp extension (``omp_extension/``) logs for a
    model answer omp's HTTP layer will retry; None for any other line."""
    return _logged_failure(line, FAILED_ANSWER, "httpStatus", "httpReason")


def unreachable(line: str) -> str | None:
    """Why a model request got no answer at all (ECONNREFUSED …), from the line acp-mux's omp extension logs for
    it; None for any other line."""
    found = _logged_failure(line, FAILED_CONNECT, "httpStatus", "httpReason")
    return found[1] if found is not None else None


def _logged_failure(line: str, message_text: str, status_key: str, reason_key: str) -> tuple[int | None, str] | None:
    """(status, first line of the reason, known secrets masked) of a log line whose ``message`` is exactly
    ``message_text``: the reason is the provider's text, shown to the person and stored."""
    if message_text not in line:
        return None
    try:
        entry: Any = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict) or entry.get("message") != message_text:
        return None
    status = entry.get(status_key)
    message = entry.get(reason_key)
    text = message.strip().splitlines()[0].strip() if isinstance(message, str) and message.strip() else ""
    code = status if isinstance(status, int) and not isinstance(status, bool) else None
    return code, redact((text or "the model request failed")[:MAX_REASON])


def logged_at(line: str) -> float | None:
    """When omp wrote ``line`` (its ``timestamp``, e.g. ``2026-11-25T20:21:24.205+00:00``, as seconds since the
    epoch), or None when it says no valid time. The follower reads lines up to a poll interval late, so a line
    written before a prompt was sent must not be taken for that prompt's (the caller compares)."""
    try:
        entry: Any = json.loads(line)
        stamp = datetime.fromisoformat(entry["timestamp"]) if isinstance(entry, dict) else None
    except (ValueError, KeyError, TypeError):
        return None
    if stamp is None or stamp.tzinfo is None:
        return None
    return stamp.timestamp()


def retried(status: int | None) -> bool:
    """Whether omp retries a turn that failed with ``status`` (a refused key or a bad request it does not)."""
    return status not in _NEVER_RETRIED

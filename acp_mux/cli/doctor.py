"""``acp-mux doctor``: per agent, what was checked on this machine and what to do next. It never claims more than it
checked: a key in the environment is "set", not valid; a login file is "found", not proven; anything else is
"not checked". Nothing is sent anywhere.

One block per agent (not a wide table), every line at most 100 columns.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from typing import Mapping, Sequence

from acp_mux.adapters.registry import (
    AGENT_NAMES,
    DEMO_AGENT,
    ENTRIES,
    AgentEntry,
    UnknownAgent,
    expand_path,
    locate_binary,
)
from acp_mux.core.settings import settings_problem

WIDTH = 100
LABEL = 12  # "  transport " and friends, then the text


@dataclass
class Report:
    """One agent's block and whether it can be started right now (binary found; auth is not part of it)."""

    lines: list[str]
    startable: bool


def _version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return "version unknown"
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0][:40] if text else "version unknown"


def _field(label: str, text: str) -> list[str]:
    """A labelled line wrapped at :data:`WIDTH`; a path longer than a line is kept whole (copyable), not split."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=f"  {label:<{LABEL - 2}}",
        subsequent_indent=" " * LABEL,
        break_on_hyphens=False,
        break_long_words=False,
    ) or [f"  {label}"]


def auth_status(row: AgentEntry, env: Mapping[str, str]) -> tuple[str, bool]:
    """(what was checked, in words; whether something that should authenticate was found)."""
    if not row.auth_env and not row.login_args:
        return "none needed", True
    present = [var for var in row.auth_env if env.get(var)]
    if present:
        return f"key set: {present[0]} (not verified)", True
    login_file = row.existing_login_file(env)
    if login_file:
        return f"login found: {login_file} (not verified)", True
    seen = [f"no {var} set" for var in row.auth_env]
    seen += [f"no login file at {_tilde(expand_path(pattern, env), env)}" for pattern in row.login_files]
    unseen = "a login kept in a keychain is not seen" if row.login_files else "a login is not looked for"
    return f"not checked: {', '.join(seen)} ({unseen})", False


def _tilde(path: str, env: Mapping[str, str]) -> str:
    """``~/…`` for a path in HOME: shorter, so a deep XDG path still fits the line (and a shell still reads it)."""
    home = (env.get("HOME") or "").rstrip("/")
    return "~" + path[len(home) :] if home and path.startswith(home + "/") else path


def _sign_in(row: AgentEntry) -> str:
    ways = [f"`{row.login_command}` in a terminal"] if row.login_command else []
    if row.auth_env:
        ways.append(f"set {row.auth_env[0]} in the editor's env for acp-mux")
    return " or ".join(ways)


def report(name: str, env: Mapping[str, str] | None = None) -> Report:
    env = os.environ if env is None else env
    row = ENTRIES[name]
    title = f"{name} — {row.display_name}"
    if not row.supported:
        lines = _field("", f"{title}: not supported by this acp-mux version yet")
        lines[0] = lines[0].strip()
        return Report(lines, False)
    if name == DEMO_AGENT:
        lines = [f"{title}: ready (bundled, runs on this Python)"]
        lines += _field("asks", row.asking.text) if row.asking else []
        lines += _field("next", "`acp-mux demo` in a terminal, or `acp-mux --agent demo` in an editor")
        return Report(lines, True)

    path, problem = locate_binary(row, None, env)
    auth, authenticated = auth_status(row, env)
    tested = f" (tested with {row.tested_version})" if row.tested_version else ""
    transports = list(row.transports)
    transport = f"{transports[0]} (default)" + (
        f"; also --transport {', '.join(transports[1:])}" if transports[1:] else ""
    )
    if path:
        state = "ready" if authenticated else "installed; sign-in not checked"
        binary = f"found: {_version(path)} at {path}"
    else:
        state = "cannot start"
        binary = problem or "not found"
    lines = [f"{title}{tested}: {state}"]
    if row.untested:  # never run for real here: say so before anything else
        lines += _field("tested", row.untested)
    lines += _field("binary", binary)
    lines += _field("transport", transport)
    if row.status:  # what works through acp-mux and what does not, as the README's agents table says it
        lines += _field("status", row.status)
    if row.asking:  # what a new session asks the person before, and the mode that asks nothing
        lines += _field("asks", row.asking.text)
    lines += _field("auth", auth)
    steps = []
    if not path and env.get(row.bin_env_var):
        steps.append(f"fix {row.bin_env_var} (the path of the {row.binary} executable) or unset it")
    elif not path:
        steps.append(f"install: {row.install_text}, or set {row.bin_env_var}=/path/to/{row.binary}")
    if not authenticated:
        steps.append(f"sign in: {_sign_in(row)}")
    steps.append(f"then an editor runs: acp-mux --agent {name}" if steps else f"an editor runs: acp-mux --agent {name}")
    for step in steps:
        lines += _field("next", step)
    return Report(lines, path is not None)


def run_doctor(argv: Sequence[str]) -> int:
    """Print one block per agent, then any badly set ``ACP_MUX_*`` setting; exit 1 when an agent named on the
    command line cannot be started or a setting is bad (every session would be refused)."""
    names = list(argv) or [*AGENT_NAMES, DEMO_AGENT]
    for name in names:
        if name not in ENTRIES:
            print(f"acp-mux: {UnknownAgent(name)}", file=sys.stderr)
            return 2
    blocks = [report(name) for name in names]
    print("\n\n".join("\n".join(block.lines) for block in blocks))
    if not argv:
        print("\nChecked here, nothing sent anywhere: keys are only seen as set, logins only as files found.")
    setting = settings_problem(os.environ)  # every new session would fail with this: say it here too
    if setting:
        print(f"\nsettings: {setting}")
    return 1 if (setting or argv and not all(block.startable for block in blocks)) else 0

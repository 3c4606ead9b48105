"""``acp-mux doctor``: per agent, what was checked on this machine and what to do next. It never claims more than it
checked: an executable is "found" and asked its ``--version`` (:mod:`acp_mux.cli.health`: it runs, cannot run, or
is not verified); a key in the environment is "set", not valid; a login file is "found", not proven; where nothing
was found it says "none found" and what it looked for. Nothing is sent anywhere; the verdicts are kept in the
state folder for ``--agent auto`` (:mod:`acp_mux.cli.health_cache`).

One summary line first, then one block per agent (not a wide table), laid out for the terminal's width (80 when
it is unknown: :mod:`acp_mux.cli.terminal`), then where the bridge's log is.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
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
from acp_mux.cli.health import CANNOT_RUN, RUNS, Health, check_all
from acp_mux.cli.health_cache import remember
from acp_mux.cli.terminal import field, fill
from acp_mux.core.files.paths import state_dir
from acp_mux.core.settings import settings_problem

READY, NO_SIGN_IN, NOT_VERIFIED, CANNOT_RUN_STATE, NOT_FOUND, UNSUPPORTED = (
    "ready",
    "no sign-in found",
    "not verified",
    "cannot run",
    "not found",
    "not supported yet",
)
_SUMMARY_ORDER = (READY, NO_SIGN_IN, NOT_VERIFIED, CANNOT_RUN_STATE, NOT_FOUND, UNSUPPORTED)


@dataclass
class Report:
    """One agent's block, its state in a word or two (for the summary), and whether it can be started right now
    (found and not proven unable to run; sign-in is not part of it)."""

    lines: list[str]
    startable: bool
    state: str = READY


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
    return f"none found: {', '.join(seen)} ({unseen})", False


def _tilde(path: str, env: Mapping[str, str]) -> str:
    """``~/…`` for a path in HOME: shorter, so a deep XDG path still fits the line (and a shell still reads it)."""
    home = (env.get("HOME") or "").rstrip("/")
    return "~" + path[len(home) :] if home and path.startswith(home + "/") else path


def _sign_in(row: AgentEntry) -> str:
    ways = [f"`{row.login_command}` in a terminal"] if row.login_command else []
    if row.auth_env:
        ways.append(f"set {row.auth_env[0]} in the editor's env for acp-mux")
    return " or ".join(ways)


def report(name: str, env: Mapping[str, str] | None = None, health: Health | None = None) -> Report:
    """The block for one agent; ``health``: what its ``--version`` run showed (asked here when not given)."""
    env = os.environ if env is None else env
    row = ENTRIES[name]
    title = f"{name} — {row.display_name}"
    if not row.supported:
        return Report([f"{title}: not supported by this acp-mux version yet"], False, UNSUPPORTED)
    if name == DEMO_AGENT:
        lines = [f"{title}: ready (bundled, runs on this Python)"]
        lines += field("asks", row.asking.text) if row.asking else []
        lines += field("next", "`acp-mux demo` in a terminal, or `acp-mux --agent demo` in an editor")
        return Report(lines, True, READY)

    path, problem = locate_binary(row, None, env)
    if path and health is None:
        health = check_all([path], env)[0]
    auth, authenticated = auth_status(row, env)
    tested = f" (tested with {row.tested_version})" if row.tested_version else ""
    transports = list(row.transports)
    transport = f"{transports[0]} (default)" + (
        f"; also --transport {', '.join(transports[1:])}" if transports[1:] else ""
    )
    if not path or health is None:
        state, binary = NOT_FOUND, problem or "not found"
    elif health.state == CANNOT_RUN:
        state, binary = CANNOT_RUN_STATE, f"found at {path}, but it cannot run: {health.detail}"
    elif health.state == RUNS:
        state, binary = (READY if authenticated else NO_SIGN_IN), f"found: {health.detail} at {path}"
    else:
        state, binary = NOT_VERIFIED, f"found at {path}; not verified: {health.detail}"
    headline = {NO_SIGN_IN: "installed; no sign-in found", NOT_VERIFIED: "found, not verified"}.get(state, state)
    lines = fill(f"{title}{tested}: {headline}", later="  ").splitlines()
    if row.untested:  # never run for real here: say so before anything else
        lines += field("tested", row.untested)
    lines += field("binary", binary)
    lines += field("transport", transport)
    if row.status:  # what works through acp-mux and what does not, as the README's agents table says it
        lines += field("status", row.status)
    if row.asking:  # what a new session asks the person before, and the mode that asks nothing
        lines += field("asks", row.asking.text)
    lines += field("auth", auth)
    steps = []
    if not path and env.get(row.bin_env_var):
        steps.append(f"fix {row.bin_env_var} (the path of the {row.binary} executable) or unset it")
    elif not path:
        steps.append(f"install: {row.install_text}, or set {row.bin_env_var}=/path/to/{row.binary}")
    elif state == CANNOT_RUN_STATE:
        steps.append(
            f"repair the install so `{row.binary} --version` runs (the reason is above): {row.install_text}, "
            f"or set {row.bin_env_var} to one that runs"
        )
    if not authenticated:
        steps.append(f"sign in: {_sign_in(row)}")
    steps.append(f"then an editor runs: acp-mux --agent {name}" if steps else f"an editor runs: acp-mux --agent {name}")
    for step in steps:
        lines += field("next", step)
    startable = path is not None and state != CANNOT_RUN_STATE
    return Report(lines, startable, state)


def reports(names: Sequence[str], env: Mapping[str, str] | None = None) -> list[Report]:
    """Every named agent's block; their CLIs are asked ``--version`` all at once (the slowest sets the time)."""
    env = os.environ if env is None else env
    paths = {
        name: path
        for name in names
        if ENTRIES[name].supported and name != DEMO_AGENT
        for path in [locate_binary(ENTRIES[name], None, env)[0]]
        if path
    }
    health = dict(zip(paths, check_all(list(paths.values()), env), strict=True))
    remember(state_dir(env), {paths[name]: health[name] for name in paths}, env, time.time())  # for --agent auto
    return [report(name, env, health.get(name)) for name in names]


def summary(blocks: Sequence[Report]) -> str:
    """One line before everything else: how many agents are in each state (each block's title says which)."""
    counts = [(state, sum(block.state == state for block in blocks)) for state in _SUMMARY_ORDER]
    return "acp-mux doctor: " + ", ".join(f"{count} {state}" for state, count in counts if count)


def build_parser() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(
        prog="acp-mux doctor",
        description=fill(
            "Which agent CLIs are installed here and can run (each is asked its --version), how each would sign in "
            "(a key set, a login file found: neither is verified), and what to do next. Nothing is sent anywhere."
        ),
        epilog=fill(
            "exit status: 0 fine; 1 a named agent cannot start, or an ACP_MUX_* setting is bad; 2 an unknown name"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def run_doctor(argv: Sequence[str]) -> int:
    """Print the summary, one block per agent, then any badly set ``ACP_MUX_*`` setting and where the log is; exit 1
    when an agent named on the command line cannot be started or a setting is bad (every session would be
    refused)."""
    from acp_mux.cli.log_file import default_log_path

    parser = build_parser()
    parser.add_argument("agents", nargs="*", metavar="AGENT", help="only these agents (default: all, and the demo)")
    named = parser.parse_args(list(argv)).agents
    names = list(named) or [*AGENT_NAMES, DEMO_AGENT]
    for name in names:
        if name not in ENTRIES:
            print(f"acp-mux: {UnknownAgent(name)}", file=sys.stderr)
            return 2
    blocks = reports(names)
    print(fill(summary(blocks)) + "\n")
    print("\n\n".join("\n".join(block.lines) for block in blocks))
    print()
    print(
        fill(
            "Checked here, nothing sent anywhere: each CLI was only asked its --version; keys are only seen as set, logins only as files found."
        )
    )
    print(fill(f"The bridge's log: {default_log_path()} (another with --log-file or ACP_MUX_LOG)"))
    from acp_mux.server.branches.failover import setting_problem as failover_problem

    # every new session would fail with this: say it here too
    setting = settings_problem(os.environ) or failover_problem(os.environ)
    if setting:
        print(f"\nsettings: {setting}")
    return 1 if (setting or named and not all(block.startable for block in blocks)) else 0

"""acp-mux's hermes plugin: hermes asks before EVERY command, not only those its patterns call dangerous.

Why a plugin: hermes (0.19.0) asks before a shell command only when its own list of patterns deems it dangerous,
and no setting of its own widens that. Its plugin hook ``pre_tool_call`` may answer ``{"action": "approve"}``,
which sends the call through hermes' normal approval gate (in ACP: a ``session/request_permission`` that acp-mux
relays to the editor); a refusal, an error or a timeout there blocks the call (hermes fails closed).

This file runs inside hermes' own Python (it is copied as ``__init__.py`` into a private overlay of hermes' bundled
plugins, see ``acp_mux/adapters/hermes_plugins.py``): it imports nothing of acp-mux and only the standard library.
The question names the command exactly (``MARK`` + the command), and its "always" key is that exact command, so
no answer given to it can cover another command.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

MARK = "acp-mux asks before every command"
# hermes' tools that run something: the shell, Python code, and the actions of its background-process tool that
# act on a process (list, poll, log and wait only read)
_PROCESS_ACTS = frozenset({"kill", "write", "submit", "close"})


def what_runs(tool_name: str, args: Any) -> str | None:
    """The command a tool call would run, as the question shows it; None for a call that runs nothing."""
    args = args if isinstance(args, dict) else {}
    if tool_name == "terminal":
        command = args.get("command")
        return command if isinstance(command, str) else json.dumps(args, sort_keys=True)
    if tool_name == "execute_code":
        code = args.get("code")
        return f"execute_code: {code if isinstance(code, str) else json.dumps(args, sort_keys=True)}"
    if tool_name == "process" and args.get("action") in _PROCESS_ACTS:
        return f"process: {json.dumps(args, sort_keys=True)}"
    return None


def ask_first(tool_name: str = "", args: Any = None, **_: Any) -> dict[str, str] | None:
    """hermes' ``pre_tool_call`` hook: escalate every call that runs something to hermes' approval gate."""
    command = what_runs(tool_name, args)
    if command is None:
        return None
    key = hashlib.sha256(f"{tool_name}\0{command}".encode()).hexdigest()[:24]
    return {"action": "approve", "message": f"{MARK}: {command}", "rule_key": f"acp-mux:{tool_name}:{key}"}


def register(ctx: Any) -> None:
    """hermes' plugin entry: one hook."""
    ctx.register_hook("pre_tool_call", ask_first)

"""Permission options, and the per-session "always" rules the bridge answers by itself.

Every agent gets the same four options. "Always" answers are remembered for the session and scoped honestly: by
command prefix for shell commands (a command with chaining or substitution never matches an allow rule), by path for
edits, by tool name otherwise. The label says the scope, so the user knows what "always" means.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Literal

Decision = Literal["allow", "reject"]

ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE, REJECT_ALWAYS = "allow_once", "allow_always", "reject_once", "reject_always"
_MULTI_COMMAND_TOOLS = {"git", "npm", "pnpm", "yarn", "cargo", "go", "pip", "uv", "docker", "kubectl", "make", "poetry"}
_SHELL_META = re.compile(r"[;&|`<>]|\$\(|\n")
_PATH_KEYS = ("file_path", "path", "filePath", "notebook_path", "target")
_COMMAND_KEYS = ("command", "cmd")


@dataclass(frozen=True)
class Scope:
    """What an "always" answer covers."""

    tool: str
    kind: str
    command_prefix: str | None = None
    path: str | None = None

    def label(self) -> str:
        if self.command_prefix:
            return f"`{self.command_prefix}` commands"
        if self.path:
            return f"changes to {self.path}"
        return f"{self.tool}"


def scope_for(tool_name: str | None, kind: str, tool_input: Any) -> Scope:
    args = tool_input if isinstance(tool_input, dict) else {}
    tool = tool_name or "this tool"
    if kind == "execute":
        command = _first_str(args, _COMMAND_KEYS)
        if isinstance(args.get("command"), list):
            command = shlex.join(str(x) for x in args["command"])
        prefix = command_prefix(command) if command else None
        if prefix:
            return Scope(tool, kind, command_prefix=prefix)
    if kind in ("edit", "delete", "move"):
        path = _first_str(args, _PATH_KEYS) or _single_changed_path(args)
        if path:
            return Scope(tool, kind, path=path)
    return Scope(tool, kind)


def command_prefix(command: str) -> str | None:
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    if not words:
        return None
    if words[0] in ("bash", "sh", "zsh") and len(words) >= 3 and words[1] in ("-c", "-lc"):
        return command_prefix(words[2])
    if words[0] in _MULTI_COMMAND_TOOLS and len(words) > 1 and not words[1].startswith("-"):
        return f"{words[0]} {words[1]}"
    return words[0]


def _single_changed_path(args: dict[str, Any]) -> str | None:
    """The one file a patch-style edit changes (codex's ``changes`` list), when it changes exactly one."""
    changes = args.get("changes")
    if isinstance(changes, list) and len(changes) == 1 and isinstance(changes[0], dict):
        path = changes[0].get("path")
        return path if isinstance(path, str) and path else None
    return None


def _first_str(args: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return None


# Tool kinds that change the user's files or run commands: what a read-only (plan) mode never lets through.
MUTATING_KINDS = frozenset({"edit", "delete", "move", "execute"})
MODE_OPTION_PREFIX = "mode:"


def mode_exit_options(modes: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Options for an agent asking to leave plan mode: continue in one of ``modes`` (id, name), or keep planning."""
    options = [
        {"optionId": MODE_OPTION_PREFIX + mode_id, "name": f"Yes, continue in {name}",
         "kind": "allow_always" if i == 0 else "allow_once"}
        for i, (mode_id, name) in enumerate(modes)
    ]
    return options + [{"optionId": REJECT_ONCE, "name": "No, keep planning", "kind": "reject_once"}]


def chosen_mode(response: dict[str, Any] | None) -> str | None:
    """The mode picked from :func:`mode_exit_options`, or None (rejected, cancelled, another option)."""
    outcome = (response or {}).get("outcome") or {}
    option = str(outcome.get("optionId", "")) if outcome.get("outcome") == "selected" else ""
    if not option.startswith(MODE_OPTION_PREFIX):
        return None
    return option[len(MODE_OPTION_PREFIX):] or None


def permission_options(scope: Scope) -> list[dict[str, Any]]:
    what = scope.label()
    return [
        {"optionId": ALLOW_ONCE, "name": "Allow once", "kind": "allow_once"},
        {"optionId": ALLOW_ALWAYS, "name": f"Always allow {what} (this session)", "kind": "allow_always"},
        {"optionId": REJECT_ONCE, "name": "Reject", "kind": "reject_once"},
        {"optionId": REJECT_ALWAYS, "name": f"Always reject {what} (this session)", "kind": "reject_always"},
    ]


@dataclass(frozen=True)
class Answer:
    """The user's choice, decoded from an ACP permission outcome."""

    approve: bool
    always: bool = False
    cancelled: bool = False


def decode_outcome(response: dict[str, Any] | None) -> Answer:
    outcome = (response or {}).get("outcome") or {}
    if outcome.get("outcome") != "selected":
        return Answer(approve=False, cancelled=True)
    option = str(outcome.get("optionId", ""))
    # Clients answer with our ids; be lenient with kinds or look-alike ids from other bridges.
    if option in (ALLOW_ONCE, "allow", "allow-once", "approve"):
        return Answer(approve=True)
    if option in (ALLOW_ALWAYS, "allow-always", "approve_for_session"):
        return Answer(approve=True, always=True)
    if option in (REJECT_ALWAYS, "reject-always"):
        return Answer(approve=False, always=True)
    return Answer(approve=False)


@dataclass
class PermissionRules:
    """The session's remembered "always" answers."""

    rules: list[tuple[Scope, Decision]] = field(default_factory=list)

    def remember(self, scope: Scope, decision: Decision) -> None:
        self.rules = [(s, d) for s, d in self.rules if s != scope]
        self.rules.append((scope, decision))

    def match(self, tool_name: str | None, kind: str, tool_input: Any) -> Decision | None:
        scope = scope_for(tool_name, kind, tool_input)
        command = _command_text(tool_input)
        for rule, decision in reversed(self.rules):
            # Command and path rules are about what runs and what changes, whichever tool (or agent) asks; only a
            # rule for a whole tool names the tool.
            if rule.command_prefix is None and rule.path is None and rule.tool != scope.tool:
                continue
            if (rule.command_prefix is not None or rule.path is not None) and rule.kind != scope.kind:
                continue
            if rule.command_prefix is not None:
                if scope.command_prefix != rule.command_prefix:
                    continue
                if decision == "allow" and command is not None and _SHELL_META.search(command):
                    continue  # `ls; rm -rf ~` must not ride on an "always allow ls"
            elif rule.path is not None and scope.path != rule.path:
                continue
            return decision
        return None


def _command_text(tool_input: Any) -> str | None:
    if not isinstance(tool_input, dict):
        return None
    value = _first_str(tool_input, _COMMAND_KEYS)
    if value is None and isinstance(tool_input.get("command"), list):
        value = " ".join(str(x) for x in tool_input["command"])
    return value

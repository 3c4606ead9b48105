"""codex's slash commands through ``codex app-server``: what the editor lists and what each one does when the
person sends it as a prompt.

The list is codex-acp 2.6's built-ins that acp-mux can carry out, then codex's skills (``skills/list``) as
``$name`` commands (a ``$skill`` mention is codex's own prompt syntax, so those go to codex as a plain prompt).
Each built-in maps onto the app-server method codex-acp uses: ``/compact`` → ``thread/compact/start`` and
``/review`` (``-branch``, ``-commit``) → ``review/start`` run a codex turn of their own; ``/status``, ``/skills``,
``/mcp``, ``/rename`` and ``/plan`` are answered by acp-mux from what codex reports (``account/read``,
``skills/list``, ``mcpServerStatus/list``, ``thread/name/set``, ``thread/settings/update``) in one short turn.

Left out on purpose: ``/logout`` (acp-mux has ACP's own ``logout`` method, which signs codex out in the session's
home) and ``/goal`` (codex's goal turns continue on their own after the prompt ends: no ACP turn carries them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acp_mux.core.run.prompt import Prompt
from acp_mux.core.text.shapes import as_dict, as_list, as_str

# name → (description, input hint or None): codex-acp 2.6's words
BUILTINS: dict[str, tuple[str, str | None]] = {
    "plan": ("Turn plan mode on or off.", None),
    "mcp": ("Show the status of the MCP servers.", None),
    "skills": ("List available skills.", None),
    "status": ("Display session configuration and token usage.", None),
    "review": ("Review uncommitted changes, or review with custom instructions.", "optional review instructions"),
    "review-branch": ("Review changes relative to a base branch.", "branch name"),
    "review-commit": ("Review a specific commit.", "commit sha"),
    "compact": ("Summarize conversation to avoid hitting the context limit.", None),
    "rename": ("Rename the current session.", "new name"),
}
TURN_COMMANDS = frozenset({"compact", "review", "review-branch", "review-commit"})  # run a codex turn
_NEEDS_INPUT = {"review-branch": "branch name", "review-commit": "commit sha", "rename": "new name"}


@dataclass(frozen=True)
class Command:
    name: str
    rest: str  # what follows the name

    def missing_input(self) -> str | None:
        """The usage line when a command that needs an argument came without one."""
        hint = _NEEDS_INPUT.get(self.name)
        return f'Command "/{self.name}" requires {hint}.' if hint and not self.rest else None

    def review_target(self) -> dict[str, Any]:
        if self.name == "review-branch":
            return {"type": "baseBranch", "branch": self.rest}
        if self.name == "review-commit":
            return {"type": "commit", "sha": self.rest, "title": None}
        return {"type": "custom", "instructions": self.rest} if self.rest else {"type": "uncommittedChanges"}


def parse(prompt: Prompt) -> Command | None:
    """The built-in command a prompt is (``/name rest``), or None: any other text, ``/unknown`` included, is a
    prompt for codex."""
    text = prompt.as_text().strip()
    if not text.startswith("/") or prompt.images:
        return None
    name, _, rest = text[1:].partition(" ")
    name = name.strip().lower()
    return Command(name, rest.strip()) if name in BUILTINS else None


def available(skills_result: Any = None) -> list[dict[str, Any]]:
    """The commands as ACP ``AvailableCommand`` objects: the built-ins, then each skill as ``$name``."""
    commands = [
        {"name": name, "description": text, **({"input": {"hint": hint}} if hint else {})}
        for name, (text, hint) in BUILTINS.items()
    ]
    seen = {c["name"] for c in commands}
    for skill in skills(skills_result):
        name = f"${as_str(skill.get('name'))}"
        if name in seen or name == "$":
            continue
        seen.add(name)
        text = as_str(as_dict(skill.get("interface")).get("shortDescription")) or as_str(skill.get("description"))
        commands.append({"name": name, "description": text or name})
    return commands


def skills(result: Any) -> list[dict[str, Any]]:
    """The enabled skills in a ``skills/list`` answer (one entry per cwd asked about)."""
    found = [s for entry in as_list(as_dict(result).get("data")) for s in as_list(as_dict(entry).get("skills"))]
    return [as_dict(s) for s in found if as_dict(s).get("enabled", True) is not False]


def skills_text(result: Any) -> str:
    lines = []
    for skill in skills(result):
        text = as_str(as_dict(skill.get("interface")).get("shortDescription")) or as_str(skill.get("description"))
        lines.append(f"- {as_str(skill.get('name'))}: {text}" if text else f"- {as_str(skill.get('name'))}")
    return "\n".join(["Available skills:", *lines]) if lines else "No skills configured."


def mcp_text(result: Any) -> str:
    servers = [as_dict(s) for s in as_list(as_dict(result).get("data"))]
    if not servers:
        return "No MCP servers configured."
    lines = ["MCP servers:"]
    for server in servers:
        tools = as_dict(server.get("tools"))
        status = as_str(server.get("authStatus")) or as_str(server.get("status"))
        detail = f"{len(tools)} tools" + (f", {status}" if status else "")
        lines.append(f"- {as_str(server.get('name'))} ({detail})")
    return "\n".join(lines)


def account_text(result: Any) -> str:
    account = as_dict(as_dict(result).get("account"))
    kind = as_str(account.get("type"))
    if kind == "chatgpt":
        return f"ChatGPT {as_str(account.get('planType'))} ({as_str(account.get('email'))})".strip()
    if kind == "apiKey":
        return "API key configured"
    return kind or "API key from the environment, or not signed in"

"""How Claude Code's tools look in the editor, and the small renderings the Claude adapter needs for them.

Kept apart from ``claude.py`` because it answers a different question ("what is this tool?", not "how does Claude
speak?"). Titles are human and carry absolute paths: making them relative to the session's cwd is a translation
concern (``translation.diffs.relative_title``). Kinds are truthful, since clients auto-approve by kind: anything
that runs a command is ``execute``, anything that changes a file is ``edit``.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any, Literal

from adapters.base import DiffSpec, ToolKind, ToolSpec, ToolTable

__all__ = [
    "CLAUDE_TOOLS",
    "ClaudeToolTable",
    "EDIT_TOOLS",
    "SUBAGENT_TOOLS",
    "approval_action",
    "approval_detail",
    "mcp_parts",
    "risk_for",
    "structured_patch_to_diff",
    "text_diff",
]

TITLE_MAX = 80
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})


def _short(text: Any, limit: int = TITLE_MAX) -> str:
    """One line, at most ``limit`` characters: titles must fit a tool-call header."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


# ── titles ──────────────────────────────────────────────────────────────────────────────────────────────────────
def _read_title(a: dict[str, Any]) -> str:
    path = a.get("file_path") or "file"
    offset, limit = _int(a.get("offset")), _int(a.get("limit"))
    if limit and limit > 0:
        start = offset or 1
        return f"Read {path} ({start} - {start + limit - 1})"
    if offset:
        return f"Read {path} (from line {offset})"
    return f"Read {path}"


def _bash_title(a: dict[str, Any]) -> str:
    command = a.get("command")
    if command:
        return _short(command)
    return _short(a.get("description") or "Terminal")


def _in_path(prefix: str, a: dict[str, Any], key: str) -> str:
    title = f"{prefix} {a.get(key) or '…'}"
    return f"{title} in {a['path']}" if a.get("path") else title


def _task_title(a: dict[str, Any]) -> str:
    return _short(a.get("description") or a.get("subagent_type") or "Task")


def _multi_edit_title(a: dict[str, Any]) -> str:
    edits = a.get("edits")
    count = len(edits) if isinstance(edits, list) else 0
    suffix = f" ({count} edits)" if count > 1 else ""
    return f"Edit {a.get('file_path') or 'file'}{suffix}"


def _web_search_title(a: dict[str, Any]) -> str:
    return _short(f"Search the web: {a.get('query') or '…'}")


def _ask_title(a: dict[str, Any]) -> str:
    questions = a.get("questions")
    if isinstance(questions, list) and questions and isinstance(questions[0], dict):
        return _short(f"Ask: {questions[0].get('question') or ''}")
    return "Ask a question"


# ── diffs shown before the edit runs ────────────────────────────────────────────────────────────────────────────
def _write_diff(a: dict[str, Any]) -> list[DiffSpec]:
    # Write may overwrite an existing file; the translation reads the old content when it needs it.
    return [DiffSpec(str(a["file_path"]), str(a.get("content") or ""), None)]


def _edit_diff(a: dict[str, Any]) -> list[DiffSpec]:
    return [DiffSpec(str(a["file_path"]), str(a.get("new_string") or ""), str(a.get("old_string") or ""))]


def _multi_edit_diff(a: dict[str, Any]) -> list[DiffSpec]:
    path = str(a["file_path"])
    edits = a.get("edits") if isinstance(a.get("edits"), list) else []
    return [
        DiffSpec(path, str(e.get("new_string") or ""), str(e.get("old_string") or ""))
        for e in edits
        if isinstance(e, dict)
    ]


def _spec(kind: ToolKind, title: Any = None, **kw: Any) -> ToolSpec:
    return ToolSpec(kind=kind, title=title, **kw)


_TOOLS: dict[str, ToolSpec] = {
    # files
    "Read": _spec("read", _read_title, path_args=("file_path",), line_arg="offset"),
    "Write": _spec("edit", "Write {file_path}", path_args=("file_path",), diff=_write_diff),
    "Edit": _spec("edit", "Edit {file_path}", path_args=("file_path",), diff=_edit_diff),
    "MultiEdit": _spec("edit", _multi_edit_title, path_args=("file_path",), diff=_multi_edit_diff),
    "NotebookEdit": _spec("edit", "Edit notebook {notebook_path}", path_args=("notebook_path",)),
    # commands and background shells (BashOutput/KillShell were renamed TaskOutput/TaskStop in 2.1)
    "Bash": _spec("execute", _bash_title, command_arg="command"),
    "BashOutput": _spec("execute", "Read output of shell {bash_id}"),
    "KillShell": _spec("execute", "Stop shell {shell_id}"),
    "KillBash": _spec("execute", "Stop shell {shell_id}"),
    "TaskOutput": _spec("execute", "Read output of task {task_id}"),
    "TaskStop": _spec("execute", "Stop task {task_id}"),
    # search
    "Glob": _spec("search", lambda a: _in_path("Find", a, "pattern"), path_args=("path",)),
    "Grep": _spec("search", lambda a: _in_path("Search", a, "pattern"), path_args=("path",)),
    "LS": _spec("search", "List {path}", path_args=("path",)),
    # network
    "WebFetch": _spec("fetch", "Fetch {url}"),
    "WebSearch": _spec("fetch", _web_search_title),
    # planning and delegation
    "TodoWrite": _spec("think", "Update plan", is_plan=True),
    "TaskCreate": _spec("think", "Add task: {subject}"),
    "TaskUpdate": _spec("think", "Update task {taskId}"),
    "TaskGet": _spec("think", "Get task {taskId}"),
    "TaskList": _spec("think", "List tasks"),
    "Task": _spec("think", _task_title),
    "Agent": _spec("think", _task_title),
    "ExitPlanMode": _spec("switch_mode", "Ready to code?"),
    "EnterPlanMode": _spec("switch_mode", "Plan before coding"),
    "Skill": _spec("other", "Use skill {skill}"),
    "AskUserQuestion": _spec("other", _ask_title),
}


def mcp_parts(name: str) -> tuple[str, str] | None:
    """``mcp__server__tool`` → ``(server, tool)``; None for built-in tools."""
    if not name.startswith("mcp__"):
        return None
    server, sep, tool = name[len("mcp__") :].partition("__")
    if not sep or not server:
        return None
    return server, tool or name


@dataclass(frozen=True)
class ClaudeToolTable(ToolTable):
    """The static table plus MCP tools, whose title ("server: tool") comes from the tool's name, not its input."""

    def lookup(self, name: str) -> ToolSpec:
        spec = self.tools.get(name)
        if spec is not None:
            return spec
        parts = mcp_parts(name)
        if parts is not None:
            title = f"{parts[0]}: {parts[1]}"
            return ToolSpec(kind="other", title=lambda _args, t=title: t)
        return self.default


CLAUDE_TOOLS = ClaudeToolTable(_TOOLS, ToolSpec(kind="other"))


# ── approvals ───────────────────────────────────────────────────────────────────────────────────────────────────
_RISK: dict[str, Literal["low", "medium", "high"]] = {
    "read": "low",
    "search": "low",
    "think": "low",
    "switch_mode": "medium",
    "edit": "medium",
    "move": "medium",
    "other": "medium",
    "delete": "high",
    "execute": "high",  # an arbitrary command can do anything
    "fetch": "high",  # network access (spec 000 §18)
}


def risk_for(name: str) -> Literal["low", "medium", "high"]:
    return _RISK.get(CLAUDE_TOOLS.lookup(name).kind, "medium")


def approval_action(name: str, tool_input: Any) -> str:
    """What the user is asked to allow, as a short sentence: "Run npm test", "Edit /x/y.py", "Call github: search"."""
    spec = CLAUDE_TOOLS.lookup(name)
    if spec is CLAUDE_TOOLS.default:
        return f"Use {name}"
    title = spec.render_title(name, tool_input)
    if spec.kind == "execute" and name == "Bash":
        return f"Run {title}"
    if mcp_parts(name) is not None:
        return f"Call {title}"
    return title


def approval_detail(name: str, tool_input: Any, description: str | None = None) -> str:
    """The full thing being approved: the whole command, the path, the URL — or the input itself."""
    args = tool_input if isinstance(tool_input, dict) else {}
    for key in ("command", "file_path", "notebook_path", "url", "query", "pattern"):
        if args.get(key):
            return str(args[key])
    if description:
        return description
    try:
        text = json.dumps(tool_input, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(tool_input)
    return text if len(text) <= 500 else text[:499] + "…"


# ── diffs after the edit ran ────────────────────────────────────────────────────────────────────────────────────
def structured_patch_to_diff(path: str, hunks: Any, *, new_file: bool = False) -> str:
    """Claude's ``structuredPatch`` (hunks with ``oldStart/oldLines/newStart/newLines/lines``) → unified diff."""
    out = [f"--- {'/dev/null' if new_file else path}", f"+++ {path}"]
    for hunk in hunks if isinstance(hunks, list) else []:
        if not isinstance(hunk, dict):
            continue
        os_, ol, ns, nl = (_int(hunk.get(k)) or 0 for k in ("oldStart", "oldLines", "newStart", "newLines"))
        out.append(f"@@ -{os_},{ol} +{ns},{nl} @@")
        out.extend(str(line) for line in hunk.get("lines") or [])
    return "\n".join(out) + "\n"


def text_diff(path: str, old: str | None, new: str) -> str:
    """Unified diff of two texts (a fallback when Claude sent no ``structuredPatch``)."""
    lines = difflib.unified_diff(
        (old or "").splitlines(),
        new.splitlines(),
        fromfile="/dev/null" if old is None else path,
        tofile=path,
        lineterm="",
    )
    return "\n".join(lines) + "\n"

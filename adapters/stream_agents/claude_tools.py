"""Claude Code's tools: how each looks in the editor, and which richer events each one's call projects to.

Kept apart from ``claude.py`` because it answers a different question ("what is this tool?", not "how does Claude
speak?"). Titles are human and carry absolute paths: making them relative to the session's cwd is a translation
concern (``acp_mux.translation.diffs.relative_title``). Kinds are truthful, since clients auto-approve by kind: anything
that runs a command is ``execute``, anything that changes a file is ``edit``.

Every tool call keeps the generic start → ready → result|error events (the translation shows tool calls from
those alone); the projections add ``shell_*`` (Bash, nested between ready and result), ``file_*`` (after the
result), ``mcp_tool_*``, ``subagent_*`` and ``skill_invoked``.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from acp_mux.core.events.codes import now_ms
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.text.shapes import as_list
from acp_mux.adapters.base import DiffSpec, PerRun, ToolKind, ToolSpec, ToolTable

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent


__all__ = [
    "CLAUDE_TOOLS",
    "ClaudeToolTable",
    "EDIT_TOOLS",
    "SUBAGENT_TOOLS",
    "approval_action",
    "approval_detail",
    "content_text",
    "mcp_parts",
    "risk_for",
    "structured_patch_to_diff",
    "text_diff",
    "tool_ready",
    "tool_result",
    "tool_start",
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
    edits = as_list(a.get("edits"))
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

            def fixed(_args: dict[str, Any]) -> str:
                return title  # a callable, not a str: a string title is a format template, and MCP names may hold {}

            return ToolSpec(kind="other", title=fixed)
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
        return str(description)
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
        lines = hunk.get("lines")
        out.extend(str(line) for line in (lines if isinstance(lines, list) else []))
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


# ── tool call events and their projections ──────────────────────────────────────────────────────────────────────
_TOOL_ERROR_TAG = re.compile(r"</?tool_use_error>")
_EXIT_CODE = re.compile(r"\s*Exit code (-?\d+)[ \t]*\n?")


@dataclass
class _FinishedTools(PerRun):
    """Tool ids whose result was emitted this run: late duplicates of them are ignored."""

    KEY = "claude.finished_tools"
    ids: set[str] = field(default_factory=set)


def _finished(ctx: ParseContext) -> set[str]:
    return _FinishedTools.of(ctx).ids


def tool_start(ctx: ParseContext, tool_id: str, name: str, tool_input: Any = None) -> list[BaseEvent]:
    """Announce a tool call once (streamed or whole); with a complete input it is ready at once."""
    if tool_id in _finished(ctx):
        return []
    if ctx.tool_name(tool_id) is not None:  # already announced (streamed): a complete input makes it ready
        return tool_ready(ctx, tool_id, tool_input) if tool_input is not None else []
    events = ctx.tool_start(tool_id, name, tool_input)  # with an input: start carries it, then ready at once
    return events + _on_ready(ctx, tool_id, name, tool_input) if tool_input is not None else events


def tool_ready(ctx: ParseContext, tool_id: str, tool_input: Any = None) -> list[BaseEvent]:
    """Mark a tool's input complete (parsing the streamed JSON when no input is given), plus its projections."""
    name = ctx.tool_name(tool_id)
    events = ctx.tool_ready(tool_id, tool_input)
    if not events or name is None:
        return events
    return events + _on_ready(ctx, tool_id, name, ctx.tool_input(tool_id))


def _on_ready(ctx: ParseContext, tool_id: str, name: str, tool_input: Any) -> list[BaseEvent]:
    args = tool_input if isinstance(tool_input, dict) else {}
    if name == "Bash":
        return [ev.ShellStartEvent(command=str(args.get("command") or ""), cwd=ctx.cwd)]
    if name in SUBAGENT_TOOLS:
        agent = str(args.get("subagent_type") or name)
        description = str(args.get("description") or "") or None
        prompt = str(args.get("prompt") or "")
        return [ev.SubagentSpawnEvent(subagent_id=tool_id, agent_name=agent, prompt=prompt, description=description)]
    if name == "Skill" and args.get("skill"):
        return [ev.SkillInvokedEvent(skill_name=str(args["skill"]))]
    parts = mcp_parts(name)
    if parts is not None:
        return [ev.McpToolCallStartEvent(tool_call_id=tool_id, server=parts[0], tool_name=parts[1], input=tool_input)]
    return []


def content_text(content: Any) -> str:
    """A tool_result's ``content`` (a string or a list of blocks) as plain text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text") or "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return "" if content is None else str(content)


def tool_result(ctx: ParseContext, tool_id: str, content: Any, is_error: bool, sidecar: Any) -> list[BaseEvent]:
    """A tool's outcome: shell output nested before the result, file/MCP/subagent events after it."""
    name = ctx.tool_name(tool_id)
    if name is None:  # already finished, or a tool we never saw announced
        return []
    events = tool_ready(ctx, tool_id)
    state = ctx.tools[tool_id]
    args = state.input if isinstance(state.input, dict) else {}
    duration = now_ms() - state.started_ms
    side = sidecar if isinstance(sidecar, dict) else {}
    text = content_text(content)
    if name == "Bash":
        events += _shell_output(text, is_error, side, duration)
    if is_error:
        error = _TOOL_ERROR_TAG.sub("", text).strip() or (sidecar if isinstance(sidecar, str) else "") or "failed"
        events += ctx.tool_error(tool_id, error)
    else:
        has_only_text = isinstance(content, str) or (
            isinstance(content, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in content)
        )
        events += ctx.tool_result(tool_id, text if has_only_text else content)
    _finished(ctx).add(tool_id)
    return events + _after_result(tool_id, name, args, text, is_error, side)


def _shell_output(text: str, is_error: bool, side: dict[str, Any], duration: int) -> list[BaseEvent]:
    stdout, stderr = side.get("stdout"), side.get("stderr")
    code = 0
    if is_error:
        match = _EXIT_CODE.match(text)
        code = int(match.group(1)) if match else 1
        if stdout is None and stderr is None:
            stderr = text[match.end() :] if match else text
    elif stdout is None and stderr is None:
        stdout = text
    elif side.get("interrupted"):
        code = -1  # killed (timeout or interrupt)
    events: list[BaseEvent] = []
    if stdout:
        events.append(ev.ShellStdoutDeltaEvent(delta=str(stdout)))
    if stderr:
        events.append(ev.ShellStderrDeltaEvent(delta=str(stderr)))
    return events + [ev.ShellExitEvent(exit_code=code, duration_ms=duration)]


def _after_result(
    tool_id: str, name: str, args: dict[str, Any], text: str, is_error: bool, side: dict[str, Any]
) -> list[BaseEvent]:
    parts = mcp_parts(name)
    if parts is not None:
        server, tool = parts
        if is_error:
            return [ev.McpToolErrorEvent(tool_call_id=tool_id, server=server, tool_name=tool, error=text or "failed")]
        return [ev.McpToolResultEvent(tool_call_id=tool_id, server=server, tool_name=tool, output=text)]
    if name in SUBAGENT_TOOLS:
        agent = str(args.get("subagent_type") or name)
        if is_error:
            return [ev.SubagentErrorEvent(subagent_id=tool_id, agent_name=agent, error=text or "failed")]
        return [ev.SubagentResultEvent(subagent_id=tool_id, agent_name=agent, summary=text)]
    if is_error:
        return []
    path = str(side.get("filePath") or args.get("file_path") or args.get("notebook_path") or "")
    if not path:
        return []
    if name == "Read":
        return [ev.FileReadEvent(path=path)]
    if name == "Write":
        body = str(side.get("content") if side.get("content") is not None else args.get("content") or "")
        size = len(body.encode("utf-8"))
        if side.get("type") == "create":
            return [ev.FileCreateEvent(path=path, byte_count=size)]
        events: list[BaseEvent] = [ev.FileWriteEvent(path=path, byte_count=size)]
        if side.get("structuredPatch"):
            events.append(ev.FilePatchEvent(path=path, diff=structured_patch_to_diff(path, side["structuredPatch"])))
        return events
    if name in ("Edit", "MultiEdit"):
        if side.get("structuredPatch"):
            return [ev.FilePatchEvent(path=path, diff=structured_patch_to_diff(path, side["structuredPatch"]))]
        edits = as_list(args.get("edits")) if name == "MultiEdit" else [args]
        diff = "".join(
            text_diff(path, str(e.get("old_string") or ""), str(e.get("new_string") or ""))
            for e in edits
            if isinstance(e, dict)
        )
        return [ev.FilePatchEvent(path=path, diff=diff)]
    if name == "NotebookEdit":
        return [ev.FileWriteEvent(path=path, byte_count=len(str(args.get("new_source") or "").encode("utf-8")))]
    return []

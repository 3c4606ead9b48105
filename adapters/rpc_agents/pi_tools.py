"""pi's tools: how each looks in the editor, and the tool events its ``tool_execution_*`` lines become.

pi's built-in tools (``pi --help``; schemas in ``dist/core/tools``): ``read{path,offset,limit}``,
``bash{command,timeout}``, ``edit{path,edits:[{oldText,newText}]}`` (legacy top-level ``oldText``/``newText`` still
accepted), ``write{path,content}``, and the read-only ``grep{pattern,path,glob,…}``, ``find{pattern,path}``,
``ls{path}``. Paths may be relative to the session's folder. Extensions may add tools; an unknown tool is shown as
``other`` under its own name.

Lifecycle of one call in rpc mode (captures in ``tests/fixtures/pi``): ``toolcall_start`` (announce) →
``toolcall_end`` (input complete) → ``tool_execution_start`` → acp-mux's permission question (``extension_ui_request``)
→ ``tool_execution_update`` (bash: the output so far, *accumulated*, not a delta) → ``tool_execution_end``
(``result.content``, ``isError``; a call the person rejected ends ``isError`` with the extension's reason). A bash
call is shown running (``shell_start``) only once pi reports output or a result that is not a refusal, so a
rejected command never looks as if it ran.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp_mux.adapters.base import DiffSpec, PerRun, ToolSpec, ToolTable
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent


READ_ONLY_TOOLS = frozenset({"read", "grep", "find", "ls"})
EDIT_TOOLS = frozenset({"write", "edit"})
_EXIT_CODE = re.compile(r"(?:exited with|exit) code (-?\d+)", re.I)


@dataclass
class _Shells(PerRun):
    """Bash calls known to run this run: tool id → the output shown so far (pi resends all of it each time)."""

    KEY = "pi.shells"
    shown: dict[str, str] = field(default_factory=dict)


def _short(text: Any, limit: int = 80) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _edit_diff(a: dict[str, Any]) -> list[DiffSpec]:
    path = str(a["path"])
    edits = a.get("edits")
    if isinstance(edits, list):
        return [
            DiffSpec(path, str(e.get("newText") or ""), str(e.get("oldText") or ""))
            for e in edits
            if isinstance(e, dict)
        ]
    return [DiffSpec(path, str(a.get("newText") or ""), str(a.get("oldText") or ""))]


def _write_diff(a: dict[str, Any]) -> list[DiffSpec]:
    return [DiffSpec(str(a["path"]), str(a.get("content") or ""), None)]  # the translation reads the old text


def _read_title(a: dict[str, Any]) -> str:
    path = a.get("path") or "file"
    offset, limit = a.get("offset"), a.get("limit")
    if isinstance(offset, int) and isinstance(limit, int) and limit > 0:
        return f"Read {path} ({offset} - {offset + limit - 1})"
    return f"Read {path}"


def _search_title(verb: str) -> Any:
    def title(a: dict[str, Any]) -> str:
        where = f" in {a['path']}" if isinstance(a.get("path"), str) and a["path"] else ""
        return _short(f"{verb} {a.get('pattern') or '…'}{where}")

    return title


PI_TOOLS = ToolTable(
    {
        "read": ToolSpec("read", _read_title, path_args=("path",), line_arg="offset"),
        "bash": ToolSpec("execute", lambda a: _short(a.get("command") or "Terminal"), command_arg="command"),
        "edit": ToolSpec("edit", "Edit {path}", path_args=("path",), diff=_edit_diff),
        "write": ToolSpec("edit", "Write {path}", path_args=("path",), diff=_write_diff),
        "grep": ToolSpec("search", _search_title("grep"), path_args=("path",)),
        "find": ToolSpec("search", _search_title("find"), path_args=("path",)),
        "ls": ToolSpec("read", "List {path}", path_args=("path",)),
    },
    default=ToolSpec("other"),
)


# ── tool events ────────────────────────────────────────────────────────────────────────────────────────────────
def announce(ctx: ParseContext, tool_id: str, name: str, tool_input: Any = None) -> list[BaseEvent]:
    """Show a call (``toolcall_start``, or later lines for a call never streamed); with its input it is ready."""
    if not tool_id:
        return []
    if ctx.tool_name(tool_id) is not None:
        return ctx.tool_ready(tool_id, tool_input) if tool_input is not None else []
    return ctx.tool_start(tool_id, name or "tool", tool_input)


def execution_update(ctx: ParseContext, tool_id: str, name: str, partial: Any) -> list[BaseEvent]:
    """``tool_execution_update``: a command shows its new output; any other tool shows that it runs."""
    if ctx.tool_name(tool_id) is None:
        return []
    if name != "bash":
        return [ev.ToolUpdateEvent(tool_call_id=tool_id, running=True)]
    return _shell_begin(ctx, tool_id) + _shell_output(ctx, tool_id, content_text(partial))


def execution_end(
    ctx: ParseContext, tool_id: str, name: str, result: Any, is_error: bool, refused: bool
) -> list[BaseEvent]:
    """``tool_execution_end``: the call's outcome; a command closes its output with its exit code first.

    ``refused``: the person (or the mode) said no, so nothing ran."""
    if ctx.tool_name(tool_id) is None:
        return []
    text = content_text(result)
    events: list[BaseEvent] = []
    if name == "bash" and not refused:
        events += _shell_begin(ctx, tool_id) + _shell_output(ctx, tool_id, text, final=True)
        match = _EXIT_CODE.search(text) if is_error else None
        events.append(ev.ShellExitEvent(exit_code=int(match.group(1)) if match else (1 if is_error else 0)))
    _Shells.of(ctx).shown.pop(tool_id, None)
    if is_error:
        return events + ctx.tool_error(tool_id, text or "the tool failed")
    details = result.get("details") if isinstance(result, dict) else None
    output: Any = text
    if isinstance(details, dict) and isinstance(details.get("diff"), str):
        output = {"text": text, "diff": details["diff"]}
    return events + ctx.tool_result(tool_id, output)


def _shell_begin(ctx: ParseContext, tool_id: str) -> list[BaseEvent]:
    shells = _Shells.of(ctx).shown
    if tool_id in shells:
        return []
    shells[tool_id] = ""
    args = ctx.tool_input(tool_id)
    command = args.get("command") if isinstance(args, dict) else None
    return [ev.ShellStartEvent(command=str(command or ""), cwd=ctx.cwd)]


def _shell_output(ctx: ParseContext, tool_id: str, text: str, final: bool = False) -> list[BaseEvent]:
    """pi sends the output so far each time (and keeps only its tail when long): show only what is new."""
    shells = _Shells.of(ctx).shown
    shown = shells.get(tool_id, "")
    if text.startswith(shown):
        new = text[len(shown) :]
    elif final:
        new = ""  # the final text is the same output, trimmed or annotated: it was shown as it came
    else:
        new = text  # pi dropped the head of a long output: what it kept is new to the editor
    shells[tool_id] = text
    return [ev.ShellStdoutDeltaEvent(delta=new)] if new else []


def content_text(value: Any) -> str:
    """The text of a pi tool result or partial result (``{content:[{type:"text",text}…]}``)."""
    content = value.get("content") if isinstance(value, dict) else value
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text") or "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""

"""Codex's shared vocabulary, and the fallback transport: one ``codex exec --json`` process per turn.

This module holds what both Codex transports agree on (modes, the tool table, error classification, how a
command/patch/plan item becomes normalized events) so ``codex.py`` can stay about the app-server JSON-RPC protocol,
plus :class:`CodexExecAdapter` for when ``codex app-server`` is unusable.

Why a fallback at all: ``exec --json`` is the oldest, most stable headless interface of the Codex CLI. It is also
much poorer (captures ``codex-exec-*.jsonl``, codex 0.169.0): no text/reasoning deltas (whole items only), no
command output streaming, file changes without diff text, and no approvals at all (exec has no ``-a``; approval is
effectively ``never``), so the mode only chooses the sandbox. Some failures appear only on stderr (a read-only
sandbox rejecting ``apply_patch``), which :meth:`CodexExecAdapter.stderr_events` surfaces as warnings. Usage comes
only in ``turn.completed`` and is the thread's running total, so a resumed thread reports earlier turns again.

Invocation facts: ``codex -c sandbox_mode="…" exec --json --skip-git-repo-check [-m MODEL] [EXTRA] [resume] --
[ID] PROMPT``. ``--json``/``-m``/``--skip-git-repo-check`` are global exec flags, but ``--sandbox`` is not accepted
after ``resume``, so the sandbox goes in as a root ``-c sandbox_mode`` override, which works for both forms. codex
exec also reads stdin until EOF whenever stdin is not a TTY ("Reading additional input from stdin..."), and the
runtime keeps the child's stdin pipe open, so the command runs under ``/bin/sh -c 'exec "$0" "$@" </dev/null'``.

Error convention (same as ``claude.py``): a recoverable error is emitted just before its turn's ``turn_end`` so the
next prompt still works; a terminal one (``auth_error``, ``context_exceeded``) closes what is open and ends the
run with no ``turn_end`` after it (the runtime would drop it anyway).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.codes import ErrorCode
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.events.limit_times import upcoming_reset
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import ExitStatus, SpawnSpec
from acp_mux.core.run.prompt import file_uri_to_path
from acp_mux.core.text.shapes import as_dict, as_int, as_list, as_str
from acp_mux.adapters.base import (
    AgentAdapter,
    AgentCapabilities,
    DiffSpec,
    ModeInfo,
    PerRun,
    ToolSpec,
    ToolTable,
    try_json,
)
from acp_mux.adapters.json_rpc_peer import JsonRpcPeer
from acp_mux.adapters.mcp import codex_exec_mcp

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent


AUTH_GUIDANCE = "Set OPENAI_API_KEY or run `codex login`"

# codex-acp's approval presets (zed-industries/codex-acp): mode id → (approvalPolicy, sandbox mode).
MODES = (
    ModeInfo("read-only", "Read Only", "Codex can read files; edits and commands outside the sandbox need approval."),
    ModeInfo("auto", "Auto", "Codex can edit and run commands in the workspace; it asks before leaving it."),
    ModeInfo("full-access", "Full Access", "Codex can edit files and run commands anywhere, without asking."),
)
MODE_POLICIES: dict[str, tuple[str, str]] = {
    "read-only": ("on-request", "read-only"),
    "auto": ("on-request", "workspace-write"),
    "full-access": ("never", "danger-full-access"),
}
_MODE_ALIASES = {"default": "auto", "agent": "auto", "agent-full-access": "full-access", "readonly": "read-only"}
SANDBOX_POLICIES: dict[str, dict[str, Any]] = {  # turn/start takes the tagged-object form
    "read-only": {"type": "readOnly"},
    "workspace-write": {"type": "workspaceWrite"},
    "danger-full-access": {"type": "dangerFullAccess"},
}
_RETRY_RE = re.compile(r"(\d+)\s*/\s*(\d+)")
_AUTH_RE = re.compile(r"\b401\b|unauthori[sz]ed|invalid[_ ]api[_ ]key|incorrect api key", re.I)
# codexErrorInfo kinds that end a turn at a limit codex will not retry past (codex-rs app-server-protocol v2)
_QUOTA_KINDS = frozenset({"usageLimitExceeded", "rateLimitExceeded"})
_RATE_RE = re.compile(r"\b429\b|too many requests|rate[_ ]limit|usage limit|quota", re.I)
_CONTEXT_RE = re.compile(r"context[_ ]window|context_length_exceeded|maximum context length", re.I)


@dataclass
class CodexRun(PerRun):
    """What one Codex run remembers between lines, for either transport (``CodexRun.of(ctx)``)."""

    KEY = "codex"

    # both transports
    streamed: set[str] = field(default_factory=set)  # item ids whose text/output arrived as deltas
    shell_started: set[str] = field(default_factory=set)  # command items whose shell_start was emitted
    retries: int = 0  # codex's own reconnect attempts in this turn
    unreachable: str = ""  # the turn's model request got no answer at all (the turn is being interrupted): why
    context: tuple[int, int] = (0, 0)  # (tokens used, context window) from the last usage report
    plan_seq: int = 0  # plan updates so far (each becomes its own update_plan tool call)
    # app-server
    peer: JsonRpcPeer = field(default_factory=JsonRpcPeer)
    mode: str | None = None  # the approval preset (a MODES id)
    mode_dirty: bool = False  # changed since the last turn/start, which carries it (sticky in codex)
    thread: str | None = None
    turn: str | None = None  # the running turn's id, once known
    turn_requested: bool = False  # turn/start sent, its turn not completed yet
    turn_done: str | None = None  # the last completed turn's id (its turn/start response may trail)
    interrupt_pending: bool = False  # interrupt once the requested turn's id is known
    turn_error: dict[str, Any] | None = None  # an in-turn error; turn/completed{failed} reports it
    patch_output: dict[str, str] = field(default_factory=dict)  # fileChange item id → codex's output about it
    diff: str = ""  # the turn's aggregated unified diff (turn/diff/updated)
    usage_total: int | None = None  # the thread's total tokens at the last usage report (repeats are skipped)
    limit_resets_at: int | None = None  # when a used-up window resets (account/rateLimits/updated, epoch s)
    children: dict[str, str] = field(default_factory=dict)  # a subagent's thread id → the call that spawned it
    child_turns: dict[str, str] = field(default_factory=dict)  # a running subagent's thread id → its turn id
    child_said: dict[str, str] = field(default_factory=dict)  # a subagent's thread id → its last words so far
    child_tools: dict[str, str] = field(default_factory=dict)  # a subagent's tool call id → its spawn call id
    child_usage: dict[str, int] = field(default_factory=dict)  # a subagent's thread id → its total tokens so far
    # exec
    resuming: bool = False
    exec_error: str | None = None  # an error line; turn.failed repeats it
    failed: bool = False  # turn.failed arrived: the exit code 1 that follows is not a crash


def resolve_mode(mode: str | None) -> str | None:
    """A known mode id for ``mode`` (None → the default ``auto``), or None when it is unknown."""
    if mode is None:
        return "auto"
    mode = _MODE_ALIASES.get(mode, mode)
    return mode if mode in MODE_POLICIES else None


# ── helpers shared with codex.py ─────────────────────────────────────────────────────────────────────────────


def _error_info(info: Any) -> tuple[str, int | None]:
    """``codexErrorInfo`` is ``"unauthorized"`` or ``{"httpConnectionFailed": {"httpStatusCode": 401}}``."""
    if isinstance(info, str):
        return info, None
    if isinstance(info, dict) and info:
        name, body = next(iter(info.items()))
        return str(name), as_int(as_dict(body).get("httpStatusCode"))
    return "", None


# codex's words when the connection to the model failed itself (reqwest: nothing listens, no route, no name)
_NO_ANSWER_RE = re.compile(
    r"error sending request|connection (?:failed|refused|reset)|tcp connect error|dns error|failed to lookup address",
    re.I,
)


def no_answer(message: str, details: str, info: Any) -> bool:
    """Whether a retried error of codex says its model request got no answer at all (no HTTP status: the
    connection failed), e.g. ``additionalDetails`` "Connection failed: error sending request"."""
    _name, status = _error_info(info)
    return status is None and bool(_NO_ANSWER_RE.search(f"{details} {message}"))


def classify_failure(message: str, info: Any = None, ctx: ParseContext | None = None) -> list[BaseEvent]:
    """One error event for a failed turn: auth, rate limit and context overflow get their own types."""
    name, status = _error_info(info)
    if name == "unauthorized" or status == 401 or _AUTH_RE.search(message):
        return [ev.AuthErrorEvent(message=message or "not authenticated", guidance=AUTH_GUIDANCE)]
    if name in _QUOTA_KINDS:  # codex will not retry past these (a retried one came as willRetry: a retry)
        resets_at = CodexRun.of(ctx).limit_resets_at if ctx else None
        return [ev.RateLimitErrorEvent(message=message or "usage limit reached", kind="quota", resets_at=resets_at)]
    if status == 429 or _RATE_RE.search(message):
        return [ev.RateLimitErrorEvent(message=message or "rate limited")]
    if name == "contextWindowExceeded" or _CONTEXT_RE.search(message):
        used, size = CodexRun.of(ctx).context if ctx else (0, 0)
        return [ev.ContextExceededEvent(used_tokens=used, max_tokens=size)]
    return [ev.ErrorEvent(code=ErrorCode.AGENT_ERROR, message=message or "codex turn failed", recoverable=True)]


def limit_resets_at(rate_limits: Any) -> int | None:
    """From an ``account/rateLimits/updated`` snapshot: when the used-up window (``usedPercent`` ≥ 100) resets,
    the later one if both are (``primary``/``secondary`` ``resetsAt``, epoch seconds); None while none is used up."""
    resets = [
        upcoming_reset(window.get("resetsAt"))  # codex says seconds; any other unit or nonsense is input too
        for window in (as_dict(as_dict(rate_limits).get(key)) for key in ("primary", "secondary"))
        if isinstance(window.get("usedPercent"), (int, float)) and window["usedPercent"] >= 100
    ]
    return max((r for r in resets if r), default=None)


def end_failed_turn(ctx: ParseContext, errors: list[BaseEvent], tool_error: str = "turn failed") -> list[BaseEvent]:
    """Close a failed turn: recoverable errors just before ``turn_end``, terminal ones instead of it."""
    events = ctx.close_open(tool_error)
    if any(ev.is_terminal_event(e) for e in errors):
        ctx.in_turn = False
        return events + errors
    return events + errors + ctx.end_turn()


def request_usage(last: dict[str, Any], context_window: int | None = None) -> BaseEvent:
    """One model request's usage from app-server's ``tokenUsage.last`` (input includes cached and cache writes,
    output reasoning; ``totalTokens`` codex's own total), with the model's context window where codex says it."""
    return ev.TokenUsageEvent(
        input_tokens=as_int(last.get("inputTokens")) or 0,
        output_tokens=as_int(last.get("outputTokens")) or 0,
        thinking_tokens=as_int(last.get("reasoningOutputTokens")),
        cached_tokens=as_int(last.get("cachedInputTokens")),
        cache_write_tokens=as_int(last.get("cacheWriteInputTokens")),
        total_tokens=as_int(last.get("totalTokens")),
        context_window=context_window,
    )


def retry_events(message: str, ctx: ParseContext, info: Any = None, details: str = "") -> list[BaseEvent]:
    """A transient error codex retries by itself ("Reconnecting... 2/5"): ``rate_limited``? + ``retry``.

    What the failed attempt streamed is closed first, so the retry's text starts a block of its own instead of
    being glued to the partial one (codex starts a new message item for the retry and never completes the old one).
    The reason is what went wrong (codex's ``additionalDetails``, else its error kind), not "Reconnecting...".
    """
    name, status = _error_info(info)
    events: list[BaseEvent] = ctx.end_thinking() + ctx.end_text()
    if status == 429 or name in _QUOTA_KINDS or _RATE_RE.search(message):
        events.append(ev.RateLimitedEvent())
    match = _RETRY_RE.search(message)
    run = CodexRun.of(ctx)
    run.retries += 1
    count = run.retries
    attempt, limit = (int(match.group(1)), int(match.group(2))) if match else (count, 0)
    events.append(
        ev.RetryEvent(attempt=attempt, max_attempts=limit, reason=_retry_reason(message, name, status, details))
    )
    return events


def _retry_reason(message: str, name: str, status: int | None, details: str) -> str:
    if details:
        return details
    own = _RETRY_RE.sub("", message.replace("Reconnecting...", "")).strip(" ()")
    if own:
        return own
    if name:
        words = re.sub(r"(?<!^)(?=[A-Z])", " ", name).lower()  # responseStreamDisconnected → response stream …
        return f"{words} (HTTP {status})" if status else words
    return message or "the model request failed"


def normalize_changes(changes: Any) -> list[dict[str, Any]]:
    """File changes as ``[{path, kind: add|delete|update, diff?, move_path?}]`` from any codex shape: app-server
    (``kind: {type, move_path}``, ``diff``), exec (``kind: "add"``), legacy v1 (``type``, ``content``/``unified_diff``)
    or an already normalized list."""
    out: list[dict[str, Any]] = []
    for item in as_list(changes):
        change = as_dict(item)
        kind = change.get("kind", change.get("type"))
        move_path = change.get("move_path")
        if isinstance(kind, dict):
            move_path = kind.get("move_path") or kind.get("movePath") or move_path
            kind = kind.get("type")
        entry: dict[str, Any] = {"path": as_str(change.get("path")), "kind": as_str(kind) or "update"}
        diff = next((change[k] for k in ("diff", "unified_diff", "content") if isinstance(change.get(k), str)), None)
        if diff is not None:
            entry["diff"] = diff
        if isinstance(move_path, str) and move_path:
            entry["move_path"] = move_path
        out.append(entry)
    return out


def changes_summary(changes: list[dict[str, Any]]) -> str:
    verbs = {"add": "added", "delete": "deleted", "update": "updated"}
    return "\n".join(f"{verbs.get(c['kind'], c['kind'])} {c.get('move_path') or c['path']}" for c in changes)


def file_events(changes: list[dict[str, Any]]) -> list[BaseEvent]:
    """What a completed patch did to each file (exec mode has no diff text: updates become ``file_write``)."""
    events: list[BaseEvent] = []
    for c in changes:
        path, diff = c.get("move_path") or c["path"], c.get("diff")
        if c["kind"] == "add":
            events.append(ev.FileCreateEvent(path=path, byte_count=len((diff or "").encode())))
        elif c["kind"] == "delete":
            events.append(ev.FileDeleteEvent(path=path))
        elif diff:
            events.append(ev.FilePatchEvent(path=path, diff=diff))
        else:
            events.append(ev.FileWriteEvent(path=path))
    return events


def plan_tool(ctx: ParseContext, tool_id: str, steps: list[dict[str, str]], explanation: Any = None) -> list[BaseEvent]:
    """A plan update as a complete ``update_plan`` tool call (the is_plan ToolSpec makes it an ACP plan)."""
    tool_input: dict[str, Any] = {"plan": steps}
    if isinstance(explanation, str) and explanation:
        tool_input["explanation"] = explanation
    return ctx.tool_start(tool_id, "update_plan", tool_input) + ctx.tool_result(tool_id, "Plan updated")


def shell_begin(ctx: ParseContext, item_id: str) -> list[BaseEvent]:
    """``shell_start`` for a command that is now known to run (once per item)."""
    started = CodexRun.of(ctx).shell_started
    if item_id in started:
        return []
    started.add(item_id)
    tool_input = ctx.tool_input(item_id) or {}
    return [ev.ShellStartEvent(command=as_str(tool_input.get("command")), cwd=as_str(tool_input.get("cwd")) or ctx.cwd)]


def shell_end(
    ctx: ParseContext, item_id: str, status: str, output: str, exit_code: int | None, duration_ms: int | None
) -> list[BaseEvent]:
    """Close a command item: output (unless it streamed), ``shell_exit``, then the tool's result or error."""
    if status == "declined":
        return ctx.tool_error(item_id, "declined by user")
    events = shell_begin(ctx, item_id)
    if output and item_id not in CodexRun.of(ctx).streamed:
        events.append(ev.ShellStdoutDeltaEvent(delta=output))
    code = exit_code if exit_code is not None else (0 if status == "completed" else -1)
    events.append(ev.ShellExitEvent(exit_code=code, duration_ms=duration_ms or 0))
    if status == "completed" and code == 0:
        return events + ctx.tool_result(item_id, output)
    error = f"{output.rstrip()}\n(exit code {code})" if output.strip() else f"command failed (exit code {code})"
    return events + ctx.tool_error(item_id, error)


# ── tool table ─────────────────────────────────────────────────────────────────────────────────────────────────
def _hunks(diff: str) -> list[tuple[str, str]]:
    """(old, new) text of each ``@@`` hunk of a unified diff; empty when the text has no hunks."""
    hunks: list[tuple[list[str], list[str]]] = []
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@"):
            hunks.append(([], []))
        elif hunks and not line.startswith("\\"):
            old, new = hunks[-1]
            tag, body = line[:1], line[1:]
            if tag in (" ", ""):
                old.append(body)
                new.append(body)
            elif tag == "-":
                old.append(body)
            elif tag == "+":
                new.append(body)
    return [("".join(o), "".join(n)) for o, n in hunks]


def patch_diffs(args: dict[str, Any]) -> list[DiffSpec]:
    """Per-change diffs for an ``apply_patch`` input: add → new file, delete → emptied, update → one per hunk."""
    specs: list[DiffSpec] = []
    for c in normalize_changes(args.get("changes")):
        path, diff = c.get("move_path") or c["path"], c.get("diff")
        if diff is None:
            continue
        if c["kind"] == "add":
            specs.append(DiffSpec(path=path, new_text=diff, old_text=None))
        elif c["kind"] == "delete":
            specs.append(DiffSpec(path=path, new_text="", old_text=diff))
        else:  # text without hunks cannot be shown as old → new truthfully: the call keeps its raw input only
            specs += [DiffSpec(path=path, new_text=n, old_text=o) for o, n in _hunks(diff)]
    return specs


def patch_paths(args: dict[str, Any]) -> list[str]:
    """The files an ``apply_patch``/file-change input touches (its destination when a file moves)."""
    return [c.get("move_path") or c["path"] for c in normalize_changes(args.get("changes"))]


def _patch_title(args: dict[str, Any]) -> str:
    paths = patch_paths(args)
    return "Edit " + ", ".join(paths) if paths else "Edit files"


def _search_title(args: dict[str, Any]) -> str:
    query = args.get("query")
    return f"Search the web: {query}" if query else "Searching the web"


_SHELL = ToolSpec(kind="execute", title=lambda a: as_str(a.get("command")) or "Run command", command_arg="command")
_PATCH = ToolSpec(kind="edit", title=_patch_title, diff=patch_diffs, paths=patch_paths)
CODEX_TOOLS = ToolTable(
    tools={
        "shell": _SHELL,
        "exec_command": _SHELL,
        "apply_patch": _PATCH,
        "edit": _PATCH,
        "update_plan": ToolSpec(kind="think", title="Update plan", is_plan=True),
        "web_search": ToolSpec(kind="fetch", title=_search_title),
        "view_image": ToolSpec(kind="read", title="View image {path}", path_args=("path",)),
        "spawn_agent": ToolSpec(kind="think", title="Subagent {task_name}"),  # multi-agent: a child thread
    },
    default=ToolSpec(kind="other"),  # MCP tools arrive as mcp__<server>__<tool>
)


# ── the exec adapter ─────────────────────────────────────────────────────────────────────────────────────────
_STDIN_FROM_DEV_NULL = 'exec "$0" "$@" </dev/null'
_STDERR_ERROR = re.compile(r"\bERROR\b.*(patch rejected|unsupported custom tool call|blocked by|sandbox)")


class CodexExecAdapter(AgentAdapter):
    name = "codex"
    capabilities = AgentCapabilities(persistent_process=False)  # one process per turn
    tool_table = CODEX_TOOLS
    modes = MODES
    default_mode = "auto"
    models = ("gpt-5.5", "gpt-5.5-codex", "gpt-5.2-codex")

    def start(self, options: RunOptions, ctx: ParseContext) -> None:
        CodexRun.of(ctx).resuming = bool(options.session_id)  # nothing to send: the prompt is on the argv

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        codex = self.resolve_binary(options.binary, options.env)
        _, sandbox = MODE_POLICIES[resolve_mode(options.mode) or "auto"]
        mcp_args, mcp_env, _ = codex_exec_mcp(options.mcp_servers)  # secrets in the environment, never in args
        args = ["-c", f'sandbox_mode="{sandbox}"', *mcp_args, "exec", "--json", "--skip-git-repo-check"]
        if options.model:
            args += ["-m", options.model]
        args += options.extra_args
        prompt = options.prompt
        images: list[str] = []  # exec takes image files only: embedded image data cannot be passed
        for image in prompt.images if prompt else ():
            path = file_uri_to_path(image.uri) if image.uri else None
            if path:
                images += ["-i", path]
        if options.session_id:  # resume has its own --image option, so images go after it
            args += ["resume", *images, "--", options.session_id]
        else:
            args += [*images, "--"]
        args.append(prompt.as_text() if prompt else "")
        env = options.env
        if mcp_env:
            env = {**(os.environ if env is None else env), **mcp_env}
        return SpawnSpec(command="/bin/sh", args=["-c", _STDIN_FROM_DEV_NULL, codex, *args], env=env, cwd=options.cwd)

    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        msg = try_json(line)
        if msg is None:
            return []
        try:
            return self._parse(msg, ctx)
        except Exception as exc:  # malformed lines never take the run down
            return [ev.DebugEvent(level="warn", message=f"codex exec: could not handle {line[:200]!r}: {exc!r}")]

    def _parse(self, msg: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        kind, run = as_str(msg.get("type")), CodexRun.of(ctx)
        if kind == "thread.started":
            thread_id = as_str(msg.get("thread_id"))
            return ctx.session_start(thread_id, resumed=run.resuming) if thread_id else []
        if kind == "turn.started":
            return ctx.begin_turn()
        if kind == "turn.completed":
            return self._usage(as_dict(msg.get("usage"))) + ctx.end_turn()
        if kind == "turn.failed":
            message = as_str(as_dict(msg.get("error")).get("message")) or (run.exec_error or "")
            run.exec_error = None
            run.failed = True
            return end_failed_turn(ctx, classify_failure(message, None, ctx))
        if kind == "error":
            message = as_str(msg.get("message"))
            if message.startswith("Reconnecting"):
                return retry_events(message, ctx)
            run.exec_error = message  # turn.failed repeats it; report it once, there
            return []
        if kind in ("item.started", "item.updated", "item.completed"):
            return self._item(kind, as_dict(msg.get("item")), ctx)
        return []

    def _usage(self, usage: dict[str, Any]) -> list[BaseEvent]:
        if not usage:
            return []
        return [
            ev.TokenUsageEvent(
                input_tokens=as_int(usage.get("input_tokens")) or 0,
                output_tokens=as_int(usage.get("output_tokens")) or 0,
                thinking_tokens=as_int(usage.get("reasoning_output_tokens")),
                cached_tokens=as_int(usage.get("cached_input_tokens")),
            )
        ]

    def _item(self, phase: str, item: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        kind, item_id, status = as_str(item.get("type")), as_str(item.get("id")), as_str(item.get("status"))
        done = phase == "item.completed"
        if kind == "agent_message":
            return ctx.text_delta(as_str(item.get("text"))) + ctx.end_text() if done else []
        if kind == "reasoning":
            return ctx.thinking_delta(as_str(item.get("text"))) + ctx.end_thinking() if done else []
        if kind == "command_execution":
            tool_input = {"command": as_str(item.get("command")), "cwd": ctx.cwd}
            events = ctx.tool_start(item_id, "shell", tool_input)
            if not done:  # exec never asks: the command runs now
                return events + shell_begin(ctx, item_id)
            output = as_str(item.get("aggregated_output"))
            return events + shell_end(ctx, item_id, status, output, as_int(item.get("exit_code")), None)
        if kind == "file_change":
            changes = normalize_changes(item.get("changes"))
            events = ctx.tool_start(item_id, "apply_patch", {"changes": changes})  # [] when already announced
            if not done:
                return events
            if status == "declined":
                return events + ctx.tool_error(item_id, "declined by user")
            if status == "failed":
                return events + ctx.tool_error(item_id, "the patch could not be applied")
            return events + ctx.tool_result(item_id, changes_summary(changes)) + file_events(changes)
        if kind == "mcp_tool_call":
            name = f"mcp__{as_str(item.get('server'))}__{as_str(item.get('tool'))}"
            args = item.get("arguments")
            events = ctx.tool_start(item_id, name, args if args is not None else {})
            if not done:
                return events
            error = item.get("error")
            if status == "failed" or error:
                return events + ctx.tool_error(item_id, as_str(as_dict(error).get("message")) or "MCP tool call failed")
            return events + ctx.tool_result(item_id, item.get("result"))
        if kind == "web_search":
            events = ctx.tool_start(item_id, "web_search", {"query": as_str(item.get("query"))})
            return events + (ctx.tool_result(item_id, item.get("action") or as_str(item.get("query"))) if done else [])
        if kind == "todo_list":
            run = CodexRun.of(ctx)
            run.plan_seq += 1
            seq = run.plan_seq
            steps = [
                {
                    "step": as_str(as_dict(t).get("text")),
                    "status": "completed" if as_dict(t).get("completed") else "pending",
                }
                for t in item.get("items") or ()
            ]
            return plan_tool(ctx, f"{item_id}-plan-{seq}", steps)
        if kind == "error" and done:  # non-fatal notices, e.g. unknown model metadata
            return [ev.DebugEvent(level="warn", message=f"codex: {as_str(item.get('message'))}")]
        return []

    def finish(self, status: ExitStatus, ctx: ParseContext) -> Iterable[BaseEvent]:
        run = CodexRun.of(ctx)
        if run.failed:  # turn.failed already told the story; exit code 1 is not a crash
            return ctx.end_turn(tool_error="the agent exited")
        message, run.exec_error = run.exec_error, None
        if message and status.code != 0:  # died after an error line but before turn.failed
            run.failed = True
            return end_failed_turn(ctx, classify_failure(message, None, ctx), "the agent exited")
        return ctx.finish(status)

    def stderr_events(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        if _STDERR_ERROR.search(line):
            detail = line.split("error=", 1)[-1].strip()
            return [ev.DebugEvent(level="warn", message=f"codex: {detail}")]
        return ()

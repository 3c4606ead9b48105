"""OpenAI Codex CLI through ``codex app-server`` (JSON-RPC v2 over stdio): one persistent process per session.

Why app-server and not ``codex exec --json``: only app-server streams text/reasoning/command-output deltas, carries
unified diffs for file changes, and asks the client before running commands or applying patches
(``item/commandExecution/requestApproval``, ``item/fileChange/requestApproval``). ``codex_exec.py`` is the fallback.

Protocol facts this module relies on (captures ``codex-appserver-untrusted-{accept,decline}.jsonl``, codex 0.169.0,
and ``codex-rs/app-server-protocol``): messages omit ``"jsonrpc"``; the handshake is ``initialize`` → (response) →
notification ``initialized``; ``thread/start|resume`` answer ``{thread:{id}}``; ``turn/start{threadId,input}``
answers ``{turn:{id}}``, then ``turn/started`` … ``item/*`` … ``turn/completed{turn:{status,error}}``; approvals are
server→client requests answered ``{decision: accept|acceptForSession|decline|cancel}`` (legacy
``execCommandApproval``/``applyPatchApproval``: ``approved|approved_for_session|denied|abort``); interrupt is
``turn/interrupt{threadId,turnId}``; per-turn ``approvalPolicy``/``sandboxPolicy`` overrides stick for later turns.

Mapping decisions worth knowing:
- ``shell_start`` is emitted once a command is known to run (first output delta, or completion that is not
  ``declined``), so a declined command never leaves an unpaired ``shell_start``; ``tool_call_start`` is immediate.
- ``turn/plan/updated`` becomes a synthetic ``update_plan`` tool call (start+ready+result) whose input is codex's
  own ``update_plan`` argument shape ``{plan:[{step,status}], explanation}`` with snake_case statuses; its ToolSpec
  has ``is_plan`` so translation can turn it into an ACP plan.
- ``token_usage`` carries the *last request's* usage (the runtime sums these events); ``input_tokens`` is codex's
  number, which includes ``cached_tokens`` (OpenAI convention), and ``output_tokens`` includes reasoning tokens.
- A failed turn ends with ``turn_end`` and then the classified error (spec 000 §25.6); generic failures are
  ``recoverable`` because the thread stays usable.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any, Iterable

from acp_mux.contract import ApprovalDecision, RunOptions
from acp_mux.events import (
    ApprovalRequestEvent,
    AuthErrorEvent,
    BaseEvent,
    ContextCompactedEvent,
    ContextExceededEvent,
    ContextLimitWarningEvent,
    DebugEvent,
    ErrorCode,
    ErrorEvent,
    FileCreateEvent,
    FileDeleteEvent,
    FilePatchEvent,
    FileReadEvent,
    FileWriteEvent,
    McpToolCallStartEvent,
    McpToolErrorEvent,
    McpToolResultEvent,
    RateLimitedEvent,
    RateLimitErrorEvent,
    RetryEvent,
    ShellExitEvent,
    ShellStartEvent,
    ShellStdoutDeltaEvent,
    TokenUsageEvent,
)
from acp_mux.parse_context import ParseContext
from acp_mux.process import ExitStatus, SpawnSpec
from acp_mux.prompt import ImagePart, Prompt
from adapters.base import AgentAdapter, AgentCapabilities, DiffSpec, ModeInfo, ToolSpec, ToolTable, try_json
from adapters.json_rpc import METHOD_NOT_FOUND, JsonRpcPeer, error_message

AUTH_GUIDANCE = "Set OPENAI_API_KEY or run `codex login`"
CLIENT_INFO = {"name": "acp-mux", "title": "acp-mux", "version": "0.1.0"}

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
_PLAN_STATUS = {"inProgress": "in_progress", "in_progress": "in_progress", "completed": "completed"}
_RETRY_RE = re.compile(r"(\d+)\s*/\s*(\d+)")


def resolve_mode(mode: str | None) -> str | None:
    """A known mode id for ``mode`` (None → the default ``auto``), or None when it is unknown."""
    if mode is None:
        return "auto"
    mode = _MODE_ALIASES.get(mode, mode)
    return mode if mode in MODE_POLICIES else None


# ── helpers shared with codex_exec ─────────────────────────────────────────────────────────────────────────────
def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _error_info(info: Any) -> tuple[str, int | None]:
    """``codexErrorInfo`` is ``"unauthorized"`` or ``{"httpConnectionFailed": {"httpStatusCode": 401}}``."""
    if isinstance(info, str):
        return info, None
    if isinstance(info, dict) and info:
        name, body = next(iter(info.items()))
        return str(name), _int(_dict(body).get("httpStatusCode"))
    return "", None


def classify_failure(message: str, info: Any = None, ctx: ParseContext | None = None) -> list[BaseEvent]:
    """One error event for a failed turn: auth, rate limit and context overflow get their own types."""
    name, status = _error_info(info)
    lowered = message.lower()
    if name == "unauthorized" or status == 401 or "401" in message or "unauthorized" in lowered:
        return [AuthErrorEvent(message=message or "not authenticated", guidance=AUTH_GUIDANCE)]
    if name == "usageLimitExceeded" or status == 429 or "429" in message or "rate limit" in lowered:
        return [RateLimitErrorEvent(message=message or "rate limited")]
    if name == "contextWindowExceeded" or "context window" in lowered or "context_length_exceeded" in lowered:
        used, size = (ctx.state.get("codex_context") if ctx else None) or (0, 0)
        return [ContextExceededEvent(used_tokens=used, max_tokens=size)]
    return [ErrorEvent(code=ErrorCode.AGENT_ERROR, message=message or "codex turn failed", recoverable=True)]


def retry_events(message: str, ctx: ParseContext, info: Any = None) -> list[BaseEvent]:
    """A transient error codex retries by itself ("Reconnecting... 2/5 (…)"): ``rate_limited``? + ``retry``."""
    name, status = _error_info(info)
    events: list[BaseEvent] = []
    if status == 429 or "429" in message or "rate limit" in message.lower() or name == "usageLimitExceeded":
        events.append(RateLimitedEvent())
    match = _RETRY_RE.search(message)
    count = int(ctx.state.get("codex_retries", 0)) + 1
    ctx.state["codex_retries"] = count
    attempt, limit = (int(match.group(1)), int(match.group(2))) if match else (count, 0)
    events.append(RetryEvent(attempt=attempt, max_attempts=limit, reason=message))
    return events


def normalize_changes(changes: Any) -> list[dict[str, Any]]:
    """File changes as ``[{path, kind: add|delete|update, diff?, move_path?}]`` from app-server or exec shapes."""
    out: list[dict[str, Any]] = []
    for change in changes if isinstance(changes, list) else ():
        change = _dict(change)
        kind = change.get("kind")
        move_path = None
        if isinstance(kind, dict):  # app-server: {"type": "update", "move_path": …}
            move_path = kind.get("move_path") or kind.get("movePath")
            kind = kind.get("type")
        entry: dict[str, Any] = {"path": _str(change.get("path")), "kind": _str(kind) or "update"}
        if isinstance(change.get("diff"), str):
            entry["diff"] = change["diff"]
        if move_path:
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
            events.append(FileCreateEvent(path=path, byte_count=len((diff or "").encode())))
        elif c["kind"] == "delete":
            events.append(FileDeleteEvent(path=path))
        elif diff:
            events.append(FilePatchEvent(path=path, diff=diff))
        else:
            events.append(FileWriteEvent(path=path))
    return events


def plan_tool(ctx: ParseContext, tool_id: str, steps: list[dict[str, str]], explanation: Any = None) -> list[BaseEvent]:
    """A plan update as a complete ``update_plan`` tool call (the is_plan ToolSpec makes it an ACP plan)."""
    tool_input: dict[str, Any] = {"plan": steps}
    if isinstance(explanation, str) and explanation:
        tool_input["explanation"] = explanation
    return ctx.tool_start(tool_id, "update_plan", tool_input) + ctx.tool_result(tool_id, "Plan updated")


def shell_begin(ctx: ParseContext, item_id: str) -> list[BaseEvent]:
    """``shell_start`` for a command that is now known to run (once per item)."""
    started: set[str] = ctx.state.setdefault("codex_shell_started", set())
    if item_id in started:
        return []
    started.add(item_id)
    tool_input = ctx.tool_input(item_id) or {}
    return [ShellStartEvent(command=_str(tool_input.get("command")), cwd=_str(tool_input.get("cwd")) or ctx.cwd)]


def shell_end(
    ctx: ParseContext, item_id: str, status: str, output: str, exit_code: int | None, duration_ms: int | None
) -> list[BaseEvent]:
    """Close a command item: output (unless it streamed), ``shell_exit``, then the tool's result or error."""
    if status == "declined":
        return ctx.tool_error(item_id, "declined by user")
    events = shell_begin(ctx, item_id)
    if output and item_id not in ctx.state.setdefault("codex_streamed", set()):
        events.append(ShellStdoutDeltaEvent(delta=output))
    code = exit_code if exit_code is not None else (0 if status == "completed" else -1)
    events.append(ShellExitEvent(exit_code=code, duration_ms=duration_ms or 0))
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
        else:
            specs += [DiffSpec(path=path, new_text=n, old_text=o) for o, n in _hunks(diff)] or [
                DiffSpec(path=path, new_text=diff, old_text=None)  # not a unified diff: show the raw patch
            ]
    return specs


def _patch_title(args: dict[str, Any]) -> str:
    paths = [c.get("move_path") or c["path"] for c in normalize_changes(args.get("changes"))]
    return "Edit " + ", ".join(paths) if paths else "Edit files"


def _search_title(args: dict[str, Any]) -> str:
    query = args.get("query")
    return f"Search the web: {query}" if query else "Searching the web"


_SHELL = ToolSpec(kind="execute", title=lambda a: _str(a.get("command")) or "Run command", command_arg="command")
_PATCH = ToolSpec(kind="edit", title=_patch_title, diff=patch_diffs)
CODEX_TOOLS = ToolTable(
    tools={
        "shell": _SHELL,
        "exec_command": _SHELL,
        "apply_patch": _PATCH,
        "edit": _PATCH,
        "update_plan": ToolSpec(kind="think", title="Update plan", is_plan=True),
        "web_search": ToolSpec(kind="fetch", title=_search_title),
        "view_image": ToolSpec(kind="read", title="View image {path}", path_args=("path",)),
    },
    default=ToolSpec(kind="other"),  # MCP tools arrive as mcp__<server>__<tool>
)


# ── the adapter ────────────────────────────────────────────────────────────────────────────────────────────────
class CodexAdapter(AgentAdapter):
    name = "codex"
    display_name = "Codex"
    binary = "codex"
    package = "@openai/codex"
    install_hint = "npm install -g @openai/codex"
    login_args = ("login",)
    auth_hint = AUTH_GUIDANCE
    capabilities = AgentCapabilities(
        supports_thinking=True,
        supports_thinking_streaming=True,
        can_resume=True,
        supports_approval=True,
        persistent_process=True,
        supports_images=True,
        supports_interrupt_in_protocol=True,
    )
    tool_table = CODEX_TOOLS
    modes = MODES
    default_mode = "auto"
    models = ("gpt-5.5", "gpt-5.5-codex", "gpt-5.2-codex")
    transport = "json-rpc (codex app-server)"

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        # extra_args are codex's global options (e.g. ``-c key=value``), so they go before the subcommand.
        command = self.resolve_binary(options.binary, options.env)
        return SpawnSpec(command=command, args=[*options.extra_args, "app-server"], env=options.env, cwd=options.cwd)

    # ── outgoing ───────────────────────────────────────────────────────────────────────────────────────────────
    def _peer(self, ctx: ParseContext) -> JsonRpcPeer:
        return JsonRpcPeer.of(ctx, "codex_peer")

    def start(self, options: RunOptions, ctx: ParseContext) -> None:
        ctx.state["codex_mode"] = resolve_mode(options.mode) or "auto"
        ctx.state["codex_pending_prompts"] = [options.prompt] if options.prompt is not None else []
        capabilities = {"experimentalApi": True}  # needed for availableDecisions on command approvals
        self._peer(ctx).request(
            ctx,
            "initialize",
            {"clientInfo": CLIENT_INFO, "capabilities": capabilities},
            lambda result, error: self._on_initialized(options, ctx, error),
        )

    def _on_initialized(self, options: RunOptions, ctx: ParseContext, error: dict | None) -> list[BaseEvent]:
        if error is not None:
            return [ErrorEvent(code=ErrorCode.PROTOCOL_ERROR, message=f"codex initialize failed: {error_message(error)}")]
        peer = self._peer(ctx)
        peer.notify(ctx, "initialized")
        approval, sandbox = MODE_POLICIES[ctx.state["codex_mode"]]
        params: dict[str, Any] = {"cwd": options.cwd, "approvalPolicy": approval, "sandbox": sandbox}
        if options.model:
            params["model"] = options.model
        resumed = bool(options.session_id)
        if resumed:
            params["threadId"] = options.session_id
        method = "thread/resume" if resumed else "thread/start"
        peer.request(ctx, method, params, lambda result, err: self._on_thread(ctx, result, err, resumed))
        return []

    def _on_thread(self, ctx: ParseContext, result: Any, error: dict | None, resumed: bool) -> list[BaseEvent]:
        thread_id = _str(_dict(_dict(result).get("thread")).get("id"))
        if error is not None or not thread_id:
            message = f"codex could not {'resume' if resumed else 'start'} the thread: {error_message(error)}"
            return classify_failure(message, _dict(_dict(error).get("data")).get("codexErrorInfo"), ctx)[:1] if (
                "401" in message or "nauthorized" in message
            ) else [ErrorEvent(code=ErrorCode.PROTOCOL_ERROR, message=message)]
        ctx.state["codex_thread"] = thread_id
        events = ctx.session_start(thread_id, resumed=resumed)
        for prompt in ctx.state.pop("codex_pending_prompts", []):
            self._turn_start(prompt, ctx)
        return events

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        if not ctx.state.get("codex_thread"):  # handshake still running: send when the thread exists
            ctx.state.setdefault("codex_pending_prompts", []).append(prompt)
            return
        self._turn_start(prompt, ctx)

    def _turn_start(self, prompt: Prompt, ctx: ParseContext) -> None:
        params: dict[str, Any] = {"threadId": ctx.state["codex_thread"], "input": prompt_input(prompt)}
        if ctx.state.pop("codex_mode_dirty", False):
            approval, sandbox = MODE_POLICIES[ctx.state["codex_mode"]]
            params["approvalPolicy"] = approval
            params["sandboxPolicy"] = SANDBOX_POLICIES[sandbox]
        self._peer(ctx).request(ctx, "turn/start", params, lambda result, error: self._on_turn(ctx, result, error))

    def _on_turn(self, ctx: ParseContext, result: Any, error: dict | None) -> list[BaseEvent]:
        if error is not None:
            message = f"codex rejected the prompt: {error_message(error)}"
            return ctx.end_turn() + [ErrorEvent(code=ErrorCode.AGENT_ERROR, message=message, recoverable=True)]
        turn_id = _str(_dict(_dict(result).get("turn")).get("id"))
        if turn_id and not ctx.state.get("codex_turn_done") == turn_id:
            self._turn_known(ctx, turn_id)
        return []

    def _turn_known(self, ctx: ParseContext, turn_id: str) -> None:
        ctx.state["codex_turn"] = turn_id
        if ctx.state.pop("codex_interrupt_pending", False):
            self._send_interrupt(ctx)

    def interrupt(self, ctx: ParseContext) -> bool:
        if ctx.state.get("codex_turn"):
            self._send_interrupt(ctx)
            return True
        if ctx.state.get("codex_thread") or ctx.state.get("codex_peer"):
            ctx.state["codex_interrupt_pending"] = True  # the turn id is not known yet: interrupt when it is
            return True
        return False

    def _send_interrupt(self, ctx: ParseContext) -> None:
        params = {"threadId": ctx.state.get("codex_thread"), "turnId": ctx.state.get("codex_turn")}
        self._peer(ctx).request(ctx, "turn/interrupt", params, lambda result, error: [])

    def set_mode(self, mode: str, ctx: ParseContext) -> bool:
        resolved = resolve_mode(mode)
        if resolved is None:
            return False
        if resolved != ctx.state.get("codex_mode"):
            ctx.state["codex_mode"] = resolved
            ctx.state["codex_mode_dirty"] = True  # applied by the next turn/start (sticky in codex)
        return True

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        pending = ctx.approvals.pop(interaction_id, None)
        if not isinstance(pending, dict):
            return
        peer, rpc_id, kind = self._peer(ctx), pending["rpc_id"], pending["kind"]
        if kind == "legacy":
            verdict = ("approved_for_session" if decision.always else "approved") if decision.approve else "denied"
            peer.respond(ctx, rpc_id, {"decision": verdict})
        elif kind == "permissions":
            granted = pending.get("permissions") if decision.approve else {}
            peer.respond(ctx, rpc_id, {"permissions": granted or {}, "scope": "session" if decision.always else "turn"})
        elif kind == "elicitation":
            result = {"action": "accept", "content": {}} if decision.approve else {"action": "decline", "content": None}
            peer.respond(ctx, rpc_id, result)
        else:
            peer.respond(ctx, rpc_id, {"decision": _decision(decision, pending.get("available"))})

    # ── incoming ───────────────────────────────────────────────────────────────────────────────────────────────
    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        msg = try_json(line)
        if msg is None:
            return []
        peer = self._peer(ctx)
        try:
            kind = peer.classify(msg)
            if kind == "response":
                return peer.handle_response(msg)
            if kind == "request":
                return self._on_request(msg, ctx)
            if kind == "notification":
                return self._on_notification(msg["method"], _dict(msg.get("params")), ctx)
        except Exception as exc:  # a malformed message must never take the run down
            return [DebugEvent(level="warn", message=f"codex: could not handle {line[:200]!r}: {exc!r}")]
        return []

    def _foreign(self, params: dict[str, Any], ctx: ParseContext) -> bool:
        """Notifications for other threads (sub-agents) are not this session's."""
        thread = params.get("threadId")
        ours = ctx.state.get("codex_thread")
        return bool(thread and ours and thread != ours)

    def _on_notification(self, method: str, params: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        if self._foreign(params, ctx):
            return []
        streamed: set[str] = ctx.state.setdefault("codex_streamed", set())
        item_id = _str(params.get("itemId"))
        if method == "turn/started":
            turn_id = _str(_dict(params.get("turn")).get("id"))
            if turn_id:
                self._turn_known(ctx, turn_id)
            return ctx.begin_turn()
        if method == "turn/completed":
            return self._turn_completed(_dict(params.get("turn")), ctx)
        if method == "item/agentMessage/delta":
            streamed.add(item_id)
            return ctx.text_delta(_str(params.get("delta")))
        if method in ("item/reasoning/summaryTextDelta", "item/reasoning/textDelta"):
            streamed.add(item_id)
            return ctx.thinking_delta(_str(params.get("delta")))
        if method == "item/reasoning/summaryPartAdded":
            index = _int(params.get("summaryIndex")) or 0
            return ctx.thinking_delta("\n\n") if index > 0 and item_id in streamed else []
        if method == "item/commandExecution/outputDelta":
            streamed.add(item_id)
            delta = _str(params.get("delta"))
            return shell_begin(ctx, item_id) + ([ShellStdoutDeltaEvent(delta=delta)] if delta else [])
        if method == "item/fileChange/outputDelta":
            ctx.state.setdefault("codex_patch_output", {})[item_id] = _str(params.get("delta"))
            return []
        if method == "item/started":
            return self._item_started(_dict(params.get("item")), ctx)
        if method == "item/completed":
            return self._item_completed(_dict(params.get("item")), ctx)
        if method == "thread/started":
            thread_id = _str(_dict(params.get("thread")).get("id"))
            return ctx.session_start(thread_id) if thread_id and thread_id == ctx.state.get("codex_thread") else []
        if method == "thread/tokenUsage/updated":
            return self._usage(_dict(params.get("tokenUsage")), ctx)
        if method == "turn/plan/updated":
            seq = ctx.state["codex_plan_seq"] = ctx.state.get("codex_plan_seq", 0) + 1
            steps = [
                {"step": _str(_dict(s).get("step")), "status": _PLAN_STATUS.get(_str(_dict(s).get("status")), "pending")}
                for s in params.get("plan") or ()
            ]
            return plan_tool(ctx, f"plan-{seq}", steps, params.get("explanation"))
        if method == "turn/diff/updated":
            ctx.state["codex_diff"] = _str(params.get("diff"))
            return []
        if method == "error":
            return self._error(params, ctx)
        if method == "serverRequest/resolved":  # codex cleared a request (turn ended): forget our side of it
            rpc_id = params.get("requestId")
            for key in [k for k, v in ctx.approvals.items() if _dict(v).get("rpc_id") == rpc_id]:
                del ctx.approvals[key]
            return []
        if method in ("warning", "configWarning", "deprecationNotice", "guardianWarning"):
            text = _str(params.get("message")) or _str(params.get("summary"))
            return [DebugEvent(level="warn", message=f"codex: {text}")] if text else []
        if method == "model/rerouted":
            text = f"codex: model rerouted {params.get('fromModel')} → {params.get('toModel')} ({params.get('reason')})"
            return [DebugEvent(level="info", message=text)]
        return []  # deltas we do not model (plan/delta, status changes, rate-limit snapshots, …)

    def _turn_completed(self, turn: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        status = _str(turn.get("status"))
        ctx.state["codex_turn_done"] = ctx.state.pop("codex_turn", None) or _str(turn.get("id"))
        ctx.state.pop("codex_interrupt_pending", None)
        ctx.state["codex_retries"] = 0
        pending_error = ctx.state.pop("codex_error", None)
        if status == "interrupted":
            return ctx.end_turn(tool_error="interrupted")
        events = ctx.end_turn()
        if status == "failed":
            error = _dict(turn.get("error")) or _dict(pending_error)
            events += classify_failure(_str(error.get("message")), error.get("codexErrorInfo"), ctx)
        return events

    def _error(self, params: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        error = _dict(params.get("error"))
        message = _str(error.get("message"))
        if params.get("willRetry"):
            return retry_events(message, ctx, error.get("codexErrorInfo"))
        if ctx.in_turn:  # turn/completed{failed} follows with the same error: report it once, there
            ctx.state["codex_error"] = error
            return []
        return classify_failure(message, error.get("codexErrorInfo"), ctx)

    def _usage(self, usage: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        total, last = _dict(usage.get("total")), _dict(usage.get("last"))
        total_tokens = _int(total.get("totalTokens"))
        if total_tokens is not None and total_tokens == ctx.state.get("codex_usage_total"):
            return []  # the same snapshot again
        ctx.state["codex_usage_total"] = total_tokens
        events: list[BaseEvent] = [
            TokenUsageEvent(
                input_tokens=_int(last.get("inputTokens")) or 0,
                output_tokens=_int(last.get("outputTokens")) or 0,
                thinking_tokens=_int(last.get("reasoningOutputTokens")),
                cached_tokens=_int(last.get("cachedInputTokens")),
            )
        ]
        used, size = _int(last.get("totalTokens")) or 0, _int(usage.get("modelContextWindow")) or 0
        ctx.state["codex_context"] = (used, size)
        if size and used / size >= 0.8:
            events.append(ContextLimitWarningEvent(used_tokens=used, max_tokens=size, pct_used=round(100 * used / size, 1)))
        return events

    # ── items ──────────────────────────────────────────────────────────────────────────────────────────────────
    def _item_started(self, item: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        kind, item_id = _str(item.get("type")), _str(item.get("id"))
        if kind == "commandExecution":
            tool_input = {"command": _str(item.get("command")), "cwd": _str(item.get("cwd")) or ctx.cwd}
            return ctx.tool_start(item_id, "shell", tool_input)
        if kind == "fileChange":
            return ctx.tool_start(item_id, "apply_patch", {"changes": normalize_changes(item.get("changes"))})
        if kind == "mcpToolCall":
            server, tool = _str(item.get("server")), _str(item.get("tool"))
            args = item.get("arguments")
            return ctx.tool_start(item_id, f"mcp__{server}__{tool}", args if args is not None else {}) + [
                McpToolCallStartEvent(tool_call_id=item_id, server=server, tool_name=tool, input=args)
            ]
        if kind == "webSearch":
            return ctx.tool_start(item_id, "web_search", {"query": _str(item.get("query"))})
        if kind == "imageView":
            return ctx.tool_start(item_id, "view_image", {"path": _str(item.get("path"))})
        return []

    def _item_completed(self, item: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        kind, item_id = _str(item.get("type")), _str(item.get("id"))
        streamed: set[str] = ctx.state.setdefault("codex_streamed", set())
        status = _str(item.get("status"))
        if kind == "agentMessage":
            text = [] if item_id in streamed else ctx.text_delta(_str(item.get("text")))
            return text + ctx.end_text()
        if kind == "reasoning":
            if item_id not in streamed:
                parts = item.get("summary") or item.get("content") or []
                return ctx.thinking_delta("\n\n".join(p for p in parts if isinstance(p, str))) + ctx.end_thinking()
            return ctx.end_thinking()
        if kind == "commandExecution":
            events = self._item_started(item, ctx) if ctx.tool_name(item_id) is None else []
            output = _str(item.get("aggregatedOutput"))
            return events + shell_end(ctx, item_id, status, output, _int(item.get("exitCode")), _int(item.get("durationMs")))
        if kind == "fileChange":
            events = self._item_started(item, ctx) if ctx.tool_name(item_id) is None else []
            changes = normalize_changes(item.get("changes"))
            if status == "declined":
                return events + ctx.tool_error(item_id, "declined by user")
            if status == "failed":
                detail = ctx.state.get("codex_patch_output", {}).get(item_id) or "the patch could not be applied"
                return events + ctx.tool_error(item_id, detail)
            return events + ctx.tool_result(item_id, changes_summary(changes)) + file_events(changes)
        if kind == "mcpToolCall":
            server, tool = _str(item.get("server")), _str(item.get("tool"))
            events = self._item_started(item, ctx) if ctx.tool_name(item_id) is None else []
            error = item.get("error")
            if status == "failed" or error:
                text = _str(_dict(error).get("message")) or "MCP tool call failed"
                return events + ctx.tool_error(item_id, text) + [
                    McpToolErrorEvent(tool_call_id=item_id, server=server, tool_name=tool, error=text)
                ]
            result = item.get("result")
            return events + ctx.tool_result(item_id, result) + [
                McpToolResultEvent(tool_call_id=item_id, server=server, tool_name=tool, output=result)
            ]
        if kind == "webSearch":
            events = self._item_started(item, ctx) if ctx.tool_name(item_id) is None else []
            return events + ctx.tool_result(item_id, item.get("action") or _str(item.get("query")))
        if kind == "imageView":
            events = self._item_started(item, ctx) if ctx.tool_name(item_id) is None else []
            return events + ctx.tool_result(item_id, _str(item.get("path"))) + [FileReadEvent(path=_str(item.get("path")))]
        if kind == "contextCompaction":
            return [ContextCompactedEvent()]
        return []

    # ── server → client requests ───────────────────────────────────────────────────────────────────────────────
    def _on_request(self, msg: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        method, rpc_id, params = msg["method"], msg["id"], _dict(msg.get("params"))
        interaction_id = f"codex-approval-{rpc_id}"
        pending: dict[str, Any] = {"rpc_id": rpc_id, "method": method}
        events: list[BaseEvent] = []
        if method in ("item/commandExecution/requestApproval", "execCommandApproval"):
            legacy = method == "execCommandApproval"
            item_id = _str(params.get("callId" if legacy else "itemId"))
            command = params.get("command")
            command = shlex.join(command) if isinstance(command, list) else _str(command)
            tool_input = {"command": command, "cwd": _str(params.get("cwd")) or ctx.cwd}
            if ctx.tool_name(item_id) is None:  # always link to an announced tool call
                events += ctx.tool_start(item_id, "shell", tool_input)
            else:
                tool_input = ctx.tool_input(item_id) or tool_input
            pending.update(kind="legacy" if legacy else "command", available=params.get("availableDecisions"))
            reason = _str(params.get("reason"))
            network = params.get("networkApprovalContext")
            detail = command or f"network access: {json.dumps(network)}"
            events.append(
                ApprovalRequestEvent(
                    interaction_id=interaction_id,
                    action=f"Run command ({reason})" if reason else "Run command",
                    detail=detail,
                    tool_name="shell",
                    risk_level="high" if network else _command_risk(params.get("commandActions")),
                    tool_call_id=item_id,
                    input=tool_input,
                )
            )
        elif method in ("item/fileChange/requestApproval", "applyPatchApproval"):
            legacy = method == "applyPatchApproval"
            item_id = _str(params.get("callId" if legacy else "itemId"))
            if ctx.tool_name(item_id) is None:
                changes = [
                    {"path": path, **_dict(change)} for path, change in _dict(params.get("fileChanges")).items()
                ]
                events += ctx.tool_start(item_id, "apply_patch", {"changes": normalize_changes(changes)})
            tool_input = ctx.tool_input(item_id) or {}
            paths = [f"{c['kind']} {c.get('move_path') or c['path']}" for c in normalize_changes(tool_input.get("changes"))]
            grant_root, reason = _str(params.get("grantRoot")), _str(params.get("reason"))
            if grant_root:
                paths.append(f"and allow writes under {grant_root} for this session")
            pending.update(kind="legacy" if legacy else "patch")
            events.append(
                ApprovalRequestEvent(
                    interaction_id=interaction_id,
                    action=f"Apply file changes ({reason})" if reason else "Apply file changes",
                    detail="\n".join(paths),
                    tool_name="apply_patch",
                    risk_level="high" if grant_root else "medium",
                    tool_call_id=item_id,
                    input=tool_input,
                )
            )
        elif method == "item/permissions/requestApproval":
            permissions = params.get("permissions")
            pending.update(kind="permissions", permissions=permissions)
            events.append(
                ApprovalRequestEvent(
                    interaction_id=interaction_id,
                    action=_str(params.get("reason")) or "Grant additional permissions",
                    detail=json.dumps(permissions, ensure_ascii=False),
                    tool_name="request_permissions",
                    risk_level="high",
                    tool_call_id=_str(params.get("itemId")) or None,
                    input=permissions,
                )
            )
        elif method == "mcpServer/elicitation/request" and _dict(params.get("_meta") or params.get("meta")).get(
            "codex_approval_kind"
        ) == "mcp_tool_call":
            pending.update(kind="elicitation")
            events.append(
                ApprovalRequestEvent(
                    interaction_id=interaction_id,
                    action=_str(params.get("message")) or "Allow MCP tool call",
                    detail=_str(params.get("serverName")),
                    tool_name="mcp",
                    risk_level="medium",
                )
            )
        else:  # questions, dynamic tools, elicitation forms: not bridged yet, so never leave codex waiting
            self._peer(ctx).respond_error(ctx, rpc_id, METHOD_NOT_FOUND, f"acp-mux does not support {method}")
            return [DebugEvent(level="warn", message=f"codex: declined unsupported request {method}")]
        ctx.approvals[interaction_id] = pending
        return events

    def finish(self, status: ExitStatus, ctx: ParseContext) -> Iterable[BaseEvent]:
        events = self._peer(ctx).fail_pending("codex app-server exited")
        return [e for e in events if e.type == "debug"] + list(ctx.finish(status))

    def stderr_events(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        return ()


def _decision(decision: ApprovalDecision, available: Any) -> Any:
    """The v2 decision: "always" prefers session scope, then codex's proposed exec-policy rule, else once."""
    if not decision.approve:
        return "decline"  # the turn continues; "cancel" would also interrupt it
    if not decision.always:
        return "accept"
    if not isinstance(available, list) or "acceptForSession" in available:
        return "acceptForSession"
    for option in available:
        if isinstance(option, dict) and "acceptWithExecpolicyAmendment" in option:
            return option
    return "accept"


def _command_risk(actions: Any) -> str:
    """Commands codex parsed as pure reads/listings/searches are low risk; anything else is medium."""
    kinds = {_str(_dict(a).get("type")) for a in actions} if isinstance(actions, list) and actions else {"unknown"}
    return "low" if kinds <= {"read", "listFiles", "search"} else "medium"


def prompt_input(prompt: Prompt) -> list[dict[str, Any]]:
    """``turn/start`` input items: the flattened text, then each image as a data URL (or a local path)."""
    items: list[dict[str, Any]] = []
    text = prompt.as_text()
    if text:
        items.append({"type": "text", "text": text})
    for image in prompt.images:
        items.append(_image_input(image))
    return items or [{"type": "text", "text": ""}]


def _image_input(image: ImagePart) -> dict[str, Any]:
    if not image.data and image.uri and image.uri.startswith("file://"):
        return {"type": "localImage", "path": image.uri[len("file://") :]}
    if not image.data and image.uri:
        return {"type": "image", "url": image.uri}
    return {"type": "image", "url": f"data:{image.mime_type};base64,{image.data}"}

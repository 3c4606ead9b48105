"""Claude Code (``claude -p``) in stream-json mode: how Claude speaks, and how we answer it.

One long-lived process serves the whole session: prompts go in as ``user`` lines on stdin, permission prompts come
out as ``control_request{subtype:"can_use_tool"}`` (thanks to ``--permission-prompt-tool stdio``) and are answered
with ``control_response`` lines, and every prompt ends with one ``result`` line. Verified against the real
transcripts in ``tests/fixtures/claude/`` (see ``/work/shared/reference/agent-clis.md`` §1).

Mapping decisions, each for a reason:

* **Partial messages own the text.** With ``--include-partial-messages`` the raw SSE deltas arrive as
  ``stream_event`` lines, and each finished content block is *also* repeated as a whole ``assistant`` line (before
  its ``content_block_stop``). Once a message id has been seen streaming, its text and thinking come only from the
  deltas; the whole line just completes tool inputs (``tool_call_ready`` with the parsed input). Without partial
  messages the whole blocks are emitted as they come. Keyed by message id, not by block index, because whole
  lines do not carry their block index.
* **Every tool keeps the generic tool events** (start → ready → result|error), because the translation shows tool
  calls from those alone. Richer projections are emitted *in addition*: ``shell_*`` for Bash (nested between ready
  and result), ``file_*`` after the result of Read/Write/Edit/MultiEdit/NotebookEdit, ``mcp_tool_*`` for
  ``mcp__server__tool``, ``subagent_*`` for Task/Agent, ``skill_invoked`` for Skill.
* **A subagent's output is its own, linked to its parent.** Lines with a ``parent_tool_use_id`` come from a
  Task/Agent subagent: every event they give carries ``parent_tool_call_id`` (the Task call), and so does every
  later event of a tool call the subagent started (its result, its approval), so the tree survives the log. Its
  text (forwarded since ``forwardSubagentText`` in the initialize, 2.1.197 and 2.1.332 verified) becomes ``subagent_text``,
  never ``text_delta``: it never joins the main reply. ``system task_started`` gives the subagent's ``task_id``,
  which ``stop_task`` (a control request of 2.1.197 and 2.1.332) stops alone, the parent turn carrying on; a subagent's
  ``can_use_tool`` carries it as ``agent_id`` (and may come before the subagent's assistant line).
* **Errors are never lost and never end a turn silently.** The synthetic ``assistant`` error line is remembered
  and typed when ``result`` arrives (or at exit if it never does). Recoverable errors (rate limit, refusal,
  max_tokens, any other agent error) come just before that prompt's ``turn_end``, so the next prompt still works;
  ``auth_error`` and ``context_exceeded`` end the run (open items are closed first, no ``turn_end`` follows);
  ``error_max_turns`` gives ``turn_end`` then ``turn_limit``.
* **Claude's own controls come from the CLI** (``claude_settings.py``): its models, ``auto`` mode, effort, Fast mode
  and ultracode as its ``initialize`` answer lists them, changed in place by control requests; tool calls carry
  ``_meta.claudeCode`` as claude-agent-acp sends it (``claude_tool_meta.py``).
* **Cost:** ``total_cost_usd`` and ``modelUsage`` are cumulative for the process (anthropics/claude-code#83239),
  so the ``cost`` event carries the running total and ``token_usage``/``turn_end.cost`` carry this turn's share.
  ``input_tokens`` includes cache reads and writes (OpenAI-style); ``cached_tokens`` is the cache reads,
  ``cache_write_tokens`` the writes (so the prompt response's ``usage`` counts as claude-agent-acp's does).
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Literal

from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.events.codes import ErrorCode
from acp_mux.core.run.interaction import AgentEnd
from acp_mux.core.events.limit_times import upcoming_reset
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import ExitStatus, SpawnSpec
from acp_mux.core.run.prompt import AudioPart, ImagePart, Prompt, ResourcePart, TextPart, file_uri_to_path
from acp_mux.adapters.base import AgentAdapter, AgentCapabilities, ModeInfo, PerRun, try_json
from acp_mux.adapters.mcp import claude_mcp_config
from acp_mux.adapters.subagent_links import end_subagent_calls, link_to_subagent
from acp_mux.adapters.stream_agents.claude_subagents import ClaudeSubagents, name_calls
from acp_mux.core.files.private import private_path
from acp_mux.core.text.shapes import as_dict, as_list
from acp_mux.adapters.stream_agents.claude_settings import ClaudeSettingsRun, spawn_args
from acp_mux.adapters.stream_agents.claude_tool_meta import mark_tool_calls
from acp_mux.adapters.stream_agents.claude_tools import (
    CLAUDE_TOOLS,
    SUBAGENT_TOOLS,
    approval_action,
    approval_detail,
    risk_for,
    tool_ready,
    tool_result,
    tool_start,
)

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent, CostRecord


__all__ = ["ClaudeAdapter", "AUTH_GUIDANCE"]

AUTH_GUIDANCE = "Run `claude auth login`, or set ANTHROPIC_API_KEY in the agent's environment."
BASE_ARGS = (
    "-p",
    "--output-format", "stream-json",
    "--input-format", "stream-json",
    "--verbose",
    "--include-partial-messages",
    "--permission-prompt-tool", "stdio",
)  # fmt: skip
# Commands that only make sense in Claude's own TUI (the same list claude-agent-acp hides).
HIDDEN_COMMANDS = frozenset(
    {"cost", "keybindings-help", "login", "logout", "output-style:new", "release-notes", "todos", "exit", "quit"}
)
# Warming the first prompt (see ``ClaudeAdapter.start`` and :func:`prewarm_mode`): "0" off, "1" on, unset: auto.
PREWARM_ENV = "ACP_MUX_CLAUDE_PREWARM"
# The warm-up: Claude builds its system prompt, tool schemas and HTTP client for it, as for a first message.
WARM_UP: dict[str, Any] = {"subtype": "get_context_usage", "detail": "summary"}
# The first version seen answering the warm-up by itself, asking the model endpoint nothing (2.1.318: ~70 ms, no
# count_tokens; the pinned 2.1.332: ~50 ms). 2.1.197 (pinned before it) ignores "detail" and sends ~14 count_tokens
# requests while reading no user message.
LOCAL_WARM_UP_SINCE = (2, 1, 318)
# Claude Code 2.1.332 runs an Agent-tool subagent in the background unless told otherwise: its tool call answers at
# once ("Async agent launched"), the prompt's turn ends while the subagent still works, and the subagent's permission
# questions are denied unasked. An ACP prompt turn has no place for work after its end, so acp-mux has Claude run
# subagents (and commands) in the foreground, as 2.1.197 did, unless the person set this variable themselves.
BACKGROUND_ENV = "CLAUDE_CODE_DISABLE_BACKGROUND_TASKS"
_VERSION = re.compile(r"\s*(\d{1,6})\.(\d{1,6})\.(\d{1,6})(?![\d.])", re.ASCII)
_AUTH_TEXT = re.compile(r"invalid api key|authentication|/login|oauth token|invalid bearer|x-api-key", re.I)
_CONTEXT_TEXT = re.compile(r"prompt is too long|context (window|length)|too many tokens", re.I)
_TOKENS_OVER = re.compile(r"(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)")
_USAGE_LIMIT = re.compile(r"usage limit reached\|(\d{9,})", re.I)
_ITS_RESET_TIME = re.compile(r"\s*[·|-]\s*resets\b.*$", re.I | re.S)  # "... 5-hour limit · resets 1:24am (UTC)"
_TRANSIENT_429 = "not your usage limit"  # claude's own words for a 429 that is not the account's limit


@dataclass
class ClaudeRun(PerRun):
    """What one Claude run remembers between lines (``ClaudeRun.of(ctx)``)."""

    KEY = "claude"

    resume_id: str | None = None
    own_id: str | None = None  # the id this run gave the session it creates (RunOptions.new_session_id)
    commands_shown: list[tuple[str, str]] = field(default_factory=list)  # the slash commands last announced
    init: dict[str, Any] = field(default_factory=dict)
    initialize: dict[str, Any] = field(default_factory=dict)
    streamed: set[str] = field(default_factory=set)  # message ids seen as stream_event
    whole: set[str] = field(default_factory=set)  # of those, the ones whose whole ``assistant`` line arrived too
    current: dict[str | None, str] = field(default_factory=dict)  # parent tool id → streaming message id
    stream_blocks: dict[tuple[str, int], tuple[str, str | None]] = field(default_factory=dict)  # → (kind, tool id)
    broken_streams: int = 0  # streamed messages that broke off and were asked again without streaming (this turn)
    requests: int = 0
    interrupting: bool = False
    pending_error: tuple[str, str] | None = None  # (error kind, text) from a synthetic assistant line
    rate_reset_ms: int | None = None
    # the last rate_limit_event said "rejected" (a usage limit claude will not retry past), and its resetsAt
    # (epoch seconds): what types the limit that ends the turn, never the message's text
    rate_rejected: bool = False
    rate_resets_at: int | None = None
    totals: tuple[float, int, int, int, int] = (0.0, 0, 0, 0, 0)  # cumulative usd, input, output, cached, cache writes
    # the main agent's last API message's usage (message_start, then message_delta's counts): the context it filled
    last_request: dict[str, int] = field(default_factory=dict)
    turn_text: bool = False
    turn_error: bool = False  # this (or the last) turn already reported an error
    terminal: bool = False
    unknown: set[str] = field(default_factory=set)
    announced_init: bool = False
    # The warm-up still to do while no prompt has been sent: "on" (once initialize is answered), "auto" (the version
    # in the initialize answer decides, or ask for it), "version" (its answer decides); "off" once sent, declined or
    # overtaken by a prompt.
    prewarm: str = "off"
    version_request: str | None = None  # the get_binary_version request that "auto" sent
    child_tools: dict[str, str] = field(default_factory=dict)  # a subagent's tool call id → its Task call id
    tasks: dict[str, str] = field(default_factory=dict)  # a Task call id → claude's task_id (for stop_task)


def prewarm_mode(env: Mapping[str, str]) -> Literal["on", "off", "auto"]:
    """How a session started without a prompt warms Claude's first prompt: ``ACP_MUX_CLAUDE_PREWARM=1`` always,
    ``0`` never, unset (the default) only where the warm-up cannot hold a prompt up (:func:`warms_locally`).

    Why not always: Claude reads no user message while it answers the warm-up, and a CLI before 2.1.318 (2.1.197,
    pinned before 2.1.332) answers it only after ~14 ``count_tokens`` requests to the model endpoint, so a prompt
    sent meanwhile waits for all of them (3.1 s with a 1 s ``count_tokens``), and where ``count_tokens`` fails Claude
    counts with billed model calls.
    """
    value = env.get(PREWARM_ENV, "").strip()
    return "on" if value == "1" else "off" if value == "0" else "auto"


def foreground_env(env: Mapping[str, str] | None) -> dict[str, str]:
    """Claude's environment (``env``, else acp-mux's own) with background tasks off (:data:`BACKGROUND_ENV` = 1),
    so a subagent's work and questions belong to the prompt's turn; a value the person set is kept as it is."""
    source = dict(os.environ if env is None else env)
    return source if BACKGROUND_ENV in source else {**source, BACKGROUND_ENV: "1"}


def warms_locally(version: object) -> bool:
    """Whether the Claude CLI of this ``get_binary_version`` answer answers the warm-up by itself (no model
    endpoint): a version at or past :data:`LOCAL_WARM_UP_SINCE`. Anything unreadable is not trusted."""
    match = _VERSION.match(version) if isinstance(version, str) else None
    return match is not None and tuple(int(g) for g in match.groups()) >= LOCAL_WARM_UP_SINCE


def _note_request_usage(st: ClaudeRun, usage: dict[str, Any]) -> None:
    """Keep an API message's token counts as they come (a count left out keeps its earlier value): their sum is the
    context that request filled, what claude-agent-acp reports as ``usage_update.used``."""
    for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"):
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            st.last_request[key] = value


def _api_message_id(value: object) -> str | None:
    """The Anthropic API's id of an assistant message (``msg_…``, the same on its stream events, its whole
    ``assistant`` line and in the transcript); None for a message without one (its chunks get an id of ours)."""
    return value if isinstance(value, str) and value and not value.startswith("anon-") else None


def _parent(m: dict[str, Any]) -> str | None:
    """The Task tool call a line belongs to (a subagent's output), None for the main agent."""
    parent = m.get("parent_tool_use_id")
    return parent if isinstance(parent, str) and parent else None


def _progress(
    ctx: ParseContext, tool_id: Any, message: str | None, progress: Any, status: str = "running"
) -> list[BaseEvent]:
    """A progress event for a tool call this run announced (progress of anything else has nowhere to go)."""
    if not isinstance(tool_id, str) or ctx.tool_name(tool_id) is None:
        return []
    amount = float(progress) if isinstance(progress, (int, float)) and not isinstance(progress, bool) else None
    return [ev.ToolProgressEvent(tool_call_id=tool_id, message=message, progress=amount, status=status)]


def _subagent_text(parent: str, kind: Any, block: dict[str, Any]) -> list[BaseEvent]:
    """A subagent's text or thinking block, as its own event (never the main reply's ``text_delta``)."""
    text = block.get("text") if kind == "text" else block.get("thinking") if kind == "thinking" else None
    if not isinstance(text, str) or not text.strip():
        return []
    return [ev.SubagentTextEvent(subagent_id=parent, text=text, thinking=True if kind == "thinking" else None)]


def _num(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError, OverflowError):  # a count is input too: ``1e400`` reads as infinity
        return 0


@dataclass
class ClaudeSteers(PerRun):
    """The steered messages of the running turn claude has not answered yet, by the ``uuid`` each was sent with: a
    ``result`` whose ``user_message_uuids`` does not name one came before claude read it (a steer during the turn's
    last step), and claude then runs one more cycle for it, so that result does not end the turn (CLI 2.1.332)."""

    KEY = "claude_steers"
    unread: set[str] = field(default_factory=set)


class ClaudeAdapter(AgentAdapter):
    name = "claude"
    capabilities = AgentCapabilities(
        persistent_process=True,
        supports_images=True,
        supports_mcp_http=True,
        supports_mcp_sse=True,
        stops_subagents=True,
    )
    tool_table = CLAUDE_TOOLS
    modes = (
        ModeInfo("default", "Default", "Ask before edits and commands that are not already allowed"),
        ModeInfo("acceptEdits", "Accept edits", "Apply file edits without asking; still ask before commands"),
        ModeInfo("plan", "Plan mode", "Read and plan only: no edits, no commands", read_only=True),
        ModeInfo("bypassPermissions", "Bypass permissions", "Run every tool without asking"),
    )
    default_mode = "default"
    plan_exit_modes = ("acceptEdits", "default")  # ExitPlanMode: "auto-accept edits" or "ask before edits"
    native_fork = True  # --resume ID --fork-session
    models = ("default", "sonnet", "opus", "haiku")

    # ── spawn and stdin ────────────────────────────────────────────────────────────────────────────────────────
    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        args = list(BASE_ARGS)
        private: tuple[tuple[str, str], ...] = ()
        if options.mcp_servers:  # variadic flag: keep it before the other flags, never last before positionals
            # a private 0600 file, not the JSON itself: env values and headers are secrets, and argv is public
            path = private_path("mcp.json")
            private = ((path, json.dumps(claude_mcp_config(options.mcp_servers), separators=(",", ":"))),)
            args += ["--mcp-config", path]
        if options.session_id:
            args += ["--resume", options.session_id]
            if options.fork_session:  # claude --help: "When resuming, create a new session ID instead of reusing"
                args.append("--fork-session")
        # claude --help: "--session-id <uuid>  Use a specific session ID for the conversation (must be a valid UUID)"
        if options.new_session_id:
            args += ["--session-id", options.new_session_id]
        if options.model and options.model != "default":  # "default" means: let Claude choose
            args += ["--model", options.model]
        if options.mode:
            args += ["--permission-mode", options.mode]
        args += spawn_args(options)  # the editor's effort, Fast mode and ultracode, for a process started later
        args += list(options.extra_args)
        command = self.resolve_binary(options.binary, options.env)
        env = foreground_env(options.env)
        return SpawnSpec(command=command, args=args, env=env, cwd=options.cwd, private_files=private)

    def extra_directory_args(self, dirs: list[str]) -> list[str] | None:
        """``--add-dir`` once per root (claude --help: "Additional directories to allow tool access to")."""
        return [arg for folder in dirs for arg in ("--add-dir", folder)]

    async def prepare(self, options: RunOptions) -> None:
        """A new conversation, or a fork's copy, gets its id from us (``--session-id``, as claude-agent-acp does):
        the run can then start its session, and show the editor Claude's slash commands, as soon as Claude answers
        ``initialize`` (while the person types) instead of with the first prompt's reply, where that work would
        also take time from Claude's own first request."""
        if options.new_session_id is None and (not options.session_id or options.fork_session):
            options.new_session_id = str(uuid.uuid4())

    def start(self, options: RunOptions, ctx: ParseContext) -> None:
        st = ClaudeRun.of(ctx)
        st.resume_id = options.session_id
        st.own_id = options.new_session_id
        if options.cwd and not ctx.cwd:
            ctx.cwd = options.cwd
        ClaudeSettingsRun.begin(options, ctx)  # what the editor chose before: read again from the CLI's answer
        # forwardSubagentText: claude forwards a subagent's text blocks too (else only its tool uses and results)
        self._control(ctx, {"subtype": "initialize", "hooks": None, "forwardSubagentText": True})
        if options.prompt is not None:
            self.send_prompt(options.prompt, ctx)
        else:
            # Claude builds its system prompt, tool schemas and HTTP client on the first user message (~50-100 ms
            # before it asks the model); the warm-up builds them while the person is still typing and adds nothing
            # to the conversation. Each step waits for Claude's answer to the last one and is dropped as soon as a
            # prompt is sent: a prompt is written at once, never held for a warm-up (see _warm_up_step).
            st.prewarm = prewarm_mode(os.environ if options.env is None else options.env)

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        st = ClaudeRun.of(ctx)
        st.turn_error = False  # a new prompt: an earlier error no longer explains an exit
        st.prewarm = "off"  # the prompt does the first-message work itself
        message = {"role": "user", "content": prompt_blocks(prompt)}
        ctx.send({"type": "user", "session_id": ctx.session_id or "", "message": message, "parent_tool_use_id": None})

    def steer(self, prompt: Prompt, ctx: ParseContext) -> bool:
        """A user message written mid-turn: claude folds it into the running turn at its next step (its next model
        request carries it), as claude-agent-acp's ``_session/steering`` does through the SDK's same input stream.
        Its ``uuid`` tells which ``result`` answered it (:class:`ClaudeSteers`)."""
        message_id = str(uuid.uuid4())
        ClaudeSteers.of(ctx).unread.add(message_id)
        message = {"role": "user", "content": prompt_blocks(prompt)}
        line = {"type": "user", "session_id": ctx.session_id or "", "message": message, "parent_tool_use_id": None}
        ctx.send({**line, "uuid": message_id})
        return True

    def _result_before_steer(self, m: dict[str, Any], ctx: ParseContext) -> bool:
        """This ``result`` ends a cycle that did not read a steered message (a steer during the turn's last step):
        claude answers the steer in one more cycle, so the turn goes on. An interrupted or failed cycle ends the turn
        as always (the steers are dropped with it)."""
        steers = ClaudeSteers.find(ctx)
        if steers is None or not steers.unread:
            return False
        steers.unread -= {str(u) for u in as_list(m.get("user_message_uuids"))}
        if not steers.unread or ClaudeRun.of(ctx).interrupting or m.get("is_error") or m.get("subtype") != "success":
            steers.unread.clear()
            return False
        return True

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        question = ctx.questions.take(interaction_id)
        if question is None or question.agent is None:  # answered already, or withdrawn: Claude waits for nothing
            return
        request_id = question.agent.request_id
        if decision.approve:
            response: dict[str, Any] = {"behavior": "allow"}
            updated = decision.updated_input if decision.updated_input is not None else question.input
            if isinstance(updated, dict):  # never send {}: that would run the tool with no arguments
                response["updatedInput"] = updated
            if self._leaves_plan_mode_into(question.tool_name, decision.mode):  # the chosen mode comes with the yes
                response["updatedPermissions"] = [{"type": "setMode", "mode": decision.mode, "destination": "session"}]
            # An "always" answer is never handed to Claude as its own rule (its suggestions are `Bash(mkdir:*)`
            # prefixes or `setMode acceptEdits` for one file): those are wider than the label the person chose. The
            # bridge remembers the rule (translation/permissions.py) and answers Claude's next ask itself.
        else:
            response = {
                "behavior": "deny",
                "message": decision.reason or "The user rejected this action",
                "interrupt": False,  # a single rejection lets Claude carry on (and explain or try another way)
            }
        answer = {"subtype": "success", "request_id": request_id, "response": response}
        ctx.send({"type": "control_response", "response": answer})

    def _leaves_plan_mode_into(self, tool_name: str | None, mode: str | None) -> bool:
        """Whether a yes carries a mode for Claude: only to ExitPlanMode, and only one of the modes offered there. A
        yes to anything else never changes Claude's mode, whatever an API caller's ``Approve(mode=...)`` says (no
        "allow this command" turns into "allow everything")."""
        return tool_name == "ExitPlanMode" and mode in self.plan_exit_modes

    def interrupt(self, ctx: ParseContext) -> bool:
        ClaudeRun.of(ctx).interrupting = True
        self._control(ctx, {"subtype": "interrupt"})
        return True

    def set_mode(self, mode: str, ctx: ParseContext) -> bool:
        settings = ClaudeSettingsRun.of(ctx)
        settings.mode, settings.mode_chosen = mode, True
        self._control(ctx, {"subtype": "set_permission_mode", "mode": mode})
        return True

    def set_model(self, model: str, ctx: ParseContext) -> bool:
        """``set_model`` in place (the CLI's next request uses it); effort, Fast mode and ultracode follow it."""
        ClaudeSettingsRun.of(ctx).set_model(model, lambda request: self._control(ctx, request))
        return True

    def set_config_option(self, option_id: str, value: Any, ctx: ParseContext) -> bool:
        """Claude's own ``effort``, ``fast`` and ``ultracode`` (``apply_flag_settings`` in place)."""
        return ClaudeSettingsRun.of(ctx).set_option(option_id, value, lambda request: self._control(ctx, request))

    def stop_subagent(self, subagent_id: str, ctx: ParseContext) -> bool:
        """``stop_task`` for the subagent a Task call runs, once claude named its task (``task_started``); its Task
        call then ends with an error result and the parent's turn goes on."""
        task_id = ClaudeRun.of(ctx).tasks.get(subagent_id)
        if task_id is None:
            return False
        self._control(ctx, {"subtype": "stop_task", "task_id": task_id})
        return True

    def _control(self, ctx: ParseContext, request: dict[str, Any]) -> str:
        st = ClaudeRun.of(ctx)
        st.requests += 1
        request_id = f"req_{st.requests}_{request.get('subtype', 'request')}"
        ctx.send({"type": "control_request", "request_id": request_id, "request": request})
        return request_id

    def available_commands(self, ctx: ParseContext) -> list[tuple[str, str]]:
        """Slash commands for the editor: the initialize answer (with descriptions), else init's bare names."""
        st = ClaudeRun.of(ctx)
        commands = [c for c in as_list(st.initialize.get("commands")) if isinstance(c, dict) and c.get("name")]
        pairs = [(str(c["name"]), str(c.get("description") or "")) for c in commands]
        pairs = pairs or [(str(name), "") for name in as_list(st.init.get("slash_commands"))]
        unique: dict[str, str] = {}
        for name, description in pairs:
            if name.lstrip("/") not in HIDDEN_COMMANDS:
                unique.setdefault(name.lstrip("/"), description)
        return list(unique.items())

    # ── stdout ─────────────────────────────────────────────────────────────────────────────────────────────────
    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        msg = try_json(line)
        if msg is None:
            text = line.strip()
            return [ev.LogEvent(source="stdout", line=text[:2000])] if text else []
        kind = msg.get("type")
        name = f"_on_{kind}" if isinstance(kind, str) and kind.isidentifier() else ""
        handler: Callable[[dict[str, Any], ParseContext], list[BaseEvent]] | None = getattr(self, name, None)
        if handler is not None:
            name_calls(msg, ctx)  # every call id as the editor knows it (a subagent's may repeat its parent's)
            events = self._link(mark_tool_calls(handler(msg, ctx), msg), _parent(msg), ctx)
            return events + ClaudeSettingsRun.of(ctx).on_report(msg)
        st = ClaudeRun.of(ctx)
        if str(kind) in st.unknown:
            return []
        st.unknown.add(str(kind))
        return [ev.DebugEvent(level="verbose", message=f"claude: ignoring unknown line type {kind!r}")]

    def _link(self, events: list[BaseEvent], parent: str | None, ctx: ParseContext) -> list[BaseEvent]:
        """Mark a subagent's events with their Task call (``parent_tool_call_id``): those of a line it wrote, and
        any later event of a tool call it started (its result may come on a line without the mark)."""
        return link_to_subagent(events, parent, ClaudeRun.of(ctx).child_tools)

    def _on_system(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        st = ClaudeRun.of(ctx)
        sub = m.get("subtype")
        if sub == "init":
            st.init = m
            if not ctx.cwd and m.get("cwd"):
                ctx.cwd = str(m["cwd"])
            sid = str(m.get("session_id") or "")
            if not sid:
                return []
            events = self._started(ctx, sid)
            if st.own_id and sid != st.own_id:
                note = f"claude named its session {sid}, not the id it was given ({st.own_id})"
                events.append(ev.DebugEvent(level="warn", message=note))
            if not st.announced_init:
                st.announced_init = True
                events += [ev.SkillLoadedEvent(skill_name=str(s)) for s in as_list(m.get("skills"))]
                for item in as_list(m.get("plugins")):
                    p = item if isinstance(item, dict) else {"name": str(item)}
                    name = str(p.get("name") or p.get("path") or "plugin")
                    events.append(ev.PluginLoadedEvent(plugin_id=str(p.get("path") or name), plugin_name=name))
            return events
        if sub == "compact_boundary":
            meta = as_dict(m.get("compact_metadata") or m.get("compactMetadata"))
            pre = _num(meta.get("pre_tokens", meta.get("preTokens")))
            post = _num(meta.get("post_tokens", meta.get("postTokens")))
            trigger = meta.get("trigger") or "auto"
            summary = f"Conversation compacted ({trigger})" + (f" from {pre} tokens" if pre else "")
            return [ev.ContextCompactedEvent(summary=summary, tokens_saved=max(pre - post, 0) if post else 0)]
        if sub == "api_retry":
            delay = _num(m.get("retry_delay_ms"))
            error, status = m.get("error"), m.get("error_status")
            if error and error != "unknown":
                reason = str(error) + (f" (HTTP {status})" if status else "")
            else:  # claude says "unknown" for a failed connection: the status, if any, says more
                reason = f"HTTP {status}" if status else "the connection to the model failed"
            events = []
            if m.get("error_status") == 429 or m.get("error") == "rate_limit":
                events.append(ev.RateLimitedEvent(retry_after_ms=delay or None))
            attempt, max_attempts = _num(m.get("attempt")), _num(m.get("max_retries"))
            return events + [ev.RetryEvent(attempt=attempt, max_attempts=max_attempts, reason=reason, delay_ms=delay)]
        if sub == "status" and m.get("status") == "compacting":
            return [ev.DebugEvent(level="info", message="claude: compacting the conversation")]
        if sub in ("task_started", "task_progress", "task_notification"):  # a long-running tool or subagent
            return self._task(m, ctx)
        return []

    def _task(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        """Claude's own progress items for a call that runs a while: ``task_started`` (a Bash command past a few
        seconds, a subagent), ``task_progress`` (a subagent's tool uses so far), ``task_notification`` (the task's
        end, before the call's result): all progress of that tool call, never its end."""
        sub = m.get("subtype")
        tool_id, task_id = m.get("tool_use_id"), m.get("task_id")
        if sub == "task_started" and isinstance(tool_id, str) and isinstance(task_id, str) and task_id:
            ClaudeRun.of(ctx).tasks[tool_id] = task_id
        if sub == "task_progress":
            usage = as_dict(m.get("usage"))
            message = " · ".join(str(x) for x in (m.get("description"), m.get("last_tool_name")) if x)
            return _progress(ctx, m.get("tool_use_id"), message or None, usage.get("tool_uses"))
        if sub == "task_started":
            return _progress(ctx, m.get("tool_use_id"), str(m.get("description") or "") or None, None)
        status = m.get("status")
        return _progress(
            ctx,
            m.get("tool_use_id"),
            str(m.get("summary") or "") or None,
            None,
            status=status if isinstance(status, str) and status else "running",
        )

    def _on_tool_progress(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        """``tool_progress``: a tool still running, with the seconds it has taken so far."""
        elapsed = m.get("elapsed_time_seconds")
        message = (
            f"running for {elapsed:.0f} s"
            if isinstance(elapsed, (int, float)) and not isinstance(elapsed, bool)
            else None
        )
        return _progress(ctx, m.get("tool_use_id"), message, None)

    def _on_rate_limit_event(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        info = as_dict(m.get("rate_limit_info"))
        status = info.get("status")
        resets = upcoming_reset(info.get("resetsAt"))  # seconds or milliseconds, maybe past or nonsense: input
        retry_ms = max(resets * 1000 - int(time.time() * 1000), 0) if resets else None
        st = ClaudeRun.of(ctx)
        st.rate_rejected = status == "rejected" and info.get("isUsingOverage") is not True  # (overage: it goes on)
        st.rate_resets_at = resets or None if st.rate_rejected else None
        if status == "rejected":
            st.rate_reset_ms = retry_ms
            return [ev.RateLimitedEvent(retry_after_ms=retry_ms)]
        if status == "allowed_warning":
            kind = info.get("rateLimitType") or "usage"
            return [ev.DebugEvent(level="warn", message=f"claude: close to the {kind} limit")]
        return []

    # ── assistant output ───────────────────────────────────────────────────────────────────────────────────────
    def _on_stream_event(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        st = ClaudeRun.of(ctx)
        sse = as_dict(m.get("event"))
        parent = _parent(m)
        t = sse.get("type")
        if t == "message_start":
            started = str(as_dict(sse.get("message")).get("id") or f"anon-{len(st.streamed)}")
            st.current[parent] = started
            st.streamed.add(started)
            if parent is None:
                st.last_request = {}
                _note_request_usage(st, as_dict(as_dict(sse.get("message")).get("usage")))
            return []
        if t == "message_delta" and parent is None:
            _note_request_usage(st, as_dict(sse.get("usage")))  # its output (and any count it restates)
            return []
        msg_id = st.current.get(parent)
        if msg_id is None or t not in ("content_block_start", "content_block_delta", "content_block_stop"):
            return []
        key = (msg_id, _num(sse.get("index")))
        named = _api_message_id(msg_id)
        if t == "content_block_start":
            block = as_dict(sse.get("content_block"))
            kind = str(block.get("type"))
            if kind in ("tool_use", "server_tool_use", "mcp_tool_use") and block.get("id"):
                new_tool = str(block["id"])
                st.stream_blocks[key] = (kind, new_tool)
                return tool_start(ctx, new_tool, str(block.get("name") or "tool"))
            st.stream_blocks[key] = (kind, None)
            if kind == "text" and block.get("text") and parent is None:
                return self._text(ctx, str(block["text"]), named)
            if kind == "thinking" and block.get("thinking") and parent is None:
                return ctx.thinking_delta(str(block["thinking"]), named)
            return []
        kind, tool_id = st.stream_blocks.get(key, ("", None))
        if t == "content_block_delta":
            delta = as_dict(sse.get("delta"))
            dt = delta.get("type")
            if dt == "text_delta" and parent is None:
                return self._text(ctx, str(delta.get("text") or ""), named)
            if dt == "thinking_delta" and parent is None:
                return ctx.thinking_delta(str(delta.get("thinking") or ""), named)
            if dt == "input_json_delta" and tool_id:
                return ctx.tool_input_delta(tool_id, str(delta.get("partial_json") or ""))
            return []
        st.stream_blocks.pop(key, None)  # content_block_stop
        if tool_id:
            return tool_ready(ctx, tool_id)
        if kind == "text" and parent is None:
            return ctx.end_text()
        if kind == "thinking" and parent is None:
            return ctx.end_thinking()
        return []

    def _on_assistant(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        st = ClaudeRun.of(ctx)
        msg = as_dict(m.get("message"))
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        blocks = [b for b in blocks if isinstance(b, dict)] if isinstance(blocks, list) else []
        if m.get("error"):  # synthetic error message: typed when the result line arrives
            text = " ".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text").strip()
            st.pending_error = (str(m["error"]), text)
            return []
        parent = _parent(m)
        streamed = str(msg.get("id")) in st.streamed
        if streamed:
            st.whole.add(str(msg.get("id")))
        events: list[BaseEvent] = [] if streamed else self._broken_stream(ctx, parent)
        named = _api_message_id(msg.get("id"))
        for block in blocks:
            kind = block.get("type")
            if kind in ("tool_use", "server_tool_use", "mcp_tool_use") and block.get("id"):
                events += tool_start(ctx, str(block["id"]), str(block.get("name") or "tool"), block.get("input"))
            elif kind in ("web_search_tool_result", "web_fetch_tool_result") and block.get("tool_use_id"):
                events += tool_result(ctx, str(block["tool_use_id"]), block.get("content"), False, None)
            elif parent is not None:  # a subagent's words: whole blocks (its deltas are not forwarded)
                events += _subagent_text(parent, kind, block)
            elif streamed:
                continue  # text the stream events already delivered
            elif kind == "text":
                events += self._text(ctx, str(block.get("text") or ""), named) + ctx.end_text()
            elif kind == "thinking":
                events += ctx.thinking_delta(str(block.get("thinking") or ""), named) + ctx.end_thinking()
        return events

    def _broken_stream(self, ctx: ParseContext, parent: str | None) -> list[BaseEvent]:
        """A whole message arrived that was not streamed, after a streamed one whose own whole ``assistant`` line
        never came: that stream broke off and claude asked again without streaming (it says nothing else about it).
        2.1.197 leaves the broken stream's blocks open; 2.1.332 closes them (``content_block_stop``,
        ``message_stop``) as if it had ended. Close what is still open and say it was retried, so the new text
        starts its own block instead of being glued to the partial one."""
        st = ClaudeRun.of(ctx)
        broken = st.current.get(parent)
        if broken is None or broken in st.whole:
            return []
        open_keys = [key for key in st.stream_blocks if key[0] == broken]
        events: list[BaseEvent] = []
        for key in open_keys:
            kind, tool_id = st.stream_blocks.pop(key)
            if tool_id:
                events += ctx.tool_error(tool_id, "the response stream broke off")
        if parent is None:
            events += ctx.end_thinking() + ctx.end_text()
        st.broken_streams += 1
        reason = "the response stream broke off; claude asked again without streaming"
        return events + [ev.RetryEvent(attempt=st.broken_streams, max_attempts=0, reason=reason)]

    def _text(self, ctx: ParseContext, text: str, message_id: str | None = None) -> list[BaseEvent]:
        """The reply's text; ``message_id``: the API message it belongs to (``message.id``), the ``messageId`` of
        its chunks, as claude-agent-acp names them: thinking and text of one API message share it."""
        if text:
            ClaudeRun.of(ctx).turn_text = True
        return ctx.text_delta(text, message_id)

    def _on_user(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        content = as_dict(m.get("message")).get("content")
        if isinstance(content, str):  # output of a local slash command (/context, /cost …), else an echo
            match = re.search(r"<local-command-stdout>(.*?)</local-command-stdout>", content, re.S)
            return self._text(ctx, match.group(1).strip()) + ctx.end_text() if match else []
        results = [b for b in as_list(content) if isinstance(b, dict) and b.get("type") == "tool_result"]
        sidecar = m.get("tool_use_result") if len(results) == 1 else None
        events: list[BaseEvent] = []
        for block in results:
            tool_id = str(block.get("tool_use_id") or "")
            if ctx.tool_name(tool_id) in SUBAGENT_TOOLS:  # a subagent's end ends the calls it left open
                events += end_subagent_calls(ctx, tool_id, ClaudeRun.of(ctx).child_tools, not block.get("is_error"))
            events += tool_result(ctx, tool_id, block.get("content"), bool(block.get("is_error")), sidecar)
        return events

    # ── control protocol ───────────────────────────────────────────────────────────────────────────────────────
    def _on_control_request(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        request_id = str(m.get("request_id") or "")
        req = as_dict(m.get("request"))
        if req.get("subtype") != "can_use_tool":
            # We register no hooks and no SDK MCP servers, so nothing else should come; never leave Claude waiting.
            error = {"subtype": "error", "request_id": request_id, "error": "not supported by acp-mux"}
            ctx.send({"type": "control_response", "response": error})
            return [ev.DebugEvent(level="warn", message=f"claude: unsupported control request {req.get('subtype')!r}")]
        name = str(req.get("tool_name") or "tool")
        tool_input = as_dict(req.get("input"))
        tool_id = str(req.get("tool_use_id") or "") or None
        # The request must point at an announced tool call: announce it now if the assistant line has not. A
        # subagent's request names it by ``agent_id`` (its task_id), often before its assistant line arrives.
        events = tool_start(ctx, tool_id, name, tool_input) if tool_id else []
        agent_id = req.get("agent_id")
        task = ClaudeSubagents.of(ctx).agents.get(agent_id) if isinstance(agent_id, str) else None
        events = self._link(events, task, ctx)
        asked = ev.ApprovalRequestEvent(
            interaction_id=request_id,
            action=approval_action(name, tool_input),
            detail=approval_detail(name, tool_input, req.get("description")),
            tool_name=name,
            risk_level=risk_for(name),
            tool_call_id=tool_id,
            input=tool_input,
        )
        events.append(ctx.questions.ask(asked, AgentEnd(request_id)))
        return events

    def _on_control_cancel_request(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        request_id = str(m.get("request_id") or "")
        if ctx.questions.take(request_id) is None:
            return [ev.DebugEvent(level="info", message=f"claude withdrew request {request_id}")]
        # Spec 000: every approval_request ends in granted or denied; a withdrawn one is denied by the agent itself.
        return [ev.ApprovalDeniedEvent(interaction_id=request_id, reason="withdrawn by the agent")]

    def _on_control_response(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        resp = as_dict(m.get("response"))
        request_id = str(resp.get("request_id") or "")
        st = ClaudeRun.of(ctx)
        settings = ClaudeSettingsRun.of(ctx)
        if resp.get("subtype") == "error":
            settings.pending.pop(request_id, None)
            if request_id == st.version_request:
                st.prewarm = "off"  # a CLI that cannot say its version is not trusted with the warm-up
            return [ev.DebugEvent(level="warn", message=f"claude rejected {request_id}: {resp.get('error')}")]
        body = as_dict(resp.get("response"))
        if "commands" in body or "init" in request_id:  # the answer to our initialize
            st.initialize = body
            self._warm_up_step(ctx, body.get("claude_code_version"))  # (2.1.332 says it here; 2.1.197 does not)
            events = self._started(ctx, st.own_id) if st.own_id else []  # before any prompt: see prepare
            return events + settings.on_initialize(body, lambda request: self._control(ctx, request), self.modes)
        elif settings.owns(request_id):
            return settings.on_answer(request_id)
        elif request_id == st.version_request:
            self._warm_up_step(ctx, body.get("version"))
        return []

    def _started(self, ctx: ParseContext, sid: str) -> list[BaseEvent]:
        """``session_start`` (once per run: a later call only updates the id), then the slash commands whenever
        they differ from the ones last announced (the initialize answer's, with descriptions; else init's names)."""
        st = ClaudeRun.of(ctx)
        events = ctx.session_start(sid, resumed=bool(st.resume_id) and sid == st.resume_id)
        commands = self.available_commands(ctx)
        if commands and commands != st.commands_shown:
            st.commands_shown = commands
            listed = [ev.SlashCommand(name=name, description=text) for name, text in commands]
            events.append(ev.CommandsUpdateEvent(commands=listed))
        return events

    def _warm_up_step(self, ctx: ParseContext, version: object) -> None:
        """The next step of the warm-up once Claude has answered the last one, if no prompt came first: "on" sends
        it; "auto" sends it only to a CLI that answers it without the model endpoint, knowing the version from the
        initialize answer (2.1.332 says it there) or else asking for it (answered at once, from memory; one round
        trip later, which cost the default ~15 ms of first words against the forced warm-up). Nothing ever waits
        for these answers: one that never comes leaves the run exactly as unwarmed."""
        st = ClaudeRun.of(ctx)
        step, st.prewarm = st.prewarm, "off"
        if step == "auto" and version is None:
            st.prewarm = "version"
            st.version_request = self._control(ctx, {"subtype": "get_binary_version"})
        elif step == "on" or (step in ("auto", "version") and warms_locally(version)):
            self._control(ctx, dict(WARM_UP))

    # ── end of a prompt ────────────────────────────────────────────────────────────────────────────────────────
    def _on_result(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        st = ClaudeRun.of(ctx)
        usage_events, turn_cost = self._usage(m, st)
        if self._result_before_steer(m, ctx):
            return usage_events  # the steered message's own cycle follows: the turn is not over
        interrupted, st.interrupting = st.interrupting, False
        pending, st.pending_error = st.pending_error, None
        turn_text, st.turn_text = st.turn_text, False
        st.streamed.clear()  # every message of this prompt is complete
        st.whole.clear()
        st.current.clear()
        st.broken_streams = 0
        text = str(m.get("result") or "")
        errors = [] if interrupted else self._result_errors(m, pending, text, st)
        st.turn_error = bool(errors)
        if errors and errors[-1].type in ("auth_error", "context_exceeded"):
            st.terminal = True
            events = ctx.close_open("the agent stopped") + usage_events + errors
            ctx.in_turn = False
            return events
        events = ctx.begin_turn()
        if text and not (errors or turn_text or interrupted or m.get("is_error")) and m.get("subtype") == "success":
            events += self._text(ctx, text) + ctx.end_text()  # a prompt answered without assistant lines
        tool_error = "interrupted" if interrupted else "the turn ended before the tool finished"
        if errors and errors[-1].type == "turn_limit":
            return events + usage_events + ctx.end_turn(turn_cost, tool_error=tool_error) + errors
        return events + usage_events + errors + ctx.end_turn(turn_cost, tool_error=tool_error)

    def _usage(self, m: dict[str, Any], st: ClaudeRun) -> tuple[list[BaseEvent], CostRecord]:
        usage = as_dict(m.get("usage"))
        model_usage = [as_dict(v) for v in as_dict(m.get("modelUsage")).values()]
        prev_usd, prev_in, prev_out, prev_cached, prev_written = st.totals
        window = max((_num(u.get("contextWindow")) for u in model_usage), default=0)
        if model_usage:  # cumulative per process
            cached = sum(_num(u.get("cacheReadInputTokens")) for u in model_usage)
            written = sum(_num(u.get("cacheCreationInputTokens")) for u in model_usage)
            tok_in = cached + written + sum(_num(u.get("inputTokens")) for u in model_usage)
            tok_out = sum(_num(u.get("outputTokens")) for u in model_usage)
        else:  # only this query's usage
            turn_cached = _num(usage.get("cache_read_input_tokens"))
            turn_written = _num(usage.get("cache_creation_input_tokens"))
            turn_in = _num(usage.get("input_tokens")) + turn_written + turn_cached
            tok_in, tok_out = prev_in + turn_in, prev_out + _num(usage.get("output_tokens"))
            cached, written = prev_cached + turn_cached, prev_written + turn_written
        try:
            usd = float(m.get("total_cost_usd") or 0.0)
        except (TypeError, ValueError):
            usd = prev_usd
        usd = max(usd, prev_usd)
        st.totals = (usd, tok_in, tok_out, cached, written)
        d_in, d_out, d_cached = max(tok_in - prev_in, 0), max(tok_out - prev_out, 0), max(cached - prev_cached, 0)
        d_written = max(written - prev_written, 0)
        turn = ev.CostRecord(
            total_usd=round(usd - prev_usd, 10), input_tokens=d_in, output_tokens=d_out, cached_tokens=d_cached
        )
        total = ev.CostRecord(total_usd=usd, input_tokens=tok_in, output_tokens=tok_out, cached_tokens=cached)
        usage_event = ev.TokenUsageEvent(
            input_tokens=d_in,
            output_tokens=d_out,
            cached_tokens=d_cached,
            cache_write_tokens=d_written,
            context_window=window or None,  # the model's window, as claude says it (modelUsage.contextWindow)
            context_tokens=sum(st.last_request.values()) if st.last_request else None,
        )
        return [usage_event, ev.CostEvent(cost=total)], turn

    def _result_errors(
        self, m: dict[str, Any], pending: tuple[str, str] | None, text: str, st: ClaudeRun
    ) -> list[BaseEvent]:
        subtype = str(m.get("subtype") or "")
        status = m.get("api_error_status")
        kind, pending_text = pending or ("", "")
        message = text or pending_text or "; ".join(str(e) for e in as_list(m.get("errors"))) or subtype
        if subtype == "error_max_turns":
            return [ev.TurnLimitEvent(max_turns=_num(m.get("num_turns")))]
        if not m.get("is_error") and not subtype.startswith("error") and not pending:
            stop = m.get("stop_reason")
            if stop == "refusal":
                msg = "Claude declined this request."
                return [ev.ErrorEvent(code=ErrorCode.REFUSAL, message=msg, recoverable=True)]
            if stop == "max_tokens":
                msg = "The response hit the output token limit."
                return [ev.ErrorEvent(code=ErrorCode.MAX_TOKENS, message=msg, recoverable=True)]
            return []
        return [classify_error(kind, status, message, m, st.rate_reset_ms, _limit(st))]

    # ── exit ───────────────────────────────────────────────────────────────────────────────────────────────────
    def finish(self, status: ExitStatus, ctx: ParseContext) -> Iterable[BaseEvent]:
        st = ClaudeRun.of(ctx)
        if st.terminal:
            ctx.in_turn = False
            return []
        events: list[BaseEvent] = []
        if st.pending_error is not None:  # the error line came, the result never did
            kind, text = st.pending_error
            st.pending_error = None
            error = classify_error(kind, None, text, {}, st.rate_reset_ms, _limit(st))
            if error.type in ("auth_error", "context_exceeded"):
                st.terminal = True
                events = ctx.close_open("the agent exited") + [error]
                ctx.in_turn = False
                return events
            events, st.turn_error = [error], True
        if st.turn_error and status.code not in (0, None):
            # The exit is the consequence of an error already reported in full: no second, vaguer crash.
            return events + ctx.end_turn(tool_error="the agent exited")
        return events + list(ctx.finish(status))


def _limit(st: ClaudeRun) -> tuple[int | None] | None:
    """The usage limit claude reported as reached (``(resetsAt,)``), or None when it reported none."""
    return (st.rate_resets_at,) if st.rate_rejected else None


def classify_error(
    kind: str,
    status: Any,
    message: str,
    result: dict[str, Any],
    rate_reset_ms: int | None,
    rejected: tuple[int | None] | None = None,
) -> BaseEvent:
    """One Claude failure → the most specific normalized error (auth, rate limit, context, else agent error).

    A rate limit is a ``quota`` when claude's own ``rate_limit_event`` said ``rejected`` (``rejected`` holds its
    ``resetsAt``) and the message is not claude's "not your usage limit" (a 429 it retried and gave up on)."""
    message = message or "Claude reported an error"
    if kind == "authentication_failed" or status in (401, 403) or (not status and _AUTH_TEXT.search(message)):
        return ev.AuthErrorEvent(message=message, guidance=AUTH_GUIDANCE)
    if kind == "rate_limit" or status == 429 or "rate limit" in message.lower() or _USAGE_LIMIT.search(message):
        retry = rate_reset_ms
        limit = _USAGE_LIMIT.search(message)
        if limit:
            until = upcoming_reset(limit.group(1))
            retry = max(until * 1000 - int(time.time() * 1000), 0) if until else None
            message = "Claude usage limit reached"
        quota = (rejected is not None or limit is not None) and _TRANSIENT_429 not in message.lower()
        resets_at = rejected[0] if quota and rejected is not None else None
        if quota:  # claude's own " · resets <when>" is its reading of the same number (year 58880 from ms): ours
            message = _ITS_RESET_TIME.sub("", message) or message  # is checked, and said after the message
        return ev.RateLimitErrorEvent(
            message=message, retry_after_ms=retry, kind="quota" if quota else "rate", resets_at=resets_at
        )
    if kind == "max_output_tokens":
        return ev.ErrorEvent(code=ErrorCode.MAX_TOKENS, message=message, recoverable=True)
    if _CONTEXT_TEXT.search(message):
        used, most = 0, 0
        over = _TOKENS_OVER.search(message)
        if over:
            used, most = (int(g.replace(",", "")) for g in over.groups())
        if not most:
            windows = [_num(as_dict(u).get("contextWindow")) for u in as_dict(result.get("modelUsage")).values()]
            most = max(windows, default=0)
        return ev.ContextExceededEvent(used_tokens=used, max_tokens=most)
    return ev.ErrorEvent(code=ErrorCode.AGENT_ERROR, message=message, recoverable=True)


def prompt_blocks(prompt: Prompt) -> list[dict[str, Any]]:
    """A prompt → Anthropic content blocks: text, base64 images, embedded files as tagged context, links as @path."""
    blocks: list[dict[str, Any]] = []
    for part in prompt.parts:
        if isinstance(part, TextPart):
            if part.text:
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            if part.data:
                source = {"type": "base64", "media_type": part.mime_type, "data": part.data}
            else:
                source = {"type": "url", "url": part.uri or ""}
            blocks.append({"type": "image", "source": source})
        elif isinstance(part, ResourcePart):
            blocks.append(_resource_block(part))
        elif isinstance(part, AudioPart):
            blocks.append({"type": "text", "text": "[an audio clip was attached; Claude Code cannot hear audio]"})
    return blocks or [{"type": "text", "text": ""}]


def _resource_block(part: ResourcePart) -> dict[str, Any]:
    mime = part.mime_type or ""
    if part.text is not None:
        return {"type": "text", "text": Prompt((part,)).as_text()}
    if part.blob and mime.startswith("image/"):
        return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": part.blob}}
    if part.blob and mime == "application/pdf":
        return {"type": "document", "source": {"type": "base64", "media_type": mime, "data": part.blob}}
    return {"type": "text", "text": f"@{file_uri_to_path(part.uri) or part.uri}"}

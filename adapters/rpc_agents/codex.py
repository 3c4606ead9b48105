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
- ``token_usage`` carries the *last request's* usage (the runtime sums these events); repeated snapshots and the
  one ``thread/resume`` sends to restore old totals are skipped. ``input_tokens`` is codex's number, which includes
  ``cached_tokens`` (OpenAI convention), and ``output_tokens`` includes reasoning tokens.
- A failed turn's error is typed from ``codexErrorInfo``/the message (auth, rate limit, context window) and placed
  by ``end_failed_turn`` (see ``codex_exec.py``, which also holds the modes, tool table and item helpers both Codex
  transports share); generic failures are ``recoverable``: the thread stays usable.
- Approvals: ``interaction_id`` is ``codex-approval-<json-rpc id>`` and ``tool_call_id`` the item id (the tool is
  announced first if codex did not). "Always" is answered ``accept`` (legacy ``approved``, permissions for the
  turn): codex's session scope, its ``grantRoot`` and its exec-policy amendments are wider than the label, so the
  bridge keeps the rule and answers codex's next ask itself; a denial is ``decline`` (the turn goes on; ``cancel``
  would end it). Requests we cannot bridge are answered with an error, never left pending.
- Interrupt is always in-protocol (a signal would kill the app-server and the session with it).
- codex's own controls (``codex_settings``): its ``model/list`` replaces the fixed model table once answered;
  reasoning effort, fast mode and collaboration (plan) mode are config options like codex-acp's, sent by
  ``thread/settings/update`` (experimental API, opted into at ``initialize``). Its slash commands
  (``codex_commands``) are listed with its skills and carried out when sent as prompts (``review/start``,
  ``thread/compact/start``, or a short turn acp-mux answers). Side requests use ids of their own (``acp-mux-*``).
- Extra workspace roots (``additionalDirectories``) are writable roots of the workspace-write sandbox.
- Subagents (codex's multi-agent, on when the person sets ``features.multi_agent_v2``): a child thread's messages
  become the spawn call's linked events (``codex_subagents``); interrupting the parent interrupts running children.
"""

from __future__ import annotations

import json
import logging
import shlex
from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal, cast

from acp_mux.version import __version__
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.events.codes import ErrorCode
from acp_mux.core.run.interaction import AgentEnd
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import ExitStatus, SpawnSpec
from acp_mux.core.run.prompt import ImagePart, Prompt, file_uri_to_path
from acp_mux.core.text.shapes import as_dict, as_int, as_str
from acp_mux.adapters.base import AgentAdapter, AgentCapabilities, ModeInfo, try_json
from acp_mux.adapters.stream_agents.codex_exec import (
    CODEX_TOOLS,
    MODE_POLICIES,
    MODES,
    SANDBOX_POLICIES,
    CodexRun,
    changes_summary,
    classify_failure,
    end_failed_turn,
    limit_resets_at,
    file_events,
    no_answer,
    normalize_changes,
    plan_tool,
    request_usage,
    resolve_mode,
    retry_events,
    shell_begin,
    shell_end,
)
from acp_mux.adapters.json_rpc_peer import INTERNAL_ERROR, METHOD_NOT_FOUND, JsonRpcPeer, error_message
from acp_mux.adapters.mcp import codex_mcp_config
from acp_mux.adapters.rpc_agents import codex_commands as commands
from acp_mux.adapters.rpc_agents import codex_subagents as subagents
from acp_mux.adapters.config_toggles import takes_boolean_options
from acp_mux.adapters.rpc_agents.codex_settings import CodexControls
from acp_mux.adapters.unreachable_model import unreachable_failure

if TYPE_CHECKING:
    from acp_mux.core.events.union import ApprovalRequestEvent, BaseEvent


log = logging.getLogger(__name__)

_PLAN_STATUS = {"inProgress": "in_progress", "in_progress": "in_progress", "completed": "completed"}
CLIENT_INFO = {"name": "acp-mux", "title": "acp-mux", "version": __version__}
# codex's collaboration (plan) mode and thread/settings/update are experimental API: codex-acp opts in the same way
CLIENT_CAPABILITIES = {"experimentalApi": True}
_NO_ROLLOUT = "no rollout found"  # codex's thread/resume error for a thread with no turn on disk

# acp-mux's own preset, offered first and the default, because a new session must ask before it changes anything.
# codex's "untrusted" approval policy asks before every file change whatever the sandbox (codex-rs core safety.rs:
# assess_patch_safety answers AskUser for UnlessTrusted before looking at writable roots) and before every command
# except those codex knows to be read-only (ls, cat, grep …), which run unasked; the workspace-write sandbox still
# bounds what an approved command can touch. codex-acp's "auto" (on-request) edits the workspace and runs commands
# in it without asking, "read-only" runs sandboxed commands without asking: both stay available, never the default.
ASK_MODE = ModeInfo(
    "ask", "Ask", "Codex asks before every file change and every command except known read-only ones (ls, cat, grep …)."
)
APP_SERVER_MODES = (ASK_MODE, *MODES)
APP_SERVER_POLICIES: dict[str, tuple[str, str]] = {ASK_MODE.id: ("untrusted", "workspace-write"), **MODE_POLICIES}


def resolve_app_mode(mode: str | None) -> str | None:
    """A known app-server mode id for ``mode`` (None and ``default`` → ``ask``: acp-mux's default asks), or None
    when it is unknown. codex-acp's own names and aliases (``agent`` → ``auto`` …) keep their meaning."""
    if mode is None or mode in (ASK_MODE.id, "default"):
        return ASK_MODE.id
    return resolve_mode(mode)


# ── the adapter ────────────────────────────────────────────────────────────────────────────────────────────────
class CodexAdapter(AgentAdapter):
    name = "codex"
    capabilities = AgentCapabilities(
        persistent_process=True,
        supports_images=True,
        supports_mcp_http=True,  # codex speaks stdio and streamable-HTTP MCP; no SSE
        stops_subagents=True,  # turn/interrupt on a child thread stops it alone (0.169.0 verified)
    )
    tool_table = CODEX_TOOLS
    modes = APP_SERVER_MODES
    default_mode = ASK_MODE.id
    models = ("gpt-5.5", "gpt-5.5-codex", "gpt-5.2-codex")
    native_fork = True  # app-server thread/fork (ThreadForkParams: threadId plus thread/resume's settings)

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        # extra_args are codex's global options (e.g. ``-c key=value``), so they go before the subcommand.
        command = self.resolve_binary(options.binary, options.env)
        _, skipped = codex_mcp_config(options.mcp_servers)
        if skipped:
            log.warning("codex cannot use SSE MCP servers; not passing %s", ", ".join(skipped))
        args = [*options.extra_args, "app-server"]  # MCP servers go in-protocol (thread/start config): no secrets here
        return SpawnSpec(command=command, args=args, env=options.env, cwd=options.cwd)

    # ── outgoing ───────────────────────────────────────────────────────────────────────────────────────────────
    def _peer(self, ctx: ParseContext) -> JsonRpcPeer:
        return CodexRun.of(ctx).peer

    def start(self, options: RunOptions, ctx: ParseContext) -> None:
        run = CodexRun.of(ctx)
        run.mode = resolve_app_mode(options.mode) or ASK_MODE.id
        controls = CodexControls.of(ctx)
        controls.model = options.model
        controls.boolean_options = takes_boolean_options(options.client_capabilities)
        on_result = lambda _result, error: self._on_initialized(options, ctx, error)  # noqa: E731
        params = {"clientInfo": CLIENT_INFO, "capabilities": CLIENT_CAPABILITIES}
        self._peer(ctx).request(ctx, "initialize", params, on_result)

    def _on_initialized(self, options: RunOptions, ctx: ParseContext, error: dict[str, Any] | None) -> list[BaseEvent]:
        if error is not None:
            message = f"codex initialize failed: {error_message(error)}"
            return [ev.ErrorEvent(code=ErrorCode.PROTOCOL_ERROR, message=message)]
        peer = self._peer(ctx)
        peer.notify(ctx, "initialized")
        approval, sandbox = APP_SERVER_POLICIES[CodexRun.of(ctx).mode or ASK_MODE.id]
        params: dict[str, Any] = {"cwd": options.cwd, "approvalPolicy": approval, "sandbox": sandbox}
        if options.model:
            params["model"] = options.model
        mcp_servers, _ = codex_mcp_config(options.mcp_servers)
        if mcp_servers:  # in-protocol, so env values and headers never reach a command line
            params["config"] = {"mcp_servers": mcp_servers}
        resumed = bool(options.session_id)
        if resumed:
            params["threadId"] = options.session_id
        # a fork (RunOptions.fork_session): codex copies the thread itself and answers with the new one
        method = "thread/start" if not resumed else "thread/fork" if options.fork_session else "thread/resume"
        peer.request(ctx, method, params, lambda result, err: self._on_thread(ctx, result, err, method, params))
        # codex's own models and skills, asked beside the thread: their answers update the editor's options/commands
        # (under their own ids: the conversation's numbered requests stay as recorded sessions have them)
        on_models = lambda result, err: self._on_models(ctx, result, err)  # noqa: E731
        peer.side_request(ctx, "acp-mux-models", "model/list", {}, on_models)
        on_skills = lambda result, err: [self._commands_event(result if not err else None)]  # noqa: E731
        peer.side_request(ctx, "acp-mux-skills", "skills/list", {"cwds": [options.cwd]}, on_skills)
        return []

    def _on_models(self, ctx: ParseContext, result: Any, error: dict[str, Any] | None) -> list[BaseEvent]:
        controls = CodexControls.of(ctx)
        controls.take_models(result if error is None else None)  # no list: the adapter's fixed one stays
        events: list[BaseEvent] = []
        if error is not None:
            events.append(ev.DebugEvent(level="warn", message=f"codex: model/list failed: {error_message(error)}"))
        return events + ([event] if (event := controls.options_event()) is not None else [])

    @staticmethod
    def _commands_event(skills_result: Any) -> BaseEvent:
        wire = commands.available(skills_result)
        listed = [ev.SlashCommand(name=c["name"], description=c["description"]) for c in wire]
        return ev.CommandsUpdateEvent(commands=listed, wire=wire)

    def _on_thread(
        self, ctx: ParseContext, result: Any, error: dict[str, Any] | None, method: str, params: dict[str, Any]
    ) -> list[BaseEvent]:
        """codex's answer to thread/start, /resume or /fork. A fork that fails is an error, never a fresh thread in
        its place: acp-mux then hands the conversation over instead (a fresh thread would silently lack it)."""
        thread_id = as_str(as_dict(as_dict(result).get("thread")).get("id"))
        resumed = method == "thread/resume"
        if resumed and error is not None and _NO_ROLLOUT in error_message(error).lower():
            # codex writes a thread's rollout with its first turn: a thread that never finished one (the bridge
            # stopped it first, e.g. a cancel in the first moments) cannot be resumed, and has nothing to lose.
            fresh = {k: v for k, v in params.items() if k != "threadId"}
            self._peer(ctx).request(
                ctx, "thread/start", fresh, lambda result, err: self._on_thread(ctx, result, err, "thread/start", fresh)
            )
            note = (
                f"codex had no record of thread {params.get('threadId')} (it never completed a turn); started a new one"
            )
            return [ev.DebugEvent(level="warn", message=note)]
        if error is not None or not thread_id:
            message = f"codex could not {method.split('/')[1]} the thread: {error_message(error)}"
            events = classify_failure(message, as_dict(as_dict(error).get("data")).get("codexErrorInfo"), ctx)
            if events[0].type == "error":  # without a thread the session cannot go on: not recoverable
                events = [ev.ErrorEvent(code=ErrorCode.PROTOCOL_ERROR, message=message)]
            return events
        CodexRun.of(ctx).thread = thread_id
        controls = CodexControls.of(ctx)
        controls.take_thread(result)
        if controls.unsent:  # chosen in the editor before the thread existed
            self._send_settings(ctx)
        events = ctx.session_start(thread_id, resumed=resumed)  # the prompts waiting in the run go out next
        return events + ([options] if (options := controls.options_event()) is not None else [])

    def accepts_prompts(self, ctx: ParseContext) -> bool:
        """The thread exists (until then the run holds the prompts, the first one included)."""
        return CodexRun.of(ctx).thread is not None

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        if not self.accepts_prompts(ctx):
            raise RuntimeError("codex: a prompt before its thread exists (the run holds those)")
        command = commands.parse(prompt)
        if command is not None:
            self._run_command(command, ctx)
        else:
            self._turn_start(prompt, ctx)

    def _turn_start(self, prompt: Prompt, ctx: ParseContext) -> None:
        run = CodexRun.of(ctx)
        params: dict[str, Any] = {"threadId": run.thread, "input": prompt_input(prompt)}
        if run.mode_dirty:
            run.mode_dirty = False
            approval, sandbox = APP_SERVER_POLICIES[run.mode or ASK_MODE.id]
            params["approvalPolicy"] = approval
            params["sandboxPolicy"] = dict(SANDBOX_POLICIES[sandbox])
            roots = CodexControls.of(ctx).roots
            if roots and sandbox == "workspace-write":  # the session's extra roots stay writable in the new mode
                params["sandboxPolicy"]["writableRoots"] = roots
        run.turn_requested = True
        self._peer(ctx).request(ctx, "turn/start", params, lambda result, error: self._on_turn(ctx, result, error))

    def _on_turn(self, ctx: ParseContext, result: Any, error: dict[str, Any] | None) -> list[BaseEvent]:
        if error is not None:  # no turn will run: open and close one so the prompt still gets its turn_end
            CodexRun.of(ctx).turn_requested = False
            message = f"codex rejected the prompt: {error_message(error)}"
            error_event = ev.ErrorEvent(code=ErrorCode.AGENT_ERROR, message=message, recoverable=True)
            return ctx.begin_turn() + end_failed_turn(ctx, [error_event])
        turn_id = as_str(as_dict(as_dict(result).get("turn")).get("id"))
        if turn_id and turn_id != CodexRun.of(ctx).turn_done:  # the response may trail turn/completed
            self._turn_known(ctx, turn_id)
        return []

    def _turn_known(self, ctx: ParseContext, turn_id: str) -> None:
        run = CodexRun.of(ctx)
        run.turn = turn_id
        if run.interrupt_pending:
            run.interrupt_pending = False
            self._send_interrupt(ctx)

    def interrupt(self, ctx: ParseContext) -> bool:
        """Always in-protocol: a signal would kill the whole app-server (and the session) instead of the turn.
        The subagents' running turns are interrupted too: codex lets a child thread run on past its parent's."""
        run = CodexRun.of(ctx)
        for thread in list(run.child_turns):
            self._interrupt_child(ctx, thread)
        if run.turn:
            self._send_interrupt(ctx)
        elif run.turn_requested:
            run.interrupt_pending = True  # turn/start is in flight: interrupt once its id is known
        return True  # (still in the handshake: nothing runs; the run withdraws the prompts it holds)

    def steer(self, prompt: Prompt, ctx: ParseContext) -> bool:
        """``turn/steer{threadId, expectedTurnId, input}`` (app-server 0.169.0, as codex-acp sends it): codex reads the
        message at its running turn's next step. False while the turn's id is not known yet (turn/start in flight)
        or no turn runs; a refusal (the turn ended meanwhile) is said as a warning."""
        run = CodexRun.of(ctx)
        if run.thread is None or not run.turn:
            return False
        params = {"threadId": run.thread, "expectedTurnId": run.turn, "input": prompt_input(prompt)}

        def answered(result: Any, error: dict[str, Any] | None) -> list[BaseEvent]:
            if error is None:
                return []
            return [ev.DebugEvent(level="warn", message=f"codex did not take the steer: {error_message(error)}")]

        self._peer(ctx).request(ctx, "turn/steer", params, answered)
        return True

    def stop_subagent(self, subagent_id: str, ctx: ParseContext) -> bool:
        """``turn/interrupt`` on the child thread a spawn call runs (its running turn): that subagent stops, its
        spawn call ends ``interrupted`` and the parent's turn goes on."""
        run = CodexRun.of(ctx)
        threads = [t for t, spawn in run.children.items() if spawn == subagent_id and t in run.child_turns]
        for thread in threads:
            self._interrupt_child(ctx, thread)
        return bool(threads)

    def _interrupt_child(self, ctx: ParseContext, thread: str) -> None:
        params = {"threadId": thread, "turnId": CodexRun.of(ctx).child_turns[thread]}
        self._peer(ctx).request(ctx, "turn/interrupt", params, lambda result, error: [])

    def _send_interrupt(self, ctx: ParseContext) -> None:
        run = CodexRun.of(ctx)
        params = {"threadId": run.thread, "turnId": run.turn}
        self._peer(ctx).request(ctx, "turn/interrupt", params, lambda result, error: [])

    def set_mode(self, mode: str, ctx: ParseContext) -> bool:
        resolved = resolve_app_mode(mode)
        if resolved is None:
            return False
        run = CodexRun.of(ctx)
        if resolved != run.mode:
            run.mode = resolved
            run.mode_dirty = True  # applied by the next turn/start (sticky in codex)
        return True

    def set_model(self, model: str, ctx: ParseContext) -> bool:
        """In-protocol (thread/settings/update): codex takes it from the next turn, no new process."""
        CodexControls.of(ctx).choose_model(model)
        self._apply_settings(ctx)
        return True

    def set_config_option(self, option_id: str, value: Any, ctx: ParseContext) -> bool:
        """Reasoning effort, fast mode, collaboration mode (:mod:`codex_settings`); False for anything else."""
        if not CodexControls.of(ctx).choose(option_id, value):
            return False
        self._apply_settings(ctx)
        return True

    def extra_directory_args(self, dirs: list[str]) -> list[str] | None:
        """Extra workspace roots become writable roots of codex's workspace-write sandbox (what codex-acp sets),
        as a global config override of the app-server: codex reports them back in the thread's sandbox, and
        acp-mux keeps them in the sandbox policy a later mode change sends."""
        return ["-c", f"sandbox_workspace_write.writable_roots={json.dumps(dirs)}"] if dirs else []

    def _apply_settings(self, ctx: ParseContext) -> None:
        if CodexRun.of(ctx).thread is None:
            CodexControls.of(ctx).unsent = True  # sent once the thread exists (_on_thread)
            return
        self._send_settings(ctx)

    def _send_settings(self, ctx: ParseContext, then: Callable[[], list[BaseEvent]] | None = None) -> None:
        """thread/settings/update with every control; codex's answer re-sends the editor's options (and ``then``)."""
        controls = CodexControls.of(ctx)
        controls.unsent = False
        params = controls.settings_update(CodexRun.of(ctx).thread or "")

        def on_result(_result: Any, error: dict[str, Any] | None) -> list[BaseEvent]:
            events: list[BaseEvent] = []
            if error is not None:
                message = f"codex did not take the new settings: {error_message(error)}"
                events.append(ev.DebugEvent(level="warn", message=message))
            if (options := controls.options_event()) is not None:
                events.append(options)
            return events + (then() if then is not None else [])

        controls.sent += 1
        request_id = f"acp-mux-settings-{controls.sent}"
        self._peer(ctx).side_request(ctx, request_id, "thread/settings/update", params, on_result)

    # ── slash commands ─────────────────────────────────────────────────────────────────────────────────────────
    def _run_command(self, command: commands.Command, ctx: ParseContext) -> None:
        """A built-in slash command sent as a prompt (:mod:`codex_commands`): a codex turn of its own (compact,
        review) or one short turn with acp-mux's answer from what codex reports."""
        run, peer = CodexRun.of(ctx), self._peer(ctx)
        usage = command.missing_input()
        if usage is not None:
            self._answer(ctx, "account/read", {}, lambda _result: usage)
        elif command.name in commands.TURN_COMMANDS:
            run.turn_requested = True
            params: dict[str, Any]
            if command.name == "compact":
                method, params = "thread/compact/start", {"threadId": run.thread}
            else:
                method, params = "review/start", {"threadId": run.thread, "target": command.review_target()}
            peer.request(ctx, method, params, lambda result, error: self._on_turn(ctx, result, error))
        elif command.name == "status":
            self._answer(ctx, "account/read", {}, lambda result: self._status_text(ctx, result))
        elif command.name == "skills":
            self._answer(ctx, "skills/list", {"cwds": [ctx.cwd]}, commands.skills_text)
        elif command.name == "mcp":
            self._answer(ctx, "mcpServerStatus/list", {}, commands.mcp_text)
        elif command.name == "rename":
            params = {"threadId": run.thread, "name": command.rest}
            self._answer(ctx, "thread/name/set", params, lambda _result: f"Renamed the session to {command.rest!r}.")
        elif command.name == "plan":
            controls = CodexControls.of(ctx)
            controls.collaboration = "default" if controls.collaboration == "plan" else "plan"
            text = "Plan mode is on." if controls.collaboration == "plan" else "Plan mode is off."
            self._send_settings(
                ctx, then=lambda: ctx.begin_turn() + ctx.text_delta(text) + ctx.end_text() + ctx.end_turn()
            )

    def _answer(self, ctx: ParseContext, method: str, params: dict[str, Any], text_of: Any) -> None:
        """One short turn whose answer acp-mux writes from codex's answer to ``method`` (an error is the turn's
        error, never an ``end_turn``)."""

        def on_result(result: Any, error: dict[str, Any] | None) -> list[BaseEvent]:
            if error is not None:
                failure = ev.ErrorEvent(
                    code=ErrorCode.AGENT_ERROR,
                    message=f"codex {method} failed: {error_message(error)}",
                    recoverable=True,
                )
                return ctx.begin_turn() + end_failed_turn(ctx, [failure])
            return ctx.begin_turn() + ctx.text_delta(str(text_of(result))) + ctx.end_text() + ctx.end_turn()

        self._peer(ctx).request(ctx, method, params, on_result)

    def _status_text(self, ctx: ParseContext, account: Any) -> str:
        run, controls = CodexRun.of(ctx), CodexControls.of(ctx)
        approval, sandbox = APP_SERVER_POLICIES[run.mode or ASK_MODE.id]
        used, size = run.context
        lines = [
            f"**Model:** {controls.model or 'codex default'}",
            f"**Reasoning effort:** {controls.current_effort() or 'model default'}",
            f"**Fast mode:** {'on' if controls.fast else 'off'}",
            f"**Collaboration mode:** {controls.collaboration}",
            f"**Directory:** {ctx.cwd}",
            f"**Approval:** {approval}",
            f"**Sandbox:** {sandbox}",
            f"**Account:** {commands.account_text(account)}",
            f"**Session:** `{run.thread}`",
            "",
            f"**Token usage:** {run.usage_total if run.usage_total is not None else 'data not available yet'}",
            f"**Context window:** {f'{round(100 * used / size)}% used ({used} / {size})' if size else 'data not available yet'}",
        ]
        return "  \n".join(lines)

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        question = ctx.questions.take(interaction_id)
        if question is None or question.agent is None:  # answered already, or codex cleared the request
            return
        peer, rpc_id, kind = self._peer(ctx), question.agent.request_id, question.agent.method
        if kind == "legacy":
            verdict = "approved" if decision.approve else "denied"  # "always": the bridge keeps the rule
            peer.respond(ctx, rpc_id, {"decision": verdict})
        elif kind == "permissions":
            granted = question.input if decision.approve else {}
            peer.respond(ctx, rpc_id, {"permissions": granted or {}, "scope": "turn"})
        elif kind == "elicitation":
            result = {"action": "accept", "content": {}} if decision.approve else {"action": "decline", "content": None}
            peer.respond(ctx, rpc_id, result)
        else:
            peer.respond(ctx, rpc_id, {"decision": _decision(decision)})

    # ── incoming ───────────────────────────────────────────────────────────────────────────────────────────────
    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        msg = try_json(line)
        if msg is None:
            return []
        peer = self._peer(ctx)
        kind = peer.classify(msg)
        try:
            if kind == "response":
                return peer.handle_response(msg)
            if kind in ("request", "notification"):  # item ids as the editor knows them (a child's may repeat ours)
                subagents.name_calls(as_dict(msg.get("params")), ctx)
            if kind == "request":
                params = as_dict(msg.get("params"))
                if subagents.unheard(params, ctx):
                    return self._refuse(msg, ctx)
                return subagents.link(self._on_request(msg, ctx), subagents.spawn_of(params, ctx), ctx)
            if kind == "notification":
                return subagents.link(self._on_notification(msg["method"], as_dict(msg.get("params")), ctx), None, ctx)
        except Exception as exc:  # a malformed message must never take the run down
            if kind == "request":  # ... nor leave codex waiting for an answer until the watchdog
                ctx.questions.forget_agent(msg["id"])
                peer.respond_error(ctx, msg["id"], INTERNAL_ERROR, f"acp-mux could not handle {msg['method']}: {exc}")
            return [ev.DebugEvent(level="warn", message=f"codex: could not handle {line[:200]!r}: {exc!r}")]
        if peer.answer_invalid(ctx, msg):
            return [ev.DebugEvent(level="warn", message=f"codex: answered a malformed request: {line[:200]!r}")]
        return []

    def _foreign(self, params: dict[str, Any], ctx: ParseContext) -> bool:
        """Notifications for other threads (a subagent's: :mod:`codex_subagents` shows those it knows)."""
        thread = params.get("threadId")
        ours = CodexRun.of(ctx).thread
        return bool(thread and ours and thread != ours)

    def _on_notification(self, method: str, params: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        if self._foreign(params, ctx):
            spawn_id = subagents.spawn_of(params, ctx)
            if spawn_id is None:
                return []
            return subagents.child_notification(method, params, spawn_id, ctx, self._item_started, self._item_completed)
        run = CodexRun.of(ctx)
        streamed = run.streamed
        item_id = as_str(params.get("itemId"))
        if method == "turn/started":
            turn_id = as_str(as_dict(params.get("turn")).get("id"))
            if turn_id:
                self._turn_known(ctx, turn_id)
            return ctx.begin_turn()
        if method == "turn/completed":
            return self._turn_completed(as_dict(params.get("turn")), ctx)
        if method == "item/agentMessage/delta":
            streamed.add(item_id)
            return ctx.text_delta(as_str(params.get("delta")), item_id or None)  # the item names the message
        if method in ("item/reasoning/summaryTextDelta", "item/reasoning/textDelta"):
            streamed.add(item_id)
            return ctx.thinking_delta(as_str(params.get("delta")), item_id or None)
        if method == "item/reasoning/summaryPartAdded":
            index = as_int(params.get("summaryIndex")) or 0
            return ctx.thinking_delta("\n\n", item_id or None) if index > 0 and item_id in streamed else []
        if method == "item/commandExecution/outputDelta":
            streamed.add(item_id)
            delta = as_str(params.get("delta"))
            return shell_begin(ctx, item_id) + ([ev.ShellStdoutDeltaEvent(delta=delta)] if delta else [])
        if method == "item/mcpToolCall/progress":  # an MCP server's progress notification, relayed by codex
            message = as_str(params.get("message"))
            if not item_id or ctx.tool_name(item_id) is None:
                return []
            return [ev.ToolProgressEvent(tool_call_id=item_id, message=message or None)]
        if method == "item/fileChange/outputDelta":
            run.patch_output[item_id] = as_str(params.get("delta"))
            return []
        if method == "item/started":
            return self._item_started(as_dict(params.get("item")), ctx)
        if method == "item/completed":
            return self._item_completed(as_dict(params.get("item")), ctx)
        if method == "thread/started":
            thread_id = as_str(as_dict(params.get("thread")).get("id"))
            return ctx.session_start(thread_id) if thread_id and thread_id == run.thread else []
        if method == "thread/tokenUsage/updated":
            return self._usage(as_dict(params.get("tokenUsage")), ctx)
        if method == "turn/plan/updated":
            run.plan_seq += 1
            seq = run.plan_seq
            steps = [_plan_step(step) for step in params.get("plan") or ()]
            return plan_tool(ctx, f"plan-{seq}", steps, params.get("explanation"))
        if method == "turn/diff/updated":
            run.diff = as_str(params.get("diff"))
            return []
        if method == "error":
            return self._error(params, ctx)
        if method == "account/rateLimits/updated":  # kept for the reset time of a limit that ends a turn
            run.limit_resets_at = limit_resets_at(params.get("rateLimits"))
            return []
        if method == "serverRequest/resolved":  # codex cleared a request (turn ended): forget our side of it
            ctx.questions.forget_agent(params.get("requestId"))
            return []
        if method in ("warning", "configWarning", "deprecationNotice", "guardianWarning"):
            text = as_str(params.get("message")) or as_str(params.get("summary"))
            return [ev.DebugEvent(level="warn", message=f"codex: {text}")] if text else []
        if method == "model/rerouted":
            text = f"codex: model rerouted {params.get('fromModel')} → {params.get('toModel')} ({params.get('reason')})"
            return [ev.DebugEvent(level="info", message=text)]
        return []  # deltas we do not model (plan/delta, status changes, rate-limit snapshots, …)

    def _turn_completed(self, turn: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        status = as_str(turn.get("status"))
        run = CodexRun.of(ctx)
        run.turn_done, run.turn = run.turn or as_str(turn.get("id")), None
        run.interrupt_pending = run.turn_requested = False
        run.retries = 0
        pending_error, run.turn_error = as_dict(run.turn_error), None
        unreachable, run.unreachable = run.unreachable, ""
        if unreachable and status in ("interrupted", "failed"):  # interrupted by us: the model was never reached
            return unreachable_failure(unreachable, ctx)
        if status == "interrupted":  # the editor's cancel, or codex's own: never a finished turn (end_turn)
            return ctx.close_open("interrupted") + [ev.InterruptedEvent()] + ctx.end_turn()
        if status == "failed":
            error = as_dict(turn.get("error")) or pending_error
            return end_failed_turn(
                ctx, classify_failure(as_str(error.get("message")), error.get("codexErrorInfo"), ctx)
            )
        events = ctx.end_turn()
        if pending_error:
            events.append(ev.DebugEvent(level="warn", message=f"codex: {as_str(pending_error.get('message'))}"))
        return events

    def _error(self, params: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        error = as_dict(params.get("error"))
        message = as_str(error.get("message"))
        if params.get("willRetry"):
            details = as_str(error.get("additionalDetails"))
            events = retry_events(message, ctx, error.get("codexErrorInfo"), details)
            return events + self._unreachable(message, details, error.get("codexErrorInfo"), ctx)
        if ctx.in_turn:  # turn/completed{failed} follows with the same error: report it once, there
            CodexRun.of(ctx).turn_error = error
            return []
        return classify_failure(message, error.get("codexErrorInfo"), ctx)

    def _unreachable(self, message: str, details: str, info: Any, ctx: ParseContext) -> list[BaseEvent]:
        """codex reconnects to a model nothing answers (no HTTP status: the connection itself failed) minutes
        apart, for many minutes: the turn is interrupted at the first such failure, and its end is the typed error
        (:meth:`_turn_completed`)."""
        run = CodexRun.of(ctx)
        if run.unreachable or not no_answer(message, details, info):
            return []
        run.unreachable = details or message or "the connection failed"
        if run.turn:
            self._send_interrupt(ctx)
        else:
            run.interrupt_pending = True
        return []

    def _usage(self, usage: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        total, last = as_dict(usage.get("total")), as_dict(usage.get("last"))
        total_tokens = as_int(total.get("totalTokens"))
        used, size = as_int(last.get("totalTokens")) or 0, as_int(usage.get("modelContextWindow")) or 0
        run = CodexRun.of(ctx)
        run.context = (used, size)
        repeated = total_tokens is not None and total_tokens == run.usage_total
        run.usage_total = total_tokens
        if repeated or not ctx.in_turn:  # a repeat, or thread/resume restoring the old totals: nothing new was spent
            return []
        events: list[BaseEvent] = [request_usage(last, size or None)]
        if size and used / size >= 0.8:
            pct = round(100 * used / size, 1)
            events.append(ev.ContextLimitWarningEvent(used_tokens=used, max_tokens=size, pct_used=pct))
        return events

    # ── items ──────────────────────────────────────────────────────────────────────────────────────────────────
    def _item_started(self, item: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        kind, item_id = as_str(item.get("type")), as_str(item.get("id"))
        if kind == "commandExecution":
            tool_input = {"command": as_str(item.get("command")), "cwd": as_str(item.get("cwd")) or ctx.cwd}
            return ctx.tool_start(item_id, "shell", tool_input)
        if kind == "fileChange":
            return ctx.tool_start(item_id, "apply_patch", {"changes": normalize_changes(item.get("changes"))})
        if kind == "mcpToolCall":
            server, tool = as_str(item.get("server")), as_str(item.get("tool"))
            args = item.get("arguments")
            return ctx.tool_start(item_id, f"mcp__{server}__{tool}", args if args is not None else {}) + [
                ev.McpToolCallStartEvent(tool_call_id=item_id, server=server, tool_name=tool, input=args)
            ]
        if kind == "webSearch":
            return ctx.tool_start(item_id, "web_search", {"query": as_str(item.get("query"))})
        if kind == "imageView":
            return ctx.tool_start(item_id, "view_image", {"path": as_str(item.get("path"))})
        if kind == "subAgentActivity":
            return subagents.activity(item, ctx)
        if kind == "collabAgentToolCall":
            return subagents.collab_call(item, True, ctx)
        return []

    def _item_completed(self, item: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        kind, item_id = as_str(item.get("type")), as_str(item.get("id"))
        run = CodexRun.of(ctx)
        streamed = run.streamed
        status = as_str(item.get("status"))
        if kind == "agentMessage":
            said = [] if item_id in streamed else ctx.text_delta(as_str(item.get("text")), item_id or None)
            return said + ctx.end_text()
        if kind == "reasoning":
            if item_id not in streamed:
                parts = item.get("summary") or item.get("content") or []
                thought = "\n\n".join(p for p in parts if isinstance(p, str))
                return ctx.thinking_delta(thought, item_id or None) + ctx.end_thinking()
            return ctx.end_thinking()
        if kind == "commandExecution":
            events = self._item_started(item, ctx) if ctx.tool_name(item_id) is None else []
            output = as_str(item.get("aggregatedOutput"))
            code, duration = as_int(item.get("exitCode")), as_int(item.get("durationMs"))
            return events + shell_end(ctx, item_id, status, output, code, duration)
        if kind == "fileChange":
            events = self._item_started(item, ctx) if ctx.tool_name(item_id) is None else []
            changes = normalize_changes(item.get("changes"))
            if status == "declined":
                return events + ctx.tool_error(item_id, "declined by user")
            if status == "failed":
                detail = run.patch_output.get(item_id) or "the patch could not be applied"
                return events + ctx.tool_error(item_id, detail)
            return events + ctx.tool_result(item_id, changes_summary(changes)) + file_events(changes)
        if kind == "mcpToolCall":
            server, tool = as_str(item.get("server")), as_str(item.get("tool"))
            events = self._item_started(item, ctx) if ctx.tool_name(item_id) is None else []
            error = item.get("error")
            if status == "failed" or error:
                text = as_str(as_dict(error).get("message")) or "MCP tool call failed"
                return (
                    events
                    + ctx.tool_error(item_id, text)
                    + [ev.McpToolErrorEvent(tool_call_id=item_id, server=server, tool_name=tool, error=text)]
                )
            result = item.get("result")
            return (
                events
                + ctx.tool_result(item_id, result)
                + [ev.McpToolResultEvent(tool_call_id=item_id, server=server, tool_name=tool, output=result)]
            )
        if kind == "webSearch":
            events = self._item_started(item, ctx) if ctx.tool_name(item_id) is None else []
            return events + ctx.tool_result(item_id, item.get("action") or as_str(item.get("query")))
        if kind == "imageView":
            events = self._item_started(item, ctx) if ctx.tool_name(item_id) is None else []
            path = as_str(item.get("path"))
            return events + ctx.tool_result(item_id, path) + [ev.FileReadEvent(path=path)]
        if kind == "contextCompaction":
            return [ev.ContextCompactedEvent()]
        if kind == "plan":  # plan mode's proposed plan (``<proposed_plan>``): its text, as codex-acp shows it
            return ctx.text_delta(as_str(item.get("text")))
        if kind == "subAgentActivity":
            return subagents.activity(item, ctx)
        if kind == "collabAgentToolCall":
            return subagents.collab_call(item, False, ctx)
        return []

    # ── server → client requests ───────────────────────────────────────────────────────────────────────────────
    def _on_request(self, msg: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        method, rpc_id, params = msg["method"], msg["id"], as_dict(msg.get("params"))
        interaction_id = f"codex-approval-{rpc_id}"
        kind = ""  # how codex takes the answer (AgentEnd.method)
        events: list[BaseEvent] = []
        if method in ("item/commandExecution/requestApproval", "execCommandApproval"):
            legacy = method == "execCommandApproval"
            item_id = as_str(params.get("callId" if legacy else "itemId")) or f"codex-call-{rpc_id}"
            command = params.get("command")
            command = shlex.join(command) if isinstance(command, list) else as_str(command)
            tool_input = {"command": command, "cwd": as_str(params.get("cwd")) or ctx.cwd}
            if ctx.tool_name(item_id) is None:  # always link to an announced tool call
                events += ctx.tool_start(item_id, "shell", tool_input)
            else:
                tool_input = ctx.tool_input(item_id) or tool_input
            kind = "legacy" if legacy else "command"
            reason = as_str(params.get("reason"))
            network = params.get("networkApprovalContext")
            detail = command or f"network access: {json.dumps(network)}"
            events.append(
                ev.ApprovalRequestEvent(
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
            item_id = as_str(params.get("callId" if legacy else "itemId")) or f"codex-call-{rpc_id}"
            if ctx.tool_name(item_id) is None:
                changes = [
                    {"path": path, **as_dict(change)} for path, change in as_dict(params.get("fileChanges")).items()
                ]
                events += ctx.tool_start(item_id, "apply_patch", {"changes": normalize_changes(changes)})
            tool_input = ctx.tool_input(item_id) or {}
            changes = normalize_changes(tool_input.get("changes"))
            paths = [f"{c['kind']} {c.get('move_path') or c['path']}" for c in changes]
            grant_root, reason = as_str(params.get("grantRoot")), as_str(params.get("reason"))
            if grant_root:
                paths.append(f"and allow writes under {grant_root} for this session")
            kind = "legacy" if legacy else "patch"
            events.append(
                ev.ApprovalRequestEvent(
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
            kind = "permissions"
            events.append(
                ev.ApprovalRequestEvent(
                    interaction_id=interaction_id,
                    action=as_str(params.get("reason")) or "Grant additional permissions",
                    detail=json.dumps(permissions, ensure_ascii=False),
                    tool_name="request_permissions",
                    risk_level="high",
                    tool_call_id=as_str(params.get("itemId")) if ctx.tool_name(as_str(params.get("itemId"))) else None,
                    input=permissions,
                )
            )
        elif method == "mcpServer/elicitation/request" and _approval_elicitation(params):
            kind = "elicitation"
            events.append(
                ev.ApprovalRequestEvent(
                    interaction_id=interaction_id,
                    action=as_str(params.get("message")) or "Allow MCP tool call",
                    detail=as_str(params.get("serverName")),
                    tool_name="mcp",
                    risk_level="medium",
                )
            )
        else:  # questions, dynamic tools, elicitation forms: not bridged yet, so never leave codex waiting
            return self._refuse(msg, ctx)
        ctx.questions.ask(
            cast("ApprovalRequestEvent", events[-1]), AgentEnd(rpc_id, kind)
        )  # the question is the last event
        return events

    def _refuse(self, msg: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        """Answer a request nobody can take (not bridged, or a subagent's after its parent's turn) with a refusal,
        so codex never waits for it: approvals are declined, anything else is an error."""
        method, rpc_id, peer = msg["method"], msg["id"], self._peer(ctx)
        if method == "mcpServer/elicitation/request":
            peer.respond(ctx, rpc_id, {"action": "decline", "content": None})
        elif method in ("item/commandExecution/requestApproval", "item/fileChange/requestApproval"):
            peer.respond(ctx, rpc_id, {"decision": "decline"})
        elif method in ("execCommandApproval", "applyPatchApproval"):
            peer.respond(ctx, rpc_id, {"decision": "denied"})
        else:
            peer.respond_error(ctx, rpc_id, METHOD_NOT_FOUND, f"acp-mux does not support {method}")
        return [ev.DebugEvent(level="warn", message=f"codex: declined request {method} (nobody can answer it)")]

    def finish(self, status: ExitStatus, ctx: ParseContext) -> Iterable[BaseEvent]:
        self._peer(ctx).pending.clear()  # nothing will answer our requests any more
        return subagents.link(list(ctx.finish(status)), None, ctx)  # a subagent's calls it closes stay its own


def _decision(decision: ApprovalDecision) -> Any:
    """The v2 decision, always for this one request. "Always" is never codex's own session scope or exec-policy
    amendment: codex's session approval of a file change also grants its ``grantRoot`` (writes under a whole
    folder), and an amendment is a prefix rule of codex's own kept beyond the session, both wider than the label
    the person chose. The bridge keeps the "always" rule and answers codex's next ask itself."""
    return "accept" if decision.approve else "decline"  # decline: the turn continues; "cancel" would interrupt it


def _plan_step(step: Any) -> dict[str, str]:
    """A ``turn/plan/updated`` step in codex's own ``update_plan`` tool shape (snake_case status)."""
    step = as_dict(step)
    return {"step": as_str(step.get("step")), "status": _PLAN_STATUS.get(as_str(step.get("status")), "pending")}


def _approval_elicitation(params: dict[str, Any]) -> bool:
    """MCP tool-call approvals arrive as elicitations tagged ``codex_approval_kind: "mcp_tool_call"``."""
    meta = as_dict(params.get("_meta")) or as_dict(params.get("meta"))
    return meta.get("codex_approval_kind") == "mcp_tool_call"


def _command_risk(actions: object) -> Literal["low", "medium"]:
    """Commands codex parsed as pure reads/listings/searches are low risk; anything else is medium."""
    kinds = {as_str(as_dict(a).get("type")) for a in actions} if isinstance(actions, list) and actions else {"unknown"}
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
    local = file_uri_to_path(image.uri) if image.uri and not image.data else None
    if local:
        return {"type": "localImage", "path": local}
    if not image.data and image.uri:
        return {"type": "image", "url": image.uri}
    return {"type": "image", "url": f"data:{image.mime_type};base64,{image.data}"}

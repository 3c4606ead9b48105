"""Adapter for the bundled scripted agent (``adapters/stream_agents/scripted_agent.py``): the demo and the bridge's test double.

It is a line-stream agent with a persistent process, in-protocol approvals and interrupt — the same shape as
Claude's stream-json — so everything the server does is exercised through the real adapter contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.run.interaction import AgentEnd
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.core.run.prompt import Prompt
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

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent


TOOLS = ToolTable(
    {
        "Write": ToolSpec(
            kind="edit",
            title="Write {file_path}",
            path_args=("file_path",),
            diff=lambda a: [DiffSpec(a["file_path"], a.get("content", ""), None)],
        ),
        "Edit": ToolSpec(
            kind="edit",
            title="Edit {file_path}",
            path_args=("file_path",),
            diff=lambda a: [DiffSpec(a["file_path"], a.get("new_string", ""), a.get("old_string", ""))],
        ),
        "Read": ToolSpec(kind="read", title="Read {file_path}", path_args=("file_path",)),
        "Bash": ToolSpec(kind="execute", title="{command}", command_arg="command"),
        "TodoWrite": ToolSpec(kind="think", title="Update plan", is_plan=True),
        "mcp__docs__search": ToolSpec(kind="search", title="Search docs: {query}"),
    }
)


@dataclass
class ScriptedRun(PerRun):
    """What one run of the scripted agent remembers (``ScriptedRun.of(ctx)``)."""

    KEY = "scripted"
    plans: int = 0  # plan updates so far: each becomes its own TodoWrite tool call


class ScriptedAdapter(AgentAdapter):
    name = "demo"
    capabilities = AgentCapabilities(persistent_process=True)
    tool_table = TOOLS
    modes = (
        ModeInfo("default", "Ask", "Ask before every edit and command"),
        ModeInfo("bypass", "Bypass permissions", "Run everything without asking"),
    )
    default_mode = "default"
    models = ("scripted-1",)
    native_fork = True  # --resume ID --fork-session, as claude

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        args = ["-m", "acp_mux.adapters.stream_agents.scripted_agent"]
        if options.session_id:
            args += ["--resume", options.session_id]
            if options.fork_session:
                args.append("--fork-session")
        if options.mode:
            args += ["--mode", options.mode]
        return SpawnSpec(
            command=options.binary or self.binary, args=args + options.extra_args, env=options.env, cwd=options.cwd
        )

    def start(self, options: RunOptions, ctx: ParseContext) -> None:
        if options.prompt is not None:
            self.send_prompt(options.prompt, ctx)

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        ctx.send({"type": "prompt", "text": prompt.as_text()})

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        question = ctx.questions.take(interaction_id)
        native = question.agent.request_id if question is not None and question.agent is not None else interaction_id
        ctx.send({"type": "approval", "id": native, "allow": decision.approve})

    def interrupt(self, ctx: ParseContext) -> bool:
        ctx.send({"type": "interrupt"})
        return True

    def steer(self, prompt: Prompt, ctx: ParseContext) -> bool:
        ctx.send({"type": "steer", "text": prompt.as_text()})
        return True

    def set_mode(self, mode: str, ctx: ParseContext) -> bool:
        ctx.send({"type": "mode", "mode": mode})
        return True

    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        msg = try_json(line)
        if msg is None:
            return [ev.DebugEvent(level="verbose", message=f"non-JSON output: {line[:120]}")] if line.strip() else []
        handler = getattr(self, "_on_" + str(msg.get("type")), None)
        return handler(msg, ctx) if handler is not None else []

    # ── native events ──────────────────────────────────────────────────────────────────────────────────────────
    def _on_ready(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        return ctx.session_start(str(m["session"]), resumed=bool(m.get("resumed")))

    def _on_turn_start(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        return ctx.begin_turn()

    def _on_text(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        return ctx.text_delta(str(m.get("text", "")))

    def _on_thinking(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        return ctx.thinking_delta(str(m.get("text", "")))

    def _on_plan(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        run = ScriptedRun.of(ctx)
        run.plans += 1
        tool_id = f"plan-{ctx.turn_index}-{run.plans}"
        return ctx.tool_start(tool_id, "TodoWrite", {"todos": m.get("entries", [])}) + ctx.tool_result(tool_id, "ok")

    def _on_tool_use(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        return ctx.tool_start(str(m["id"]), str(m["name"]), m.get("input") or {})

    def _on_approval_request(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        native_id = str(m["id"])
        name = str(m.get("name", "tool"))
        tool_input = m.get("input") or {}
        kind = self.tool_table.lookup(name).kind
        asked = ev.ApprovalRequestEvent(
            interaction_id=native_id,
            action=f"{name} {tool_input.get('file_path') or tool_input.get('command') or ''}".strip(),
            detail=str(tool_input),
            tool_name=name,
            risk_level="medium" if kind in ("edit", "execute") else "low",
            tool_call_id=m.get("tool_id"),
            input=tool_input,
        )
        return [ctx.questions.ask(asked, AgentEnd(native_id))]

    def _on_approval_withdrawn(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        native_id = str(m["id"])
        if ctx.questions.take(native_id) is None:
            return []
        return [ev.ApprovalDeniedEvent(interaction_id=native_id, reason="withdrawn by the agent")]

    def _on_tool_result(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        tool_id = str(m["id"])
        if m.get("ok"):
            return ctx.tool_result(tool_id, m.get("output"))
        return ctx.tool_error(tool_id, str(m.get("output", "failed")))

    def _on_tool_progress(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        def number(key: str) -> float | None:
            value = m.get(key)
            return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

        message = m.get("message")
        return [
            ev.ToolProgressEvent(
                tool_call_id=str(m.get("id", "")),
                progress=number("progress"),
                total=number("total"),
                message=message if isinstance(message, str) else None,
            )
        ]

    def _on_shell_start(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        return [ev.ShellStartEvent(command=str(m.get("command", "")), cwd=ctx.cwd)]

    def _on_shell_output(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        return [ev.ShellStdoutDeltaEvent(delta=str(m.get("text", "")))]

    def _on_shell_exit(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        return [ev.ShellExitEvent(exit_code=int(m.get("code", 0)), duration_ms=int(m.get("ms", 0)))]

    def _on_usage(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        tokens_in, tokens_out = int(m.get("input_tokens", 0)), int(m.get("output_tokens", 0))
        cost = ev.CostRecord(total_usd=float(m.get("cost_usd", 0)), input_tokens=tokens_in, output_tokens=tokens_out)
        return [ev.TokenUsageEvent(input_tokens=tokens_in, output_tokens=tokens_out), ev.CostEvent(cost=cost)]

    def _on_error(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        message = str(m.get("message", "error"))
        if m.get("kind") == "auth":
            guidance = "Run `acp-mux --agent demo --login`."
            return ctx.close_open() + [ev.AuthErrorEvent(message=message, guidance=guidance)]
        if m.get("kind") in ("rate", "quota"):  # quota: a usage limit the agent will not retry past
            return [ev.RateLimitErrorEvent(message=message, retry_after_ms=m.get("retry_after_ms"), kind=m["kind"])]
        return [ev.ErrorEvent(code="AGENT_ERROR", message=message, recoverable=True)]

    def _on_turn_end(self, m: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        stop = m.get("stop")
        events: list[BaseEvent] = []
        if stop == "refusal":
            events.append(ev.ErrorEvent(code="REFUSAL", message="The agent declined this request.", recoverable=True))
        elif stop == "max_tokens":
            message = "The response hit the token limit."
            events.append(ev.ErrorEvent(code="MAX_TOKENS", message=message, recoverable=True))
        elif stop == "max_turns":
            return ctx.close_open("turn limit reached") + [ev.TurnLimitEvent(max_turns=1)]
        return events + ctx.end_turn()

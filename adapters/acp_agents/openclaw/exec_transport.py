"""OpenClaw without a gateway: one ``openclaw agent exec --json`` per turn (``--transport exec``, and the fallback
of the gateway transport when its gateway cannot start).

``agent exec`` runs one isolated, embedded agent turn under OpenClaw's full execution policy and prints a single
JSON envelope at the end (pretty-printed over many lines)::

    {"ok": true, "status": "ok"|"error"|"timeout", "final": "…", "payloads": [{"text", "mediaUrl"}],
     "usage": {"input", "output", "cacheRead", "cacheWrite", "total", "cost": {"total"}}, "model", "provider",
     "sessionId", "error": {"message", "kind"}}

So this transport has no streaming (the answer arrives whole), no tool calls to show, no permission questions, no
cancel but stopping the process, and no memory: each turn is a new, isolated OpenClaw session. The conversation says
so once. The prompt goes through a private file (``--message-file``, 0600, removed with the run), never the command line; tools run
in the session's folder (``--cwd``).
"""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING, Any, Iterable

from acp_mux.adapters.base import AgentAdapter, AgentCapabilities
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.codes import ErrorCode
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.files.private import private_path
from acp_mux.core.process.spawn import ExitStatus, SpawnSpec
from acp_mux.core.run.prompt import Prompt
from acp_mux.core.text.shapes import as_count, as_dict, as_str

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent


LIMITS = (
    "runs through `openclaw agent exec`: no streaming, no permission questions, "
    "and each message starts a new OpenClaw session without the earlier ones"
)
_AUTH = re.compile(r"\b(401|403)\b|unauthori[sz]ed|authentication|api key", re.I)
_RATE = re.compile(r"\b429\b|rate.?limit|too many requests|quota", re.I)
_STATE = "openclaw_exec_run"


class OpenclawExecAdapter(AgentAdapter):
    name = "openclaw"
    capabilities = AgentCapabilities(persistent_process=False)

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        if options.prompt is None:  # nothing to run until a prompt comes (a warm start): a process that just ends
            return SpawnSpec(command=sys.executable, args=["-c", ""], env=options.env, cwd=options.cwd)
        path = private_path("openclaw-message.md")  # 0600 in the bridge's 0700 dir, removed when the run ends
        command = self.resolve_binary(options.binary, options.env)
        args = ["agent", "exec", "--json", "--message-file", path, "--cwd", options.cwd]
        if options.model:
            args += ["--model", options.model]
        return SpawnSpec(
            command=command,
            args=[*args, *options.extra_args],
            env=options.env,
            cwd=options.cwd,
            private_files=((path, options.prompt.as_text()),),
        )

    def start(self, options: RunOptions, ctx: ParseContext, note: str = "") -> None:
        ctx.state[_STATE] = {"lines": [], "options": options, "note": f"_({note}OpenClaw {LIMITS}.)_\n\n"}

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        raise NotImplementedError("openclaw agent exec answers one prompt per process")

    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        ctx.state[_STATE]["lines"].append(line)  # one envelope over many lines: read whole at exit
        return []

    def finish(self, status: ExitStatus, ctx: ParseContext) -> Iterable[BaseEvent]:
        run = ctx.state.get(_STATE) or {}
        options: RunOptions | None = run.get("options")
        if options is None or options.prompt is None:
            return []
        envelope = _envelope("\n".join(run.get("lines") or ()))
        if envelope is None:
            return list(ctx.finish(status))
        events: list[BaseEvent] = ctx.begin_turn() + ctx.text_delta(run.get("note", "")) + ctx.end_text()
        text = as_str(envelope.get("final"))
        events += ctx.text_delta(text) + ctx.end_text()
        usage = as_dict(envelope.get("usage"))
        if usage:
            read, written = as_count(usage.get("cacheRead")), as_count(usage.get("cacheWrite"))
            events.append(
                ev.TokenUsageEvent(  # its input leaves the cache out; the event's has it in (events.py)
                    input_tokens=as_count(usage.get("input")) + read + written,
                    output_tokens=as_count(usage.get("output")),
                    cached_tokens=read or None,
                    cache_write_tokens=written or None,
                    total_tokens=as_count(usage.get("total")) or None,
                )
            )
            cost = as_dict(usage.get("cost"))
            if isinstance(cost.get("total"), (int, float)):
                events.append(
                    ev.CostEvent(
                        cost=ev.CostRecord(
                            total_usd=float(cost["total"]),
                            input_tokens=as_count(usage.get("input")),
                            output_tokens=as_count(usage.get("output")),
                        )
                    )
                )
        if envelope.get("status") != "ok":
            events += _failure(envelope)
        return events + ctx.end_turn()


def _envelope(text: str) -> dict[str, Any] | None:
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _failure(envelope: dict[str, Any]) -> list[BaseEvent]:
    error = as_dict(envelope.get("error"))
    message = str(error.get("message") or f"openclaw agent exec ended with status {envelope.get('status')}")
    if _AUTH.search(message):
        return [ev.AuthErrorEvent(message=message)]
    if _RATE.search(message):
        return [ev.RateLimitErrorEvent(message=message)]
    return [ev.ErrorEvent(code=ErrorCode.AGENT_ERROR, message=message, recoverable=True)]

"""oh-my-pi (``omp acp``, ``@oh-my-pi/pi-coding-agent`` on bun) through its own ACP mode, on the ACP-client family.

What is only omp's (everything else is the family's, ``acp_client.py``; the facts are pinned by the recorded
transcripts in ``tests/fixtures/omp``):
- omp asks before edits only when told to: the bridge starts it with ``--approval-mode always-ask`` (omp's own
  default, ``yolo``, writes unasked even when the editor rejects), so writes, edits and commands all ask;
- it asks through two channels. ``bash`` (and destructive edit/delete/move) sends ``session/request_permission``
  *before* its ``tool_call`` (the family announces the call first). ``write`` and ``edit`` send a form
  elicitation (``elicitation/create``, one field ``value`` ∈ ["Approve", "Deny"], no tool call id) and only to a
  client that advertises ``elicitation.form``; without it omp refuses those tools without asking. The bridge
  advertises it and shows the question as a permission dialog about a tool call built from the message
  (``Allow tool: write`` / ``Path: …`` / ``Content:`` …, or ``Allow tool: edit`` / ``File: <relative>``): kind
  edit, the file as location, the new content as a diff for a write. omp's own ``tool_call`` follows the answer
  and is linked to that call (same file, else the oldest waiting), so the editor sees one call;
- omp never answers a prompt with a JSON-RPC error: a 401 or 429 arrives as one text chunk ("401 …", "429 …")
  and ``end_turn`` without usage. That turn becomes a typed auth or rate-limit error (:meth:`failed_turn`);
- the model is a config option (category ``model``), not ACP ``models``: :meth:`set_model` sets that option;
- omp's own request ids start at 0 and overlap ours; the family's peer tells requests from responses by shape;
- a failing model (500, 429) is retried by omp itself and nothing of it reaches ACP or stderr (its ACP mapper drops
  ``auto_retry_start``): the HTTP layer tries each request again (12 requests, ~32 s for a 500), then the turn is
  retried (``retry.maxRetries``, default 10: a persistent 500 ends after 397 s, 132 requests). Only its log file
  (``~/.omp/logs/omp.<date>.<pid>.log``, one "agent turn ended with provider error" line per turn attempt) tells:
  the bridge follows it (:meth:`side_logs`, ``omp_retries.py``) and shows each failed attempt omp will retry, with
  omp's message, as it is written; the final failure is a JSON-RPC error (a 500) or the "429 …" turn above. The
  HTTP layer's retries are logged by no one, so the bridge starts omp with ``-e omp_extension/http_failures.ts``,
  which logs each retryable failed model answer (status and message only) into that same file: the first of a
  prompt is shown at once, while omp still retries the request;
- a model address where nothing answers (ECONNREFUSED) is retried by omp for ~30 s in silence, then ends as a
  ``refusal`` with the error as text. The extension logs the first request that got no answer; the bridge then
  cancels omp's prompt and ends the turn with the typed error within a second or two (``adapters/unreachable_model.py``).
"""

from __future__ import annotations

from acp_mux.core.text.shapes import as_str
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_mux.adapters.acp_agents import omp_retries
from acp_mux.adapters.acp_agents.acp_client import AcpClientAdapter, AcpRun, retry_note
from acp_mux.adapters.unreachable_model import unreachable_answer, unreachable_failure
from acp_mux.adapters.base import AgentCapabilities
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.log_follow import SideLog
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import SpawnSpec

if TYPE_CHECKING:
    from acp_mux.adapters.acp_agents.acp_client import WireObject
    from acp_mux.core.events.union import BaseEvent
    from acp_mux.core.run.prompt import Prompt


# "401 Incorrect API key …", "429 Rate limit reached …": omp's whole answer when the provider refused the request.
_HTTP_FAILURE = re.compile(r"^\s*([45]\d\d)\b")
_KINDS = {"write": "edit", "edit": "edit", "delete": "delete", "move": "move", "bash": "execute"}
MAX_DIFF_BYTES = 1_000_000
STAMP_PRECISION_S = 0.001  # omp's log timestamps are in whole milliseconds
# acp-mux's omp extension: logs each failed model answer omp's HTTP layer retries (omp itself logs none of them).
HTTP_FAILURES = Path(__file__).resolve().parent / "omp_extension" / "http_failures.ts"


@dataclass
class OmpRun(AcpRun):
    """The family's run state, plus what omp's quirks need (``OmpRun.of(ctx)``)."""

    saw_usage: bool = False  # the prompt's answer carried usage: a real model turn, not a refused request
    failed_turns: int = 0  # turn attempts of the prompt in flight that failed at the provider (omp's log)
    answer_shown: bool = False  # the prompt's first failed HTTP answer was shown (acp-mux's omp extension)
    prompt_sent_at: float = 0.0  # wall clock when the prompt in flight was sent (omp's log lines carry wall time)
    unreachable: str = ""  # the prompt's model request got no answer at all (acp-mux's extension): why


class OmpAdapter(AcpClientAdapter):
    name = "omp"
    acp_args = ("acp", "--approval-mode", "always-ask", "-e", str(HTTP_FAILURES))
    elicitation_form = True
    run_type = OmpRun
    native_fork = True  # it advertises sessionCapabilities.fork: session/fork is forwarded (acp_client)
    capabilities = AgentCapabilities(
        persistent_process=True, supports_images=True, supports_mcp_http=True, supports_mcp_sse=True
    )

    # ── retries: only in its log file ──────────────────────────────────────────────────────────────────────────
    def side_logs(self, spec: SpawnSpec, agent_pid: int) -> list[SideLog]:
        env = spec.env if spec.env is not None else dict(os.environ)
        limit = omp_retries.max_retries(env)
        return [
            SideLog(
                find=omp_retries.log_finder(env, agent_pid),
                events=lambda line, ctx: self._retry_events(line, limit, ctx),
            )
        ]

    def _retry_events(self, line: str, limit: int, ctx: ParseContext) -> list[BaseEvent]:
        """The model failed an answer of the prompt in flight and omp will try again: say so, with the provider's
        message. The first failed HTTP answer (acp-mux's extension logs it, seconds after the failure) is shown
        once; then each failed turn attempt (omp's own line, after its silent HTTP retries). A status omp never
        retries, or its last attempt, shows nothing: its error follows at once."""
        run = OmpRun.find(ctx)
        if run is None or run.prompt_in_flight is None:
            return []
        unreachable = omp_retries.unreachable(line)
        answer = omp_retries.failed_answer(line) if unreachable is None else None
        found = omp_retries.failed_turn(line) if answer is None and unreachable is None else None
        if answer is None and found is None and unreachable is None:
            return []
        written = omp_retries.logged_at(line)
        if written is not None and written + STAMP_PRECISION_S < run.prompt_sent_at:
            return []  # an earlier prompt's line, read late (the follower polls): not this prompt's failure
        if unreachable is not None:
            return self._unreachable(unreachable, run, ctx)
        if answer is not None:
            if run.answer_shown or not omp_retries.retried(answer[0]):
                return []
            run.answer_shown = True
            status = f"HTTP {answer[0]}: " if answer[0] is not None else ""
            return retry_note(
                ev.RetryEvent(
                    attempt=1,
                    max_attempts=0,
                    reason=(f"the model request failed ({status}{answer[1]}); omp retries the request by itself"),
                ),
                ctx,
            )
        if found is None or not omp_retries.retried(found[0]):
            return []
        run.failed_turns += 1
        if run.failed_turns > limit:
            return []
        reason = f"the model request failed ({found[1]}); omp tries again"
        return retry_note(ev.RetryEvent(attempt=run.failed_turns, max_attempts=limit, reason=reason), ctx)

    def _unreachable(self, reason: str, run: OmpRun, ctx: ParseContext) -> list[BaseEvent]:
        """Nothing answered at the model's address: omp would retry in silence for ~30 s, then call the turn a
        refusal. The turn is over now: omp's prompt is cancelled, and its answer to that becomes the typed error
        (:meth:`failed_turn`)."""
        if run.unreachable or run.session_id is None:
            return []
        run.unreachable = reason
        run.peer.notify(ctx, "session/cancel", {"sessionId": run.session_id})
        return [ev.DebugEvent(level="info", message=f"omp: the model could not be reached ({reason})")]

    def before_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        run = OmpRun.of(ctx)
        run.failed_turns, run.answer_shown, run.prompt_sent_at, run.unreachable = 0, False, time.time(), ""

    def on_prompt_done(self, result: object, error: WireObject | None, ctx: ParseContext) -> list[BaseEvent]:
        """omp's answer to the prompt acp-mux cancelled because its model could not be reached (an error, or
        ``cancelled``) is the typed error; every other answer is the family's."""
        run = OmpRun.of(ctx)
        if run.unreachable and error is not None and not run.cancelling:
            run.prompt_in_flight = None
            return ctx.begin_turn() + unreachable_failure(run.unreachable, ctx)
        return super().on_prompt_done(result, error, ctx)

    def elicitation_tool_call(self, params: WireObject, ctx: ParseContext) -> WireObject | None:
        message = as_str(params.get("message"))
        return elicited_call(message, ctx.cwd)

    def set_model(self, model: str, ctx: ParseContext) -> bool:
        run = AcpRun.find(ctx)
        if run is None:
            return False
        run.options.model = model
        if run.ready:  # omp offers the model as a config option, not through ACP models
            return self.set_config_option("model", model, ctx)
        return True

    def usage_events(self, body: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        OmpRun.of(ctx).saw_usage = isinstance(body.get("usage"), dict)
        return super().usage_events(body, ctx)

    def failed_turn(self, stop: object, ctx: ParseContext) -> list[BaseEvent] | None:
        run = OmpRun.of(ctx)
        if run.unreachable and not run.cancelling:  # the turn acp-mux ended: nothing answered at the model's address
            return unreachable_failure(run.unreachable, ctx)
        unreachable = unreachable_answer(run.last_text) if not run.saw_usage else None
        if unreachable is not None and stop in ("end_turn", "refusal"):  # omp's own end of it, ~30 s later
            return unreachable_failure(unreachable, ctx)
        found = _HTTP_FAILURE.match(run.last_text)
        if stop != "end_turn" or run.saw_usage or found is None:
            return None
        status = int(found.group(1))
        return self.failure(
            {"code": status, "message": run.last_text.strip().splitlines()[0]}, ctx, during="session/prompt"
        )


def elicited_call(message: str, cwd: str) -> WireObject | None:
    """The tool call omp's approval message describes, as an ACP ``ToolCall``; None when it is not one.

    ``Allow tool: write\\nPath: /abs/notes.txt\\nContent:\\n…`` → an edit of that file with the content as its
    diff; ``Allow tool: edit\\nFile: notes.txt`` → an edit of that file (relative to the session's folder)."""
    lines = message.split("\n")
    head = re.match(r"^Allow tool:\s*(\S+)", lines[0]) if lines else None
    if head is None:
        return None
    tool = head.group(1)
    fields: dict[str, str] = {}
    content: str | None = None
    for i, text in enumerate(lines[1:], start=1):
        if text.startswith("Content:"):
            content = "\n".join(lines[i + 1 :])
            break
        key, sep, value = text.partition(":")
        if sep:
            fields[key.strip().lower()] = value.strip()
    path = fields.get("path") or fields.get("file")
    call: dict[str, Any] = {"kind": _KINDS.get(tool, "other"), "title": f"{tool} {path}" if path else tool}
    raw: dict[str, Any] = {}
    if path:
        absolute = path if os.path.isabs(path) else os.path.join(cwd, path)
        call["locations"] = [{"path": absolute}]
        raw["path"] = absolute
        if content is not None and tool == "write":
            call["content"] = [
                {"type": "diff", "path": absolute, "oldText": _current(absolute, cwd), "newText": content}
            ]
    if "command" in fields:
        raw["command"] = fields["command"]
    call["rawInput"] = raw
    return call


def _current(path: str, cwd: str) -> str | None:
    """What a file holds now, for the diff a write is asked with (None: new, unreadable or outside the folder)."""
    real, root = os.path.realpath(path), os.path.realpath(cwd)
    if not real.startswith(root.rstrip("/") + "/"):
        return None
    try:
        if os.path.getsize(real) > MAX_DIFF_BYTES:
            return None
        with open(real, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None

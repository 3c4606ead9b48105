"""NousResearch hermes-agent (``hermes acp``, PyPI ``hermes-agent[acp]``) through its own ACP mode, on the
ACP-client family.

What is only hermes' (everything else is the family's, ``acp_client.py``; the facts are pinned by the recorded
transcripts in ``tests/fixtures/hermes``):
- hermes announces a tool call first (id ``tc-<hex>``, no status, no rawInput), then asks with a
  ``session/request_permission`` whose toolCallId matches **no** tool call: ``edit-approval-N`` for
  ``write_file``/``patch`` (a diff, options allow_once/deny) and ``perm-check-N`` for dangerous commands.
  :meth:`HermesAdapter.permission_tool_id` links the question to the latest open tool call of the same kind about
  the same file or command, so the editor sees one call with its question (and the diff);
- hermes alone asks before a command only when its patterns deem it dangerous. acp-mux starts it with its plugin
  (``hermes_plugin/``, found through a private overlay of hermes' bundled plugins: :mod:`.hermes_plugins`), whose
  ``pre_tool_call`` hook sends every command through hermes' own gate. That question comes *before* hermes
  announces the call: it is shown as a call of its own (the command as title and rawInput, in place of hermes'
  label "<terminal> (plugin approval rule)"), and once allowed, the call hermes then announces is shown as that
  one (the family's ``awaiting_call``). Mode ``dont_ask`` answers the plugin's questions at once (hermes' own
  dangerous-command questions still reach the person). A command hermes announces that was not asked first means
  the plugin is not active: said once in the conversation;
- ``write_file`` and ``patch`` calls never get a ``tool_call_update``. Decision: such a call is settled when hermes
  moves on (its next tool call, text or thought, or the prompt's answer): refused → failed; allowed and the
  question's diff is a whole-file one (write_file, patch ``replace``) → completed when the file now holds that
  text, failed (saying so) when it does not; otherwise (no question, e.g. mode ``accept_edits``) → failed when the
  file does not exist (a patch of a missing file fails without asking), else completed, as hermes went on without
  reporting an error. The diff it asked with stays on the call;
- a failed model request is no JSON-RPC error: one text chunk "HTTP 401: …" or "API call failed after 1 retries:
  HTTP 429: …" and ``end_turn`` without usage. That turn becomes a typed auth or rate-limit error; a model that
  cannot be reached ("API call failed after 3 retries: Connection error.") the typed error (``adapters/unreachable_model.py``);
- text after a tool call starts with "\\n\\n": the bridge starts each message without leading blank lines;
- a cancel while a question is open breaks hermes: whether the question is answered "cancelled" (ACP) or with
  hermes' own "deny", the prompt fails (-32603 "'NoneType' object has no attribute 'startswith'") and hermes
  keeps that turn running inside, so the next prompt is only queued ("Queued for the next turn"). The cancelled
  turn still ends ``cancelled`` for the editor; then the run ends with a non-recoverable error (not shown: the turn
  is over), which stops hermes, and the next prompt starts a new hermes that resumes the session;
- ``session/resume`` replays the whole history before answering, like ``session/load``: suppressed likewise;
- startup is slow (probes of the provider): the bridge's warm start at session/new hides most of it;
- a failing model (500, 429) is retried by hermes itself (``agent.api_max_retries`` attempts, default 3, 2 s, 6 s …
  apart) with nothing over ACP; its log on stderr says so: ``[WARNING] agent.conversation_loop: API call failed
  (attempt 1/3) … summary=HTTP 500: …`` then ``Retrying API call in 2.33s (attempt 1/3) …``. Each "Retrying" line
  of the prompt in flight becomes a retry note with the failure's summary (:meth:`stderr_events`); the last
  attempt has none, its failure ends the turn.
"""

from __future__ import annotations

from acp_mux.core.text.shapes import as_dict, as_list, as_str
import logging
import os
import re
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import TYPE_CHECKING, Iterable

from acp_mux.adapters.acp_agents import hermes_plugins
from acp_mux.adapters.acp_agents.acp_client import AcpClientAdapter, AcpRun, retry_note
from acp_mux.adapters.unreachable_model import unreachable_answer, unreachable_failure
from acp_mux.adapters.base import AgentCapabilities
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.events.codes import ErrorCode
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext

if TYPE_CHECKING:
    from acp_mux.adapters.acp_agents.acp_client import WireObject
    from acp_mux.protocol import v1_dicts as acp
    from acp_mux.protocol.v1_dicts import RequestId
    from acp_mux.core.events.union import BaseEvent

log = logging.getLogger(__name__)

_HTTP_FAILURE = re.compile(r"^(?:API call failed after \d+ retries:\s*)?HTTP ([45]\d\d)\b")
# hermes' log lines (stderr) about one failed model request and the retry it schedules (0.19.0)
_LOOP = "agent.conversation_loop:"
_FAILED_ATTEMPT = re.compile(r"API call failed \(attempt \d+/\d+\).*?\bsummary=(.+)$")
_RETRYING = re.compile(r"Retrying API call in ([\d.]+)s \(attempt (\d+)/(\d+)\)")
# its one more try after a failure of the connection itself (agent_runtime_helpers, "primary recovery"): printed
# plainly on stderr, not through its logger, and the only line between the failure and the end of the turn
_LAST_TRY_MARK = "before one last primary attempt"
_LAST_TRY = re.compile(r"Transient \S+ on .*? waiting (\d+(?:\.\d+)?)s before one last primary attempt")
MAX_REASON = 300
MAX_SHOWN_WAIT_S = 3600.0  # a wait a log line claims, as the note shows it (hermes caps its own at 60 s)
_SILENT_TITLES = ("write:", "patch")  # hermes' write_file and patch calls: never an update
_NEWS = ("agent_message_chunk", "agent_thought_chunk", "tool_call")
MAX_CHECK_BYTES = 5_000_000
# acp-mux's plugin (hermes_plugin/acp_mux_asks.py) asks through hermes' gate, which labels its question
# "<tool> (plugin approval rule)" and carries the plugin's message, "acp-mux asks before every command: <command>"
_PLUGIN_TARGET = re.compile(r"^<([\w.-]+)> \(plugin approval rule\)$")
_PLUGIN_MARK = "acp-mux asks before every command: "
# hermes' titles of the calls the plugin asks about (acp_adapter.tools.build_tool_title): terminal, execute_code
_COMMAND_TITLES = ("terminal: ", "python: ", "python code")
NOT_ASKING = (
    "hermes ran a command without acp-mux's question: its asking plugin is not active in this hermes "
    "(HERMES_SAFE_MODE, a wrapper that sets HERMES_BUNDLED_PLUGINS itself, or acp-mux-asks in "
    "plugins.disabled of hermes' config); only commands hermes deems dangerous ask"
)
UNASKED_MODE = "dont_ask"  # hermes' own mode that edits without asking: commands run without acp-mux's question too


@dataclass
class SilentCall:
    """A write_file/patch call hermes will never finish: what the bridge needs to settle it."""

    path: str | None = None
    expected: str | None = None  # the whole file the question's diff showed (write_file, patch replace)
    asking: bool = False  # its question is still open


@dataclass
class HermesRun(AcpRun):
    """The family's run state, plus what hermes' quirks need (``HermesRun.of(ctx)``)."""

    calls: dict[str, tuple[str, list[str], str]] = field(
        default_factory=dict
    )  # open tool calls: (kind, paths, command)
    silent: dict[str, SilentCall] = field(default_factory=dict)
    saw_usage: bool = False
    last_news: str = ""  # the kind of the last text, thought or tool update: a message starts after another kind
    failure: str = ""  # the summary of hermes' last failed model request (its log on stderr)
    plugin_asks: set[str] = field(default_factory=set)  # open questions of acp-mux's plugin (interaction ids)
    warned_unasked: bool = False  # the person was told the plugin is not active


class HermesAdapter(AcpClientAdapter):
    name = "hermes"
    run_type = HermesRun
    joins_text_chunks = True  # on_update strips a new message's leading blank lines: the same whole or split
    native_fork = True  # it advertises sessionCapabilities.fork: session/fork is forwarded (acp_client)
    resume_replays = True
    capabilities = AgentCapabilities(persistent_process=True, supports_images=True)  # no MCP in its ACP mode

    def spawn_env(self, options: RunOptions) -> dict[str, str] | None:
        """The person's environment plus ``HERMES_BUNDLED_PLUGINS`` on a private overlay that adds acp-mux's
        plugin (hermes then asks before every command; see :mod:`acp_mux.adapters.acp_agents.hermes_plugins`)."""
        env = dict(os.environ if options.env is None else options.env)
        bundled = hermes_plugins.bundled_dir(self.resolve_binary(options.binary, options.env), options.env)
        env[hermes_plugins.ENV] = hermes_plugins.overlay(bundled)
        return env

    # ── updates ────────────────────────────────────────────────────────────────────────────────────────────────
    def on_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        run = HermesRun.of(ctx)
        kind = update.get("sessionUpdate")
        events: list[BaseEvent] = []
        call_id = update.get("toolCallId")
        if kind in _NEWS and not (isinstance(call_id, str) and run.aliases.get(call_id, call_id) in run.silent):
            events += self._settle(ctx)
        if kind == "agent_message_chunk" and run.last_news != kind:  # a new message: no leading blank lines
            content = update.get("content")
            if isinstance(content, dict) and isinstance(content.get("text"), str):
                text = content["text"].lstrip("\n")
                if not text:
                    return events
                update = {**update, "content": {**content, "text": text}}
        if kind in _NEWS or kind == "tool_call_update":
            run.last_news = kind
        if kind == "tool_call_update" and update.get("status") in ("completed", "failed"):
            run.calls.pop(run.aliases.get(str(update.get("toolCallId")), str(update.get("toolCallId"))), None)
        if kind == "tool_call":
            events += self._unasked_command(update, ctx)
        events += super().on_update(update, ctx)
        if kind == "tool_call":  # after the family's: a command acp-mux asked about first is shown by that id
            self._remember_call(update, run)
        return events

    def _unasked_command(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """A command hermes announces without acp-mux's plugin having asked about it first (the plugin's question
        comes before hermes announces the call, and the allowed call is shown as the asked one): the plugin is not
        active in this hermes. Said once in the conversation, as the person relies on being asked."""
        run = HermesRun.of(ctx)
        tool_id, title = update.get("toolCallId"), update.get("title")
        if not isinstance(tool_id, str) or not isinstance(title, str):
            return []  # a malformed announcement: the family drops it; checked first, an id of any type is unhashable
        asked = tool_id in run.aliases or any(kind == "execute" for _, _, kind in run.awaiting_call)  # (linked next)
        if run.warned_unasked or run.options.mode == UNASKED_MODE or asked or not title.startswith(_COMMAND_TITLES):
            return []
        run.warned_unasked = True
        log.warning("hermes ran a command acp-mux's plugin did not ask about: %s", title)
        return ctx.text_delta(f"_({NOT_ASKING})_\n\n") + ctx.end_text()

    def _remember_call(self, update: WireObject, run: HermesRun) -> None:
        tool_id = update.get("toolCallId")
        if not isinstance(tool_id, str):
            return
        tool_id = run.aliases.get(tool_id, tool_id)
        kind = as_str(update.get("kind")) or "other"
        paths = [
            loc["path"]
            for loc in as_list(update.get("locations"))
            if isinstance(loc, dict) and isinstance(loc.get("path"), str)
        ]
        title = as_str(update.get("title"))
        command = title.split(":", 1)[1].strip() if kind == "execute" and ":" in title else ""
        run.calls[tool_id] = (kind, paths, command)
        if kind == "edit" and title.startswith(_SILENT_TITLES):
            run.silent[tool_id] = SilentCall(path=paths[0] if paths else None)

    def _settle(self, ctx: ParseContext) -> list[BaseEvent]:
        """Close the write_file/patch calls hermes has moved on from (see the module docstring)."""
        run = HermesRun.of(ctx)
        events: list[BaseEvent] = []
        for tool_id, call in list(run.silent.items()):
            if call.asking:
                continue
            del run.silent[tool_id]
            run.calls.pop(tool_id, None)
            if tool_id not in ctx.tools:
                continue
            if tool_id in run.refused:
                run.refused.discard(tool_id)
                events += ctx.tool_error(tool_id, "Rejected.")
            elif call.path is not None and not os.path.lexists(call.path):
                events += ctx.tool_error(tool_id, f"hermes reported no result, and {call.path} does not exist")
            elif call.expected is None or call.path is None or _holds(call.path, call.expected, ctx.cwd):
                events += ctx.tool_result(tool_id, None)
            else:
                events += ctx.tool_error(
                    tool_id, f"hermes reported no result, and {call.path} does not hold the new text"
                )
        return events

    def on_prompt_done(self, result: object, error: WireObject | None, ctx: ParseContext) -> list[BaseEvent]:
        run = HermesRun.of(ctx)
        broken = error is not None and run.cancelling  # hermes failed the prompt it was cancelling: see above
        events = self._settle(ctx) if error is None else []
        run.calls.clear()
        events += super().on_prompt_done(result, error, ctx)
        if broken:  # after the cancelled turn: the run ends (its process stops), the next prompt starts a new one
            events.append(
                ev.ErrorEvent(
                    code=ErrorCode.AGENT_ERROR,
                    recoverable=False,
                    message="hermes cannot go on after this cancel; acp-mux restarts it",
                )
            )
        return events

    # ── permissions ────────────────────────────────────────────────────────────────────────────────────────────
    def permission_tool_id(self, tool_call: Mapping[str, object], ctx: ParseContext) -> str:
        run = HermesRun.of(ctx)
        kind = tool_call.get("kind")
        raw = as_dict(tool_call.get("rawInput"))
        arguments = as_dict(raw.get("arguments"))
        paths = {
            c["path"]
            for c in as_list(tool_call.get("content"))
            if isinstance(c, dict) and isinstance(c.get("path"), str)
        }
        if isinstance(arguments.get("path"), str):
            paths.add(arguments["path"])
        command = as_str(raw.get("command")) or None
        open_calls = [(tid, call) for tid, call in run.calls.items() if tid in ctx.tools and call[0] == kind]
        for tool_id, (_, call_paths, call_command) in reversed(open_calls):
            if (paths and paths & set(call_paths)) or (command and command == call_command):
                return tool_id
        if open_calls:  # nothing names the same file or command: the latest call of that kind is the one waiting
            return open_calls[-1][0]
        return super().permission_tool_id(tool_call, ctx)

    def on_permission_request(
        self, rpc_id: RequestId, params: acp.RequestPermissionRequest, ctx: ParseContext
    ) -> list[BaseEvent]:
        run = HermesRun.of(ctx)
        tool_call = params["toolCall"]
        command = plugin_command(tool_call)
        if command is not None:  # acp-mux's own question: about the command itself, as hermes' questions are
            if run.options.mode == UNASKED_MODE:  # the person chose to let hermes run without asking
                allow = next(
                    (
                        o["optionId"]
                        for o in as_list(params.get("options"))
                        if isinstance(o, dict) and o.get("kind") == "allow_once" and isinstance(o.get("optionId"), str)
                    ),
                    None,
                )
                run.peer.respond(
                    ctx,
                    rpc_id,
                    {"outcome": {"outcome": "selected", "optionId": allow}}
                    if allow
                    else {"outcome": {"outcome": "cancelled"}},
                )
                return []
            tool_call = {
                **tool_call,
                "title": command,
                "rawInput": {"command": command},
                "content": [{"type": "content", "content": {"type": "text", "text": f"$ {command}"}}],
            }
            params = {**params, "toolCall": tool_call}
            run.plugin_asks.add(f"acp-permission-{rpc_id}")  # the family's interaction id for this request
        tool_id = self.permission_tool_id(tool_call, ctx)
        if tool_id in ctx.tools:  # hermes' own title ("write: <path>") stays; "Approve edit: …" is the question's
            untitled: acp.ToolCallUpdate = {**tool_call}
            untitled.pop("title", None)
            params = {**params, "toolCall": untitled}
        silent = run.silent.get(tool_id)
        if silent is not None:
            silent.asking = True
            silent.expected = _whole_file(tool_call)
        return super().on_permission_request(rpc_id, params, ctx)

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        run = HermesRun.of(ctx)
        question = ctx.questions.get(interaction_id)
        asked = question.tool_call_id if question is not None and question.agent is not None else None
        if interaction_id in run.plugin_asks:  # allowed: hermes now announces the command's own call, shown as this one
            run.plugin_asks.discard(interaction_id)
            if decision.approve and asked is not None and not run.cancelling:
                run.awaiting_call.append((asked, None, "execute"))
        silent = run.silent.get(asked or "")
        if silent is not None:
            silent.asking = False
        super().respond_approval(interaction_id, decision, ctx)

    # ── errors ─────────────────────────────────────────────────────────────────────────────────────────────────
    def usage_events(self, body: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        HermesRun.of(ctx).saw_usage = isinstance(body.get("usage"), dict)
        return super().usage_events(body, ctx)

    def stderr_events(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        """hermes retries a failing model unasked and tells only its log: each retry it schedules for the prompt in
        flight becomes a retry note (the failure's summary, the wait). Constant cost: one substring test first."""
        last_try = _LAST_TRY_MARK in line
        if _LOOP not in line and not last_try:
            return ()
        run = HermesRun.find(ctx)
        if run is None or run.prompt_in_flight is None:
            return ()
        failed = _FAILED_ATTEMPT.search(line)
        if failed is not None:
            run.failure = failed.group(1).strip()[:MAX_REASON]
            return ()
        retrying = _LAST_TRY.search(line) if last_try else _RETRYING.search(line)
        if retrying is None:
            return ()
        reason, run.failure = run.failure or "the model request failed", ""
        attempt, most = (1, 1) if last_try else (int(retrying.group(2)), int(retrying.group(3)))
        delay_ms = int(min(float(retrying.group(1)), MAX_SHOWN_WAIT_S) * 1000)
        retry = ev.RetryEvent(attempt=attempt, max_attempts=most, reason=reason, delay_ms=delay_ms)
        return retry_note(retry, ctx)

    def failed_turn(self, stop: object, ctx: ParseContext) -> list[BaseEvent] | None:
        run = HermesRun.of(ctx)
        text = run.last_text.strip()
        found = _HTTP_FAILURE.match(text)
        if stop != "end_turn" or run.saw_usage:
            return None
        unreachable = unreachable_answer(text)  # "API call failed after 3 retries: Connection error."
        if unreachable is not None:
            return unreachable_failure(unreachable, ctx)
        if found is None:
            return None
        return self.failure(
            {"code": int(found.group(1)), "message": text.splitlines()[0]}, ctx, during="session/prompt"
        )


def plugin_command(tool_call: Mapping[str, object]) -> str | None:
    """The command of a question acp-mux's hermes plugin raised, or None for any other question. Both marks must
    be there: hermes' label of a plugin question (rawInput.command) and the plugin's words (rawInput.description);
    a command the model writes can imitate neither, as hermes puts its own label and the real command there."""
    raw = as_dict(tool_call.get("rawInput"))
    target, said = raw.get("command"), raw.get("description")
    if not (isinstance(target, str) and isinstance(said, str) and _PLUGIN_TARGET.match(target)):
        return None
    return said[len(_PLUGIN_MARK) :] if said.startswith(_PLUGIN_MARK) else None


def _whole_file(tool_call: Mapping[str, object]) -> str | None:
    """The file's whole new text, when the question's diff is one (write_file, patch in ``replace`` mode)."""
    raw = as_dict(tool_call.get("rawInput"))
    arguments = as_dict(raw.get("arguments"))
    whole = raw.get("tool") == "write_file" or (
        raw.get("tool") == "patch" and arguments.get("mode", "replace") == "replace"
    )
    if not whole:
        return None
    for item in as_list(tool_call.get("content")):
        if isinstance(item, dict) and item.get("type") == "diff" and isinstance(item.get("newText"), str):
            return as_str(item["newText"])
    return None


def _holds(path: str, expected: str, cwd: str) -> bool:
    """Whether the file now holds ``expected`` (a file outside the session's folder is not checked: True)."""
    real, root = os.path.realpath(path), os.path.realpath(cwd)
    if not real.startswith(root.rstrip("/") + "/"):
        return True
    try:
        if os.path.getsize(real) > MAX_CHECK_BYTES:
            return True
        with open(real, encoding="utf-8", errors="replace") as fh:
            return fh.read() == expected
    except OSError:
        return False

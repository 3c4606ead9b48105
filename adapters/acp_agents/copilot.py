"""GitHub Copilot CLI (``copilot --acp --stdio``, npm ``@github/copilot``) through its own ACP mode, on the
ACP-client family.

What is only copilot's (everything else is the family's, ``acp_client.py``; the facts are pinned by the recorded
transcripts in ``tests/fixtures/copilot``):
- mode ids are URLs (``https://agentclientprotocol.com/protocol/session-modes#agent|plan|autopilot``), in ``modes``
  and in the ``mode`` config option. The editor (and ``--mode``, the session record) sees the short ids ``agent``,
  ``plan``, ``autopilot`` with copilot's own names; the bridge turns them back into URLs toward copilot;
- ``agent`` (with the ``allow_all`` option off) is the mode that asks before every edit and command; ``autopilot``
  switches allow-all on. A new session therefore never starts in autopilot unless asked for, and ``allow_all`` is
  switched off unless the person set ``COPILOT_ALLOW_ALL`` in the agent's environment themselves;
- every tool call is announced (``pending``) before its ``session/request_permission`` about the same id; the
  question's title is generic ("Create file"), so the bridge asks with the title the call was announced with
  ("Creating /p/notes.txt"). A refused call ends ``failed`` and copilot then stops the turn (``end_turn``, after
  "Info: Operation cancelled by user") without asking the model again;
- status lines arrive as whole text chunks ``Info: …`` ("Info: /path" after a create, "Info: Operation cancelled by
  user" after a refusal, "Info: Request failed due to a transient API error. Retrying..."). Decision: they are
  status, not the answer. "… Retrying..." becomes a retry event (the same "retrying, attempt N: reason" note every
  agent's retries get); the others become thoughts (the editor shows them in the agent's thinking, the answer text
  stays the model's own). Only a chunk that starts a message counts: "Info: " inside the model's text is text;
- a failed model request is no JSON-RPC error: one text chunk ``Error: Authentication failed … (HTTP 401) …``,
  ``Error: 429 …`` or ``Error: Failed to get response from the AI model; … Last error: 429 …`` and ``end_turn``
  (without usage). That chunk is held back and the turn becomes a typed auth or rate-limit error (or an agent
  error), never a plain ``end_turn``; a held chunk that turns out not to end the turn is shown as text after all;
- copilot retries 401/429 for seconds unless the provider answers ``x-should-retry: false``; nothing on copilot's
  side turns that off;
- a cancel is answered ``cancelled``; a cancel while a question is open leaves that tool call ``pending`` forever:
  the family ends it (failed) when the turn ends cancelled;
- during a fast long reply copilot sometimes stops the turn by itself (``cancelled`` midway, no cancel asked, no
  usage) and then never answers another prompt in that process (its model request is made and answered; the
  prompt's answer never comes). The turn ends ``cancelled`` with a note (the family), and the process is spent
  (``ctx.process_spent``): the next prompt goes to a new copilot that loads the session;
- there is no ``session/resume``, only ``session/load``, which replays the history before it answers: the family
  loads with the replay suppressed (the bridge shows its own record);
- with a custom provider (``COPILOT_PROVIDER_BASE_URL``) copilot offers no models in ACP; ``--model`` is passed on
  the command line;
- copilot's own request ids start at 0 and overlap ours; the family's peer tells requests from responses by shape.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

from acp_mux.adapters.acp_agents.acp_client import AcpClientAdapter, AcpRun
from acp_mux.adapters.base import AgentCapabilities, try_json
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.run.prompt import Prompt
from acp_mux.core.files.private import private_dir, shared_private_dir
from acp_mux.core.text.shapes import as_dict, as_list
from acp_mux.translation.content import block_text

if TYPE_CHECKING:
    from acp_mux.adapters.acp_agents.acp_client import WireObject
    from acp_mux.protocol import v1_dicts as acp
    from acp_mux.protocol.v1_dicts import RequestId
    from acp_mux.core.events.union import BaseEvent


MODE_URL = "https://agentclientprotocol.com/protocol/session-modes#"
_MODE_ID = re.compile(r"^" + re.escape(MODE_URL) + r"([\w-]+)$")
ASKING_MODE = "agent"  # copilot's mode that asks before edits and commands (with allow_all off)
_HANDS_OFF_MODES = ("autopilot",)  # modes that approve everything themselves: never a default
_INFO = "Info: "
_ERROR = "Error: "
_RETRYING = "Retrying..."
# Error texts copilot writes for a refused model request (recognised even after a turn that used the model).
_KNOWN_FAILURE = re.compile(r"^Error: (?:Authentication failed|Failed to get response from the AI model|[45]\d\d\b)")
_AUTH = re.compile(r"HTTP 40[13]\b|Authentication failed|\b40[13]\b")
_RATE = re.compile(r"\b429\b|rate limit", re.I)
_MODE_UPDATES = ("current_mode_update", "config_option_update")
_NOT_NEWS = ("usage_update", "session_info_update", "available_commands_update", "config_option_update")


@dataclass
class CopilotRun(AcpRun):
    """The family's run state, plus what copilot's quirks need (``CopilotRun.of(ctx)``)."""

    in_message: bool = False  # the last update was text of the model's answer: an "Info: " there is the model's
    held_error: str = ""  # an "Error: …" chunk held back until it is clear whether it ends the turn
    saw_usage: bool = False  # the prompt's answer carried usage: the model answered at least once
    titles: dict[str, str] = field(default_factory=dict)  # tool call id → the title copilot announced it with
    retries: int = 0  # "Info: … Retrying..." lines in this turn


class CopilotAdapter(AcpClientAdapter):
    name = "copilot"
    acp_args = ("--acp", "--stdio")
    run_type = CopilotRun
    joins_text_chunks = False  # its errors and notices are told by a message's first chunk (on_update)
    capabilities = AgentCapabilities(
        persistent_process=True, supports_images=True, supports_mcp_http=True, supports_mcp_sse=True
    )

    def model_args(self, options: RunOptions) -> list[str]:
        return ["--model", options.model] if options.model else []

    def spawn_env(self, options: RunOptions) -> dict[str, str] | None:
        """copilot 1.0.102 enables node's compile cache in its default folder, the machine-wide
        ``/tmp/node-compile-cache`` another user can take first: its TMPDIR is a 0700 folder of ours instead (the
        person's own TMPDIR, if set, is kept)."""
        env = dict(options.env) if options.env is not None else dict(os.environ)
        if "TMPDIR" not in env:  # else this bridge's own fresh private folder: never a folder that is not ours
            env["TMPDIR"] = shared_private_dir("copilot-tmp") or private_dir()
        return env

    # ── mode ids: URLs toward copilot, short ids toward the editor ───────────────────────────────────────────
    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        if MODE_URL in line:
            msg = try_json(line)
            if isinstance(msg, dict) and _carries_modes(msg):
                line = json.dumps(short_mode_ids(msg))
        return super().parse_line(line, ctx)

    def set_mode(self, mode: str, ctx: ParseContext) -> bool:
        short = short_mode_id(mode)
        if not super().set_mode(copilot_mode_id(short), ctx):
            return False
        AcpRun.of(ctx).options.mode = short  # the session record keeps the short id
        return True

    def set_config_option(self, option_id: str, value: object, ctx: ParseContext) -> bool:
        if option_id == "mode" and isinstance(value, str):
            value = copilot_mode_id(short_mode_id(value))
        return super().set_config_option(option_id, value, ctx)

    def after_session_opened(self, body: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """The family's wanted mode, then acp-mux's default for a new session: asking. A fresh copilot session in
        autopilot (e.g. from the person's copilot config) goes back to ``agent``; ``allow_all`` goes off unless the
        person turned it on for this agent in its environment."""
        events = super().after_session_opened(body, ctx)
        run = AcpRun.of(ctx)
        if run.options.session_id is not None:  # a loaded session keeps the settings it had
            return events
        current_mode = as_dict(body.get("modes")).get("currentModeId")
        if not run.options.mode and current_mode in _HANDS_OFF_MODES:
            self.set_mode(ASKING_MODE, ctx)
        allow_all = next(
            (o for o in as_list(body.get("configOptions")) if isinstance(o, dict) and o.get("id") == "allow_all"), None
        )
        env = run.options.env if run.options.env is not None else os.environ
        if allow_all is not None and allow_all.get("currentValue") == "on" and not env.get("COPILOT_ALLOW_ALL"):
            self.set_config_option("allow_all", "off", ctx)
        return events

    # ── permissions ────────────────────────────────────────────────────────────────────────────────────────────
    def on_permission_request(
        self, rpc_id: RequestId, params: acp.RequestPermissionRequest, ctx: ParseContext
    ) -> list[BaseEvent]:
        """The question's generic title ("Create file", "Edit file") gives way to the one the tool call was
        announced with ("Creating /p/notes.txt"): the editor's card keeps naming the file, and so does the question."""
        tool_call = params["toolCall"]
        announced = CopilotRun.of(ctx).titles.get(str(tool_call.get("toolCallId")))
        if announced:
            params = {**params, "toolCall": {**tool_call, "title": announced}}
        return super().on_permission_request(rpc_id, params, ctx)

    # ── status lines and failures that arrive as text ──────────────────────────────────────────────────────────
    def on_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        run = CopilotRun.of(ctx)
        kind = update.get("sessionUpdate")
        events: list[BaseEvent] = []
        if kind == "agent_message_chunk":
            text = block_text(update.get("content"))
            at_start = not run.in_message
            if at_start and text.startswith(_ERROR):
                events += self._release_held(ctx)
                run.held_error = text
                return events
            if at_start and text.startswith(_INFO):
                return self._release_held(ctx) + self._info(text, ctx)
            events += self._release_held(ctx)
            run.in_message = True
            return events + super().on_update(update, ctx)
        call_id, title = update.get("toolCallId"), update.get("title")
        if kind == "tool_call" and isinstance(call_id, str) and isinstance(title, str):
            run.titles[call_id] = title
        if kind not in _NOT_NEWS:
            events += self._release_held(ctx)
            run.in_message = False
        elif kind == "usage_update":
            run.in_message = False
        return events + super().on_update(update, ctx)

    def _info(self, text: str, ctx: ParseContext) -> list[BaseEvent]:
        """A status line: copilot's retry notice becomes a retry (the same note every agent's retries get), any
        other one a thought of its own."""
        run = CopilotRun.of(ctx)
        line = text[len(_INFO) :].strip()
        if line.endswith(_RETRYING):
            run.retries += 1
            reason = line[: -len(_RETRYING)].strip().rstrip(".") or "the model request failed"
            return (
                ctx.begin_turn()
                + ctx.end_thinking()
                + ctx.end_text()
                + [ev.RetryEvent(attempt=run.retries, max_attempts=0, reason=reason)]
            )
        return ctx.thinking_delta(text.rstrip("\n") + "\n") + ctx.end_thinking()

    def _release_held(self, ctx: ParseContext) -> list[BaseEvent]:
        """An "Error: …" chunk the turn went on after: it was the model's text, shown as such."""
        run = CopilotRun.of(ctx)
        held, run.held_error = run.held_error, ""
        if not held:
            return []
        run.in_message = True
        run.said.append(held)
        return ctx.text_delta(held)

    def before_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        run = CopilotRun.of(ctx)
        run.in_message, run.held_error, run.saw_usage, run.retries = False, "", False, 0
        run.titles.clear()

    def usage_events(self, body: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        CopilotRun.of(ctx).saw_usage = isinstance(body.get("usage"), dict)
        return super().usage_events(body, ctx)

    def on_prompt_done(self, result: object, error: WireObject | None, ctx: ParseContext) -> list[BaseEvent]:
        run = CopilotRun.of(ctx)
        body = as_dict(result)
        failing = (
            error is None
            and not run.cancelling
            and held_is_failure(run.held_error, body.get("stopReason"), used_model=isinstance(body.get("usage"), dict))
        )
        # a held chunk that does not end the turn as a failure (a cancel, an error answer) was text to show
        events = [] if failing else self._release_held(ctx)
        if error is None and body.get("stopReason") == "cancelled" and not run.cancelling:
            ctx.process_spent = True  # it stopped the turn itself: it would never answer the next prompt
        return events + super().on_prompt_done(result, error, ctx)

    def failed_turn(self, stop: object, ctx: ParseContext) -> list[BaseEvent] | None:
        run = CopilotRun.of(ctx)
        held, run.held_error = run.held_error.strip(), ""
        if not held_is_failure(held, stop, used_model=run.saw_usage):
            return None
        message = held[len(_ERROR) :].strip()
        code = 401 if _AUTH.search(message) else 429 if _RATE.search(message) else None
        return self.failure({"code": code, "message": message}, ctx, during="session/prompt")


def held_is_failure(held: str, stop: object, *, used_model: bool) -> bool:
    """Whether a turn that ended ``stop`` with the held "Error: …" chunk as its last text failed: always when the
    model never answered (no usage), else only for copilot's own failure texts."""
    if stop != "end_turn" or not held.startswith(_ERROR):
        return False
    return not used_model or _KNOWN_FAILURE.match(held) is not None


# ── mode ids ──────────────────────────────────────────────────────────────────────────────────────────────────
def short_mode_id(mode: str) -> str:
    """``https://…/session-modes#plan`` → ``plan``; anything else unchanged."""
    found = _MODE_ID.match(mode)
    return found.group(1) if found else mode


def copilot_mode_id(mode: str) -> str:
    """``plan`` → copilot's URL id; an id that already is a URL (or any other form) unchanged."""
    return MODE_URL + mode if re.fullmatch(r"[\w-]+", mode) else mode


def short_mode_ids(msg: WireObject) -> WireObject:
    """A copy of ``msg`` with every mode URL id (a whole string value) replaced by its short id."""

    def walk(value: object) -> object:
        if isinstance(value, str):
            return short_mode_id(value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return {key: walk(value) for key, value in msg.items()}


def _carries_modes(msg: WireObject) -> bool:
    """Only answers (session/new, load, set_config_option) and mode/option updates name modes: a tool's output or
    a replayed message that quotes the URL is left as it is."""
    if "result" in msg and "method" not in msg:
        return True
    if msg.get("method") == "session/update":
        update = as_dict(as_dict(msg.get("params")).get("update"))
        return update.get("sessionUpdate") in _MODE_UPDATES
    return False

"""Events → ACP ``session/update`` payloads (wire-form dicts), one event at a time.

The translator keeps only what ACP needs to stay truthful across a session: which tool calls the editor has been
shown and their state, and the bounded output of running commands. Tool kinds, titles, locations and diffs come
from the display hints an agent reported on the event (``display``: every ACP agent reports them) and, where a hint
is missing, from the adapter's tool table; so this module knows no agent. Updates are plain dicts in ACP's camelCase wire form
(built without the SDK's pydantic models: the hot path stays cheap; tests validate every shape with ``acp.schema``).

Subagents are shown nested, the way every editor can show them: a subagent's tool calls are the session's own tool
calls, linked to the Task/Agent call that spawned it by ``_meta`` (``claudeCode.parentToolUseId`` as
claude-agent-acp writes it, and :data:`PARENT_META`); its text goes into that call's content, never into an
``agent_message_chunk``. The call also carries :data:`SUBAGENT_META` (spawned, ended) and each text block as
:data:`SUBAGENT_TEXT_META`, which :mod:`acp_mux.translation.child_sessions` reads to show the subagent as a child
session to an editor that asked for them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, cast

from acp_mux.translation.diffs import DiffLike, diffs_for, read_existing, relative_title, resolve
from acp_mux.translation.output import BoundedOutput, cap_text, cap_value
from acp_mux.core.events.limit_times import wait_text
from acp_mux.translation.plans import plan_entries
from acp_mux.translation.usage import TurnUsage

if TYPE_CHECKING:  # the event classes and the ACP TypedDicts are types only here: no import cost on the hot path
    from acp_mux.core.events import union as ev
    from acp_mux.protocol import v1_dicts as acp
    from acp_mux.protocol.unstable_dicts import Usage
    from acp_mux.protocol.v1_dicts import JsonValue

    Update = acp.SessionUpdate
    ChunkUpdate = acp.SessionUpdateAgentMessageChunk | acp.SessionUpdateAgentThoughtChunk
    ChunkKind = Literal["agent_message_chunk", "agent_thought_chunk"]

LIVE_OUTPUT_INTERVAL_S = 0.1
TITLE_CHARS = 120
PARENT_META = "parent_tool_call"  # on a subagent's tool_call: {"tool_call_id": the Task call}
SUBAGENT_META = "subagent"  # on a Task call's update: {"tool_call_id", "state", and at spawn "agent", "title", …}
SUBAGENT_TEXT_META = "subagent_text"  # on a Task call's update: {"tool_call_id", "text", "thinking"}


class ToolSpecLike(Protocol):
    """What translation reads of an adapter's tool spec (adapters.base.ToolSpec; translation sits below adapters)."""

    @property
    def kind(self) -> str: ...
    @property
    def is_plan(self) -> bool: ...
    @property
    def path_args(self) -> tuple[str, ...]: ...
    @property
    def line_arg(self) -> str | None: ...
    @property
    def diff(self) -> Callable[[dict[str, JsonValue]], Sequence[DiffLike]] | None: ...
    @property
    def paths(self) -> Callable[[dict[str, JsonValue]], list[str]] | None: ...
    def render_title(self, name: str, tool_input: JsonValue) -> str: ...


class ToolTableLike(Protocol):
    def lookup(self, name: str) -> ToolSpecLike: ...


@dataclass
class ToolView:
    """What the editor has been told about one tool call."""

    id: str
    name: str
    spec: ToolSpecLike
    kind: acp.ToolKind
    title: str
    status: acp.ToolCallStatus = "pending"
    input: JsonValue = None
    content: list[acp.ToolCallContent] = field(default_factory=list)
    output: BoundedOutput | None = None
    last_flush: float = 0.0
    dirty: bool = False
    terminal: bool = False
    pending: list[str] = field(default_factory=list)  # terminal mode: output not yet sent (throttled)
    agent_title: bool = False  # the agent named the call itself: the tool table's title never replaces it
    subagent: bool = False  # this call runs a subagent (a subagent_spawn named it)
    subagent_text: list[str] = field(default_factory=list)  # what the subagent wrote, block by block
    locations: list[acp.ToolCallLocation] = field(default_factory=list)  # the files it touches, as last sent
    parent: str | None = None  # a subagent's call: the call that started that subagent


def message_chunk(text: str, message_id: str | None = None) -> acp.SessionUpdateAgentMessageChunk:
    """A text chunk of the agent's message; ``message_id`` when the agent named the message (ACP ``messageId``).
    One literal per tag (here and in :func:`thought_chunk`): mypy checks each dict whole, and the streaming path
    pays no branch on the kind."""
    chunk: acp.SessionUpdateAgentMessageChunk = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": text},
    }
    if message_id:
        chunk["messageId"] = message_id
    return chunk


def thought_chunk(text: str, message_id: str | None = None) -> acp.SessionUpdateAgentThoughtChunk:
    """A text chunk of the agent's thinking (see :func:`message_chunk`)."""
    chunk: acp.SessionUpdateAgentThoughtChunk = {
        "sessionUpdate": "agent_thought_chunk",
        "content": {"type": "text", "text": text},
    }
    if message_id:
        chunk["messageId"] = message_id
    return chunk


def text_chunk(kind: ChunkKind, text: str, message_id: str | None = None) -> ChunkUpdate:
    """A text chunk of either kind, named by its tag (a replay reads the kind from the log)."""
    return message_chunk(text, message_id) if kind == "agent_message_chunk" else thought_chunk(text, message_id)


def parent_meta(parent: str) -> dict[str, JsonValue]:
    """The ``_meta`` of a subagent's call: the call that started the subagent, as claude-agent-acp writes it
    (``claudeCode.parentToolUseId``) and as :mod:`acp_mux.translation.child_sessions` reads it (:data:`PARENT_META`)."""
    return {"claudeCode": {"parentToolUseId": parent}, PARENT_META: {"tool_call_id": parent}}


def notice(text: str) -> acp.SessionUpdateAgentMessageChunk:
    """A visible line in the conversation for things the user must not miss (errors, retries)."""
    return message_chunk(text)


class UpdateTranslator:
    def __init__(
        self,
        tool_table: ToolTableLike,
        cwd: str,
        *,
        terminal_output_meta: bool = False,
        context_window: int = 200_000,
        read_file: Callable[[str], str | None] = read_existing,
        tables: Callable[[str], ToolTableLike] | None = None,
    ) -> None:
        self.tools_table = tool_table
        # the tool table of the agent an event names, where a stream mixes agents (a comparison's candidates)
        self.tables = tables
        self._event_agent = ""
        self.read_file = read_file  # a file's content before an edit, for diffs (recorded live, replayed from the log)
        self.cwd = cwd
        self.terminal_meta = terminal_output_meta
        self.context_window = context_window
        self.tools: dict[str, ToolView] = {}
        self._plan_tools: set[str] = set()
        self._shell_stack: list[str] = []
        self._synthetic = 0
        self._used_tokens = 0
        self._approval_tools: dict[str, str] = {}
        self._agent_usage = False  # the agent reports its context window itself: acp-mux's estimate is not sent
        self.turn_usage = TurnUsage()  # the tokens of the turn under way, for its prompt response

    # ── the dispatcher ─────────────────────────────────────────────────────────────────────────────────────────
    def translate(self, event: ev.BaseEvent) -> list[Update]:
        self._event_agent = event.agent
        handler: Callable[[ev.BaseEvent], list[Update]] | None = getattr(self, "_on_" + event.type, None)
        return handler(event) if handler is not None else []

    def _on_session_start(self, e: ev.SessionStartEvent) -> list[Update]:
        if not e.commands:
            return []
        commands: list[acp.AvailableCommand] = [{"name": c.name, "description": c.description} for c in e.commands]
        return [{"sessionUpdate": "available_commands_update", "availableCommands": commands}]

    def _on_text_delta(self, e: ev.TextDeltaEvent) -> list[Update]:
        return [message_chunk(e.delta, getattr(e, "message_id", None))]

    def _on_thinking_delta(self, e: ev.ThinkingDeltaEvent) -> list[Update]:
        return [thought_chunk(e.delta, getattr(e, "message_id", None))]

    def forward(self, update: Update) -> list[Update]:
        """An ACP agent's own update (``agent_update`` events), as it wrote it. The session sends these as they
        arrive, in a turn or between turns; :meth:`translate` leaves the event alone so it is never sent twice.
        Once the agent reports its context window, acp-mux's estimate from token counts stops: two figures for
        one window would contradict each other."""
        if update["sessionUpdate"] == "usage_update":
            self._agent_usage = True
            size = update.get("size")
            if isinstance(size, int) and not isinstance(size, bool) and size > 0:
                self.context_window = size
        return [update]

    # ── tools ──────────────────────────────────────────────────────────────────────────────────────────────────
    def _on_tool_call_start(self, e: ev.ToolCallStartEvent) -> list[Update]:
        tool_input = _complete_json(e.input_accumulated)
        return self.announce(e.tool_call_id, e.tool_name, tool_input, e.display, parent=e.parent_tool_call_id)

    def _on_mcp_tool_call_start(self, e: ev.McpToolCallStartEvent) -> list[Update]:
        if e.tool_call_id in self.tools:
            return []
        name = f"mcp__{e.server}__{e.tool_name}"
        return self.announce(e.tool_call_id, name, e.input, parent=e.parent_tool_call_id) + self._ready(
            e.tool_call_id, e.input
        )

    def announce(
        self,
        tool_id: str,
        name: str,
        tool_input: JsonValue,
        display: ev.ToolDisplay | None = None,
        *,
        parent: str | None = None,
    ) -> list[Update]:
        """``tool_call``: the editor learns of the tool as soon as the agent starts it."""
        if tool_id in self.tools or tool_id in self._plan_tools:
            return []
        table = self.tables(self._event_agent) if self.tables is not None and self._event_agent else self.tools_table
        spec = table.lookup(name)
        if getattr(spec, "is_plan", False):
            self._plan_tools.add(tool_id)
            return []
        view = ToolView(
            id=tool_id, name=name, spec=spec, kind=_kind(spec.kind), title=self._title(spec, name, tool_input)
        )
        view.input = tool_input
        self.tools[tool_id] = view
        update: acp.SessionUpdateToolCall = {"sessionUpdate": "tool_call", "toolCallId": tool_id, "title": view.title}
        self._apply_display(view, display, update)
        update["title"], update["kind"], update["status"] = view.title, view.kind, "pending"
        if tool_input is not None:
            update["rawInput"] = cap_value(tool_input)
        if parent is not None:  # a subagent's call, nested under the call that spawned it
            view.parent = parent
            update["_meta"] = parent_meta(parent)
        _add_agent_meta(update, display)
        return [update]

    def permission_call(self, tool_id: str) -> acp.ToolCallUpdate:
        """The call a permission question is about, as the editor was shown it: its id, kind, title, the files it
        touches, its content (the diff of an edit) and input, and, for a subagent's call, the call that started that
        subagent (the same ``_meta`` its ``tool_call`` carried). A person answers what they see here: a subagent's
        Write shows its own path and diff, never its parent's Agent call."""
        tool_call: acp.ToolCallUpdate = {"toolCallId": tool_id, "status": "pending"}
        view = self.tools.get(tool_id)
        if view is None:
            return tool_call
        tool_call["title"], tool_call["kind"] = view.title, view.kind
        # complete on its own: an editor may build its dialog from this alone (CodeCompanion shows ``content[0]``
        # as the diff and names the file from ``locations[0]``; without one it joined its cwd to the diff's
        # absolute path). The diff comes first, and each diff's file is a location where the call named none.
        diffs = [item for item in view.content if item["type"] == "diff"]
        if view.content:
            tool_call["content"] = diffs + [item for item in view.content if item["type"] != "diff"]
        locations = list(view.locations)
        for diff in diffs:
            if diff["type"] == "diff" and all(location["path"] != diff["path"] for location in locations):
                locations.append({"path": diff["path"]})
        if locations:
            tool_call["locations"] = locations
        if view.input is not None:  # what runs, as claude-agent-acp shows it too
            tool_call["rawInput"] = cap_value(view.input)
        if view.parent is not None:
            tool_call["_meta"] = parent_meta(view.parent)
        return tool_call

    def _apply_display(
        self, view: ToolView, display: ev.ToolDisplay | None, update: acp.ToolCall | acp.ToolCallUpdate
    ) -> bool:
        """Put the agent's own display hints on ``view`` and ``update``; True when they carried content."""
        if display is None:
            return False
        if display.kind and display.kind != view.kind:
            view.kind = update["kind"] = _kind(display.kind)
        if display.title:
            view.agent_title = True
            if _shorten(display.title) != view.title:
                view.title = update["title"] = _shorten(display.title)
        if display.locations:
            view.locations = update["locations"] = [
                _location(loc.path, loc.line, self.cwd) for loc in display.locations
            ]
        content: list[acp.ToolCallContent] = []
        if display.diffs:  # the agent's own fragments, put in place in the whole file like the table's (diffs.py)
            content += diffs_for(display.diffs, self.cwd, read_old_for_new=False, read=self.read_file)
        for block in display.content or ():
            content.append({"type": "content", "content": cast("acp.ContentBlock", cap_value(block))})
        if display.terminal_id:
            content.append({"type": "terminal", "terminalId": display.terminal_id})
        if not content:
            return False
        if not any(item["type"] == "diff" for item in content):  # an update's content replaces the call's, and a
            # change the editor was shown (e.g. when it was asked about) must not vanish behind "wrote 11 bytes"
            content = [item for item in view.content if item["type"] == "diff"] + content
        view.content = content
        update["content"] = content
        return True

    def _on_tool_call_ready(self, e: ev.ToolCallReadyEvent) -> list[Update]:
        # a no-op when the start was seen
        out = self.announce(e.tool_call_id, e.tool_name, None, e.display, parent=e.parent_tool_call_id)
        if e.tool_call_id in self._plan_tools:
            entries = plan_entries(e.input)
            return [{"sessionUpdate": "plan", "entries": entries}] if entries is not None else []
        return out + self._ready(e.tool_call_id, e.input, e.display)

    def _ready(self, tool_id: str, tool_input: JsonValue, display: ev.ToolDisplay | None = None) -> list[Update]:
        view = self.tools.get(tool_id)
        if view is None:
            return []
        view.input = tool_input
        spec = view.spec
        update: acp.SessionUpdateToolCallUpdate = {"sessionUpdate": "tool_call_update", "toolCallId": tool_id}
        title = self._title(spec, view.name, tool_input)
        if title != view.title and not view.agent_title and not (display is not None and display.title):
            view.title = update["title"] = title
        if tool_input is not None:
            update["rawInput"] = cap_value(tool_input)
        locations = self._locations(spec, tool_input)
        if self._apply_display(view, display, update) or (display is not None and display.locations):
            return [update]  # the agent said how it looks: its hints win over the table's guesses
        if spec.diff is not None and isinstance(tool_input, dict):
            try:
                view.content = diffs_for(spec.diff(tool_input), self.cwd, read=self.read_file)
            except Exception:  # malformed edit input: show the tool without a diff rather than lose it
                view.content = []
            if view.content:
                update["content"] = view.content
        if locations:
            view.locations = update["locations"] = locations
        return [update]

    def _on_tool_result(self, e: ev.ToolResultEvent) -> list[Update]:
        return self._finish(e.tool_call_id, "completed", e.output, e.display)

    def _on_mcp_tool_result(self, e: ev.McpToolResultEvent) -> list[Update]:
        return self._finish(e.tool_call_id, "completed", e.output)

    def _on_tool_error(self, e: ev.ToolErrorEvent) -> list[Update]:
        return self._finish(e.tool_call_id, "failed", e.error, e.display)

    def _on_tool_update(self, e: ev.ToolUpdateEvent) -> list[Update]:
        """A running call changed its face (ACP agents describe calls progressively)."""
        display = e.display
        out: list[Update] = []
        if e.tool_call_id not in self.tools:
            name = (display.title if display is not None and display.title else None) or "tool"
            out += self.announce(e.tool_call_id, name, None, display, parent=e.parent_tool_call_id)
            display = None  # the announcement carried it
        view = self.tools.get(e.tool_call_id)
        if view is None:
            return out
        if display is not None:
            update: acp.SessionUpdateToolCallUpdate = {"sessionUpdate": "tool_call_update", "toolCallId": view.id}
            self._apply_display(view, display, update)
            if len(update) > 2:
                out.append(update)
        if e.running:
            out += self._in_progress(view)
        return out

    def _on_tool_progress(self, e: ev.ToolProgressEvent) -> list[Update]:
        """Progress of a running call reaches the editor in ``_meta.tool_call_progress`` (spec 004's payload); a
        call that reports progress is running, so a pending one moves to in_progress first."""
        view = self.tools.get(e.tool_call_id)
        if view is None:
            return []
        payload: dict[str, JsonValue] = {"schema": "tool-call-progress.v1", "call_id": view.id, "status": e.status}
        for key in ("progress", "total", "message"):
            value = getattr(e, key)
            if value is not None:
                payload[key] = value
        update: acp.SessionUpdateToolCallUpdate = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": view.id,
            "_meta": {"tool_call_progress": payload},
        }
        return self._in_progress(view) + [update]

    def _on_plan_update(self, e: ev.PlanUpdateEvent) -> list[Update]:
        if e.wire is not None:  # an ACP agent's own plan: as it sent it (validated at the edge)
            return [cast("acp.SessionUpdatePlan", dict(e.wire))]
        entries: list[acp.PlanEntry] = [
            {"content": x.content, "priority": x.priority, "status": x.status} for x in e.entries
        ]
        return [{"sessionUpdate": "plan", "entries": entries}]

    def _on_mcp_tool_error(self, e: ev.McpToolErrorEvent) -> list[Update]:
        return self._finish(e.tool_call_id, "failed", e.error)

    def _finish(
        self, tool_id: str, status: acp.ToolCallStatus, output: JsonValue, display: ev.ToolDisplay | None = None
    ) -> list[Update]:
        if tool_id in self._plan_tools:
            self._plan_tools.discard(tool_id)
            return []
        view = self.tools.pop(tool_id, None)
        if view is None:
            return []
        if tool_id in self._shell_stack:
            self._shell_stack.remove(tool_id)
        # A completed tool ran, so the editor sees it go through in_progress; a rejected one goes straight to failed.
        out = self._in_progress(view) if status == "completed" else []
        if view.terminal:  # output the throttle held back still reaches the terminal before it closes
            out += self._live_output(view, force=True)
        update: acp.SessionUpdateToolCallUpdate = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": tool_id,
            "status": status,
        }
        if output is not None:
            update["rawOutput"] = cap_value(output)
        if not self._apply_display(view, display, update):
            content = self._final_content(view, status, output)
            if content is not None:
                update["content"] = content
        if view.subagent:  # the subagent's work is over (done, failed, stopped or cancelled)
            update["_meta"] = {SUBAGENT_META: {"tool_call_id": tool_id, "state": "idle"}}
        _add_agent_meta(update, display)
        view.status = status
        out.append(update)
        return out

    def _final_content(
        self, view: ToolView, status: acp.ToolCallStatus, output: JsonValue
    ) -> list[acp.ToolCallContent] | None:
        if view.output is not None:  # a command: its bounded output (or the live terminal) is the content
            if view.terminal:
                return None
            return [_text_content(_fenced(view.output.render()))] if view.output.total_chars else None
        if view.kind == "edit" and view.content and status == "completed":
            return None  # the diff shown at announce time stays
        text = _output_text(output)
        if view.subagent_text:  # what the subagent wrote stays; its answer follows when it says something new
            new = text.strip() and not text.strip().startswith(view.subagent_text[-1].strip())
            blocks = view.subagent_text + ([text] if new else [])  # (claude's answer repeats its last block)
            return [_text_content(cap_text("\n\n".join(blocks)))]
        if not text:
            return view.content or None if status == "failed" else None
        text = cap_text(text)
        if view.kind == "execute":
            text = _fenced(text)
        return view.content + [_text_content(text)] if status == "failed" else [_text_content(text)]

    def _in_progress(self, view: ToolView) -> list[Update]:
        if view.status != "pending":
            return []
        view.status = "in_progress"
        return [{"sessionUpdate": "tool_call_update", "toolCallId": view.id, "status": "in_progress"}]

    def _on_approval_granted(self, e: ev.ApprovalGrantedEvent) -> list[Update]:
        tool_id = self._approval_tools.pop(e.interaction_id, None)
        view = self.tools.get(tool_id) if tool_id else None
        return self._in_progress(view) if view is not None else []

    def _on_approval_denied(self, e: ev.ApprovalDeniedEvent) -> list[Update]:
        """A call the person rejected ends failed at once: some agents never report a call they were told not to
        run (gemini), and the editor must not show it pending until the turn ends."""
        tool_id = self._approval_tools.pop(e.interaction_id, None)
        view = self.tools.get(tool_id) if tool_id else None
        if view is None or view.status != "pending":
            return []
        return (
            self._finish(view.id, "failed", e.reason or "Rejected.", None)
            if "withdrawn" not in (e.reason or "")
            else []
        )

    def remember_approval(self, interaction_id: str, tool_id: str) -> None:
        """Link an approval to its tool call, so the grant moves that call to in_progress."""
        self._approval_tools[interaction_id] = tool_id

    # ── shell output ───────────────────────────────────────────────────────────────────────────────────────────
    def _on_shell_start(self, e: ev.ShellStartEvent) -> list[Update]:
        tool_id = self._current_command_tool()
        out: list[Update] = []
        if tool_id is None:  # an agent reported a command without a tool call: show one
            self._synthetic += 1
            tool_id = f"shell-{self._synthetic}"
            out += self.announce(tool_id, "shell", {"command": e.command})
            view = self.tools[tool_id]
            view.kind, view.title = "execute", _shorten(e.command)
            announced = out[-1]
            assert announced["sessionUpdate"] == "tool_call"
            announced["kind"], announced["title"] = view.kind, view.title  # the command, not the table's title
        view = self.tools[tool_id]
        view.output = BoundedOutput()
        self._shell_stack.append(tool_id)
        out += self._in_progress(view)
        if self.terminal_meta:
            view.terminal = True
            out.append(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": tool_id,
                    "content": [{"type": "terminal", "terminalId": tool_id}],
                    "_meta": {"terminal_info": {"terminal_id": tool_id, "cwd": e.cwd or self.cwd}},
                }
            )
        return out

    def _current_command_tool(self) -> str | None:
        for tool_id in reversed(list(self.tools)):
            view = self.tools[tool_id]
            if view.kind == "execute" and view.output is None:
                return tool_id
        return None

    def _on_shell_stdout_delta(self, e: ev.ShellStdoutDeltaEvent) -> list[Update]:
        return self._shell_output(e.delta)

    def _on_shell_stderr_delta(self, e: ev.ShellStderrDeltaEvent) -> list[Update]:
        return self._shell_output(e.delta)

    def _shell_output(self, delta: str) -> list[Update]:
        if not self._shell_stack:
            return []
        view = self.tools.get(self._shell_stack[-1])
        if view is None or view.output is None:
            return []
        view.output.append(delta)
        if view.terminal:
            view.pending.append(delta)
        view.dirty = True
        return self._live_output(view, force=False)

    def _live_output(self, view: ToolView, force: bool) -> list[Update]:
        """At most one update per tool per interval: the latest lines, or (terminal mode) the append-only delta of
        everything since the last one, so nothing is ever sent twice."""
        now = time.monotonic()
        if not view.dirty or (not force and now - view.last_flush < LIVE_OUTPUT_INTERVAL_S):
            return []
        view.dirty, view.last_flush = False, now
        assert view.output is not None
        if view.terminal:
            data, view.pending = "".join(view.pending), []
            return [
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": view.id,
                    "_meta": {"terminal_output": {"terminal_id": view.id, "data": data}},
                }
            ]
        return [
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": view.id,
                "content": [_text_content(_fenced(view.output.render_recent()))],
            }
        ]

    def flush_live_output(self) -> list[Update]:
        """Called when the stream goes quiet: show output that the throttle held back."""
        out: list[Update] = []
        for tool_id in self._shell_stack:
            view = self.tools.get(tool_id)
            if view is not None and view.dirty:
                out += self._live_output(view, force=True)
        return out

    def _on_shell_exit(self, e: ev.ShellExitEvent) -> list[Update]:
        if not self._shell_stack:
            return []
        view = self.tools.get(self._shell_stack[-1])
        if view is None:
            return []
        out = self._live_output(view, force=True)
        if view.terminal:
            out.append(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": view.id,
                    "_meta": {"terminal_exit": {"terminal_id": view.id, "exit_code": e.exit_code, "signal": None}},
                }
            )
        if view.id.startswith("shell-"):  # a synthetic tool call ends with its command
            out += self._finish(view.id, "completed" if e.exit_code == 0 else "failed", None)
        return out

    # ── usage ──────────────────────────────────────────────────────────────────────────────────────────────────
    def _on_token_usage(self, e: ev.TokenUsageEvent) -> list[Update]:
        """The context used: the request's input (which includes the cached tokens) and output; the turn's tokens
        add up for the prompt response's ``usage`` (:meth:`take_turn_usage`)."""
        self.turn_usage.add(e)
        if e.parent_tool_call_id is not None:  # a subagent's request: spent in the turn, not in this context window
            return []
        self._used_tokens = e.context_tokens if e.context_tokens is not None else e.input_tokens + e.output_tokens
        if e.context_window:
            self.context_window = e.context_window
        if self._agent_usage:
            return []
        return [{"sessionUpdate": "usage_update", "used": self._used_tokens, "size": self.context_window}]

    def _on_cost(self, e: ev.CostEvent) -> list[Update]:
        if self._agent_usage:
            return []
        cost = e.cost
        used = self._used_tokens or cost.input_tokens + cost.output_tokens
        return [
            {
                "sessionUpdate": "usage_update",
                "used": used,
                "size": self.context_window,
                "cost": {"amount": cost.total_usd, "currency": "USD"},
            }
        ]

    def take_turn_usage(self) -> Usage | None:
        """The tokens the turn spent (ACP ``Usage``), None when none were reported; the next turn counts afresh."""
        usage, self.turn_usage = self.turn_usage.usage(), TurnUsage()
        return usage

    def _on_context_limit_warning(self, e: ev.ContextLimitWarningEvent) -> list[Update]:
        self.context_window = e.max_tokens or self.context_window
        if self._agent_usage:
            return []
        return [{"sessionUpdate": "usage_update", "used": e.used_tokens, "size": self.context_window}]

    # ── visible notes ──────────────────────────────────────────────────────────────────────────────────────────
    def _on_context_compacted(self, e: ev.ContextCompactedEvent) -> list[Update]:
        return [notice(f"\n\n_(context compacted{': ' + e.summary if e.summary else ''})_\n\n")]

    def _on_rate_limited(self, e: ev.RateLimitedEvent) -> list[Update]:
        wait = f" for {wait_text(e.retry_after_ms)}" if e.retry_after_ms else ""
        return [notice(f"\n\n_(rate limited by the model provider; waiting{wait})_\n\n")]

    def _on_retry(self, e: ev.RetryEvent) -> list[Update]:
        of = f"/{e.max_attempts}" if e.max_attempts else ""
        return [notice(f"\n\n_(retrying, attempt {e.attempt}{of}: {e.reason})_\n\n")]

    def _on_subagent_spawn(self, e: ev.SubagentSpawnEvent) -> list[Update]:
        """The Task/Agent call already shows the spawn; it is marked as a subagent's (for child sessions)."""
        view = self.tools.get(e.subagent_id)
        if view is None or view.subagent:
            return []
        view.subagent = True
        info: dict[str, JsonValue] = {"tool_call_id": view.id, "state": "running", "agent": e.agent_name}
        info["title"] = _shorten(e.description or e.agent_name)
        info["description"] = _shorten(e.prompt) if e.prompt else None
        return [{"sessionUpdate": "tool_call_update", "toolCallId": view.id, "_meta": {SUBAGENT_META: info}}]

    def _on_subagent_text(self, e: ev.SubagentTextEvent) -> list[Update]:
        """A subagent's words: the content of its Task call (the whole text so far, as ACP content replaces), never
        the main reply; its thinking is only marked (an editor shows it in a child session, if anywhere)."""
        view = self.tools.get(e.subagent_id)
        if view is None or not e.text:
            return []
        marked: dict[str, JsonValue] = {"tool_call_id": view.id, "text": e.text, "thinking": bool(e.thinking)}
        update: acp.SessionUpdateToolCallUpdate = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": view.id,
            "_meta": {SUBAGENT_TEXT_META: marked},
        }
        if not e.thinking:
            view.subagent_text.append(e.text)
            view.content = [_text_content(cap_text("\n\n".join(view.subagent_text)))]
            update["content"] = view.content
        return self._in_progress(view) + [update]

    # ── end of turn ────────────────────────────────────────────────────────────────────────────────────────────
    def close_open_tools(self, status: acp.ToolCallStatus = "failed") -> list[Update]:
        """Every tool call the editor saw must end: at turn end anything still open is closed."""
        out: list[Update] = []
        for tool_id in list(self.tools):
            out += self._finish(tool_id, status, None)
        self._plan_tools.clear()
        return out

    # ── helpers ────────────────────────────────────────────────────────────────────────────────────────────────
    def _title(self, spec: ToolSpecLike, name: str, tool_input: JsonValue) -> str:
        if tool_input is None:
            return name
        title = spec.render_title(name, _relativize(tool_input, self.cwd, spec))
        return _shorten(title)

    def _locations(self, spec: ToolSpecLike, tool_input: JsonValue) -> list[acp.ToolCallLocation]:
        if not isinstance(tool_input, dict):
            return []
        out = []
        for arg in spec.path_args:
            value = tool_input.get(arg)
            if isinstance(value, str) and value:
                location: acp.ToolCallLocation = {"path": resolve(value, self.cwd)}
                line = tool_input.get(spec.line_arg) if spec.line_arg else None
                if isinstance(line, int) and line > 0:
                    location["line"] = line
                out.append(location)
        if spec.paths is not None:  # patch-style tools name their files inside the input
            try:
                named = spec.paths(tool_input)
            except Exception:  # malformed input: the tool is still shown, just without locations
                named = []
            seen = {loc["path"] for loc in out}
            for path in (resolve(p, self.cwd) for p in named if isinstance(p, str) and p):
                if path not in seen:
                    seen.add(path)
                    out.append({"path": path})
        return out

    def tool_status(self, tool_id: str) -> str | None:
        view = self.tools.get(tool_id)
        return view.status if view else None


_ACP_KINDS: frozenset[str] = frozenset(
    {"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"}
)


def _kind(kind: str) -> acp.ToolKind:
    """A tool kind as ACP knows it: an agent's or a table's own word outside ACP's list shows as ``other``."""
    return cast("acp.ToolKind", kind) if kind in _ACP_KINDS else "other"


def _location(path: str, line: int | None, cwd: str) -> acp.ToolCallLocation:
    location: acp.ToolCallLocation = {"path": resolve(path, cwd)}
    if isinstance(line, int) and line > 0:
        location["line"] = line
    return location


def _complete_json(text: str) -> JsonValue:
    """The tool input when it already arrived whole (buffered agents), else None (it is still streaming)."""
    if not text:
        return None
    try:
        value: JsonValue = json.loads(text)
    except ValueError:
        return None
    return value


def _relativize(tool_input: JsonValue, cwd: str, spec: ToolSpecLike) -> JsonValue:
    if not isinstance(tool_input, dict) or not spec.path_args:
        return tool_input
    shown = dict(tool_input)
    for arg in spec.path_args:
        value = shown.get(arg)
        if isinstance(value, str):
            shown[arg] = relative_title(value, cwd)
    return shown


def _shorten(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"


def _text_content(text: str) -> acp.ToolCallContentContent:
    return {"type": "content", "content": {"type": "text", "text": text}}


def _fenced(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}console\n{text}\n{fence}"


def _output_text(output: JsonValue) -> str:
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    if isinstance(output, list) and all(isinstance(x, dict) for x in output):  # content blocks
        texts = [text for x in output if isinstance(x, dict) and isinstance(text := x.get("text"), str)]
        if texts:
            return "\n".join(texts)
    try:
        return json.dumps(output, ensure_ascii=False, indent=1)
    except (TypeError, ValueError):
        return str(output)


def _add_agent_meta(update: acp.ToolCall | acp.ToolCallUpdate, display: ev.ToolDisplay | None) -> None:
    """The agent's own ``_meta`` for a call (``display.meta``) beside acp-mux's keys on ``update``: a key both
    have is merged one level down (``claudeCode`` keeps acp-mux's ``parentToolUseId`` and gains the agent's
    ``toolName``); long strings in it are capped like ``rawOutput``."""
    if display is None or not display.meta:
        return
    meta: dict[str, JsonValue] = dict(update.get("_meta") or {})
    for key, value in display.meta.items():
        mine = meta.get(key)
        merged = {**value, **mine} if isinstance(mine, dict) and isinstance(value, dict) else mine or value
        meta[key] = cap_value(merged)
    update["_meta"] = meta

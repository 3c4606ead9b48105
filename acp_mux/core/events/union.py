"""The normalized AgentEvent union: the 55 of spec 000's 67 event types that an agent or the runtime builds, in its
18 categories, plus additive extensions. The other twelve (session_resume, session_fork, session_checkpoint,
step_start, step_end, plugin_invoked, plugin_error, agentdoc_read, image_input_ack, paused, resumed,
stream_fallback) were built by nothing a user could reach and are gone (docs/python-api.md); a stored log that
holds one reads back as :class:`UnknownEvent`.

Every adapter turns its agent's native output into these events, and only these; translation to ACP reads only
these. Field names are snake_case in Python and camelCase on the wire (aliases), so a run can be written as JSONL
and read back losslessly. Models use ``defer_build`` so importing this module stays cheap: a schema is built the
first time its event type is used.

Extensions (the spec allows new optional fields and new types; none is specific to one agent): ``display`` hints
on tool events (kind, title, locations, diffs, content the agent itself reports), ``tool_update`` for a running
call that changes how it looks, and a ``session_state`` category for what agents report about the session beyond
one turn (modes/models/settings, mode changes, commands, plans) and for requests an agent makes of the client.

Adapters build events without ``run_id``/``agent``/``timestamp``; the run runtime stamps them (the spec's
"event enrichment" step), which is why those fields have empty defaults.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import Annotated, Any, Literal, Self, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_serializer,
)
from pydantic.alias_generators import to_camel

from acp_mux.core.events.codes import ErrorCode, now_ms
from acp_mux.core.text.joined_text import JoinedText
from acp_mux.core.events.limit_times import epoch_seconds, wait_ms

__all__ = [
    "AgentEvent",
    "AgentEventType",
    "BaseEvent",
    "CATEGORIES",
    "CostRecord",
    "ErrorCode",
    "EVENT_TYPES",
    "EVENT_CLASSES",
    "EXTENSION_TYPES",
    "UnknownEvent",
    "category_of",
    "dump_event",
    "event_to_json",
    "is_terminal_event",
    "now_ms",
    "parse_event",
    "parse_event_json",
]


_CONFIG = ConfigDict(
    alias_generator=to_camel,
    populate_by_name=True,
    defer_build=True,
    extra="ignore",
    ser_json_inf_nan="constants",
)


class CostRecord(BaseModel):
    """Aggregated cost and token usage for a run, turn or subagent (spec 000 §3)."""

    model_config = _CONFIG
    total_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    thinking_tokens: int | None = None
    cached_tokens: int | None = None


class BaseEvent(BaseModel):
    """Fields every event carries. ``type`` is the discriminant; ``raw`` is the native line in debug mode.

    ``parent_tool_call_id`` (an extension, spec 001's parent link): set on a subagent's own events (its tool calls,
    their results, its text), naming the tool call that spawned it (the ``subagent_id`` of its ``subagent_spawn``);
    None for the main agent. It is stored with the event, so the log keeps the tree and a replay nests it again."""

    model_config = _CONFIG
    type: str
    run_id: str = ""
    agent: str = ""
    timestamp: int = 0
    raw: str | None = None
    parent_tool_call_id: str | None = None


# ── Session lifecycle (2) ──────────────────────────────────────────────────────────────────────────────────────
class SlashCommand(BaseModel):
    """A command the user can type (``/name``), as the agent reported it."""

    model_config = _CONFIG
    name: str
    description: str = ""


class SessionStartEvent(BaseEvent):
    """``commands`` (an extension) carries the agent's slash commands when its start-up reports them."""

    type: Literal["session_start"] = "session_start"
    session_id: str
    resumed: bool = False
    forked_from: str | None = None
    commands: list[SlashCommand] | None = None


class SessionEndEvent(BaseEvent):
    type: Literal["session_end"] = "session_end"
    session_id: str
    turn_count: int = 0
    cost: CostRecord | None = None


# ── Turn lifecycle (2) ─────────────────────────────────────────────────────────────────────────────────────────
class TurnStartEvent(BaseEvent):
    type: Literal["turn_start"] = "turn_start"
    turn_index: int


class TurnEndEvent(BaseEvent):
    type: Literal["turn_end"] = "turn_end"
    turn_index: int
    cost: CostRecord | None = None


# ── Text / message streaming (3) ───────────────────────────────────────────────────────────────────────────────
class MessageStartEvent(BaseEvent):
    """``message_id`` (an extension): the id every chunk of this message carries (ACP ``messageId``): the agent's own
    id for the message where it names one, else one the parse context made (a ULID), so an editor can tell one
    message from the next and a replay shows the same ids as the live turn did."""

    type: Literal["message_start"] = "message_start"
    message_id: str | None = None


class _AccumulatingDelta(BaseEvent):
    """A delta whose ``accumulated`` text is shared, not copied: streaming N deltas costs O(N), not O(N²).

    Built with :meth:`lazy` the event keeps a reference to its message's growing :class:`JoinedText` and the length
    the text had with this delta; ``accumulated`` is cut from it only when someone reads or serializes it.
    """

    delta: str
    accumulated_text: str | None = Field(default=None, alias="accumulated")
    _parts: JoinedText | None = PrivateAttr(default=None)
    _count: int = PrivateAttr(default=0)

    @classmethod
    def lazy(cls, delta: str, text: JoinedText, **strings: str) -> Self:
        """The streaming path's constructor: one per streamed delta, so it skips pydantic's validation (a ``str`` is
        all there is to check, and it is checked) and builds the instance as ``model_construct`` would, about five
        times faster than ``cls(delta=...)``. The result is indistinguishable from a validated one (tests).

        ``text`` is the message so far, this delta already appended to it; ``strings``: the subclass's other
        (string) fields, e.g. a tool input delta's ``tool_call_id``."""
        for name, value in (("delta", delta), *strings.items()):
            if type(value) is not str:
                raise TypeError(f"{name} must be str, not {type(value).__name__}")
        defaults = cls.__dict__.get("_lazy_defaults")
        if defaults is None:
            defaults = {name: field.get_default(call_default_factory=True) for name, field in cls.model_fields.items()}
            type.__setattr__(cls, "_lazy_defaults", defaults)
        event = cls.__new__(cls)
        set_attr = object.__setattr__
        set_attr(event, "__dict__", {**defaults, **strings, "delta": delta})
        set_attr(event, "__pydantic_fields_set__", {"delta", *strings})
        set_attr(event, "__pydantic_extra__", None)
        set_attr(event, "__pydantic_private__", {"_parts": text, "_count": text.length})
        return event

    @property
    def accumulated(self) -> str:
        if self.accumulated_text is None:
            text = self._parts
            self.accumulated_text = text.prefix(self._count) if text is not None else self.delta
        return self.accumulated_text

    @model_serializer(mode="wrap")
    def _with_accumulated(self, handler: SerializerFunctionWrapHandler) -> Any:
        self.accumulated  # noqa: B018  (materialize before dumping)
        return handler(self)


class TextDeltaEvent(_AccumulatingDelta):
    """``message_id`` (an extension): the message this delta belongs to (ACP ``messageId``; see
    :class:`MessageStartEvent`); a change of id is a new message."""

    type: Literal["text_delta"] = "text_delta"
    message_id: str | None = None


class MessageStopEvent(BaseEvent):
    """``message_id``: as on :class:`MessageStartEvent` (the log may keep a message as its stop event alone)."""

    type: Literal["message_stop"] = "message_stop"
    text: str
    message_id: str | None = None


# ── Thinking / reasoning (3) ───────────────────────────────────────────────────────────────────────────────────
class ThinkingStartEvent(BaseEvent):
    """``message_id``: as on :class:`MessageStartEvent`."""

    type: Literal["thinking_start"] = "thinking_start"
    effort: str | None = None
    message_id: str | None = None


class ThinkingDeltaEvent(_AccumulatingDelta):
    """``message_id``: as on :class:`TextDeltaEvent`."""

    type: Literal["thinking_delta"] = "thinking_delta"
    message_id: str | None = None


class ThinkingStopEvent(BaseEvent):
    """``message_id``: as on :class:`MessageStartEvent`."""

    type: Literal["thinking_stop"] = "thinking_stop"
    thinking: str
    message_id: str | None = None


# ── Tool calling (5) ───────────────────────────────────────────────────────────────────────────────────────────
class ToolLocation(BaseModel):
    """A file (and line) a tool call touches, as the editor should show it."""

    model_config = _CONFIG
    path: str
    line: int | None = None


class ToolDiff(BaseModel):
    """One file edit; ``old_text`` None is a new file."""

    model_config = _CONFIG
    path: str
    new_text: str
    old_text: str | None = None


class ToolDisplay(BaseModel):
    """Agent-neutral display hints for a tool call (an extension): what the agent itself knows about how the call
    should look. Translation prefers each hint that is set over what the adapter's tool table derives from the tool
    name and input, so an agent that reports kind, title, locations or diffs (every ACP agent does; some native
    formats too) is shown exactly as it meant, and a tool with no name still has a truthful face.

    ``content`` holds content blocks to show with the call (text, images, resource links: MCP/ACP
    ``ContentBlock`` shapes, which are agent-neutral); ``terminal_id`` names a client terminal showing its output.
    ``meta`` is the agent's own ``_meta`` for the call (claude-agent-acp's ``claudeCode`` keys: the tool's own name
    and response), given to the editor beside acp-mux's own keys on the update that carries it.
    """

    model_config = _CONFIG
    kind: str | None = None
    title: str | None = None
    locations: list[ToolLocation] | None = None
    diffs: list[ToolDiff] | None = None
    content: list[dict[str, Any]] | None = None
    terminal_id: str | None = None
    meta: dict[str, Any] | None = None


class ToolCallStartEvent(BaseEvent):
    type: Literal["tool_call_start"] = "tool_call_start"
    tool_call_id: str
    tool_name: str
    input_accumulated: str = ""
    display: ToolDisplay | None = None


class ToolInputDeltaEvent(_AccumulatingDelta):
    """A piece of a tool call's input as the model streams it; the input so far is shared like a message's text
    (a large file write arrives as thousands of pieces: copying the input so far into each would be quadratic)."""

    type: Literal["tool_input_delta"] = "tool_input_delta"
    tool_call_id: str
    accumulated_text: str | None = Field(default=None, alias="inputAccumulated")

    @property
    def input_accumulated(self) -> str:
        return self.accumulated


class ToolCallReadyEvent(BaseEvent):
    type: Literal["tool_call_ready"] = "tool_call_ready"
    tool_call_id: str
    tool_name: str
    input: Any = None
    display: ToolDisplay | None = None


class ToolResultEvent(BaseEvent):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    tool_name: str
    output: Any = None
    duration_ms: int = 0
    display: ToolDisplay | None = None


class ToolErrorEvent(BaseEvent):
    type: Literal["tool_error"] = "tool_error"
    tool_call_id: str
    tool_name: str
    error: str
    display: ToolDisplay | None = None


class ToolUpdateEvent(BaseEvent):
    """A running tool call changed how it looks (new title, content, diff) or reported it is running (an
    extension: agents that describe tool calls progressively, as every ACP agent may)."""

    type: Literal["tool_update"] = "tool_update"
    tool_call_id: str
    display: ToolDisplay | None = None
    running: bool = False


class ToolProgressEvent(BaseEvent):
    """A running tool reports progress (an extension; spec 004's tool-call-progress payload): MCP progress
    notifications and the agents' own progress items. ``progress``/``total`` as the tool reports them (``total``
    may be unknown), ``message`` its words, ``status`` its own word for its state. Progress never ends a call or a
    turn: ``tool_result``/``tool_error`` end the call, and the turn's stop reason comes from its terminal event."""

    type: Literal["tool_progress"] = "tool_progress"
    tool_call_id: str
    status: str = "running"
    progress: float | None = None
    total: float | None = None
    message: str | None = None


# ── File operations (5) ────────────────────────────────────────────────────────────────────────────────────────
class FileReadEvent(BaseEvent):
    type: Literal["file_read"] = "file_read"
    path: str


class FileWriteEvent(BaseEvent):
    type: Literal["file_write"] = "file_write"
    path: str
    byte_count: int = 0


class FileCreateEvent(BaseEvent):
    type: Literal["file_create"] = "file_create"
    path: str
    byte_count: int = 0


class FileDeleteEvent(BaseEvent):
    type: Literal["file_delete"] = "file_delete"
    path: str


class FilePatchEvent(BaseEvent):
    type: Literal["file_patch"] = "file_patch"
    path: str
    diff: str


# ── Shell operations (4) ───────────────────────────────────────────────────────────────────────────────────────
class ShellStartEvent(BaseEvent):
    type: Literal["shell_start"] = "shell_start"
    command: str
    cwd: str = ""


class ShellStdoutDeltaEvent(BaseEvent):
    type: Literal["shell_stdout_delta"] = "shell_stdout_delta"
    delta: str


class ShellStderrDeltaEvent(BaseEvent):
    type: Literal["shell_stderr_delta"] = "shell_stderr_delta"
    delta: str


class ShellExitEvent(BaseEvent):
    type: Literal["shell_exit"] = "shell_exit"
    exit_code: int
    duration_ms: int = 0


# ── MCP tool calling (3) ───────────────────────────────────────────────────────────────────────────────────────
class McpToolCallStartEvent(BaseEvent):
    type: Literal["mcp_tool_call_start"] = "mcp_tool_call_start"
    tool_call_id: str
    server: str
    tool_name: str
    input: Any = None


class McpToolResultEvent(BaseEvent):
    type: Literal["mcp_tool_result"] = "mcp_tool_result"
    tool_call_id: str
    server: str
    tool_name: str
    output: Any = None


class McpToolErrorEvent(BaseEvent):
    type: Literal["mcp_tool_error"] = "mcp_tool_error"
    tool_call_id: str
    server: str
    tool_name: str
    error: str


# ── Subagent dispatch (3) ──────────────────────────────────────────────────────────────────────────────────────
class SubagentSpawnEvent(BaseEvent):
    """``description`` (an extension): the short task the parent gave it (the title an editor shows)."""

    type: Literal["subagent_spawn"] = "subagent_spawn"
    subagent_id: str
    agent_name: str
    prompt: str
    description: str | None = None


class SubagentResultEvent(BaseEvent):
    type: Literal["subagent_result"] = "subagent_result"
    subagent_id: str
    agent_name: str
    summary: str
    cost: CostRecord | None = None


class SubagentErrorEvent(BaseEvent):
    type: Literal["subagent_error"] = "subagent_error"
    subagent_id: str
    agent_name: str
    error: str


class SubagentTextEvent(BaseEvent):
    """An extension: text a running subagent wrote (a whole block; ``thinking`` for its reasoning). Its own type,
    never a ``text_delta``, so nothing that reads the main reply can mistake a subagent's words for it."""

    type: Literal["subagent_text"] = "subagent_text"
    subagent_id: str
    text: str
    thinking: bool | None = None


# ── Plugin events (1) ──────────────────────────────────────────────────────────────────────────────────────────
class PluginLoadedEvent(BaseEvent):
    type: Literal["plugin_loaded"] = "plugin_loaded"
    plugin_id: str
    plugin_name: str
    version: str = ""


# ── Skill loading (2) ──────────────────────────────────────────────────────────────────────────────────────────
class SkillLoadedEvent(BaseEvent):
    type: Literal["skill_loaded"] = "skill_loaded"
    skill_name: str
    source: str = "built-in"


class SkillInvokedEvent(BaseEvent):
    type: Literal["skill_invoked"] = "skill_invoked"
    skill_name: str


# ── Multimodal (1) ─────────────────────────────────────────────────────────────────────────────────────────────
class ImageOutputEvent(BaseEvent):
    type: Literal["image_output"] = "image_output"
    mime_type: str
    base64: str | None = None
    file_path: str | None = None


# ── Cost and tokens (2) ────────────────────────────────────────────────────────────────────────────────────────
class CostEvent(BaseEvent):
    type: Literal["cost"] = "cost"
    cost: CostRecord


class TokenUsageEvent(BaseEvent):
    """Tokens one model request (or one turn) spent; a turn's events add up. ``input_tokens`` includes the cached
    ones (OpenAI's convention: ``cached_tokens`` cache reads, ``cache_write_tokens`` (an extension) cache writes,
    are parts of it), ``output_tokens`` includes the thinking ones. ``total_tokens`` (an extension): the agent's
    own total where it states one (an ACP agent's ``usage.totalTokens``), else input plus output.
    ``context_window`` (an extension): the model's context window, where the agent says it with its usage;
    ``context_tokens`` (an extension): the tokens its last request filled the window with, where a turn's events
    sum several requests (claude's turn usage), so the context used is not their sum."""

    type: Literal["token_usage"] = "token_usage"
    input_tokens: int = 0
    output_tokens: int = 0
    thinking_tokens: int | None = None
    cached_tokens: int | None = None
    cache_write_tokens: int | None = None
    total_tokens: int | None = None
    context_window: int | None = None
    context_tokens: int | None = None


# ── Interaction / waiting (3) ──────────────────────────────────────────────────────────────────────────────────
class ApprovalRequestEvent(BaseEvent):
    """An agent asks to run something (or, with ``choices``, to pick an answer). ``tool_call_id`` (an extension)
    links it to the announced tool call; ``input`` carries the tool input so "allow always" rules can match on
    command or path."""

    type: Literal["approval_request"] = "approval_request"
    interaction_id: str
    action: str
    detail: str = ""
    tool_name: str | None = None
    risk_level: Literal["low", "medium", "high"] = "medium"
    tool_call_id: str | None = None
    input: Any = None
    # An agent's multiple-choice question (cursor/ask_question), asked through the same dialog: one option per
    # choice ({"id", "label"}) plus "skip". The picked id comes back as ``updated_input={"choice": id}``.
    choices: list[dict[str, str]] | None = None


class ApprovalGrantedEvent(BaseEvent):
    type: Literal["approval_granted"] = "approval_granted"
    interaction_id: str


class ApprovalDeniedEvent(BaseEvent):
    type: Literal["approval_denied"] = "approval_denied"
    interaction_id: str
    reason: str | None = None


# ── Rate / context limits (4) ──────────────────────────────────────────────────────────────────────────────────
class RateLimitedEvent(BaseEvent):
    type: Literal["rate_limited"] = "rate_limited"
    retry_after_ms: int | None = None

    @field_validator("retry_after_ms", mode="before")
    @classmethod
    def _sane_wait(cls, value: object) -> int | None:
        """The agent's wait is input: a wait of up to a year, else none (``limit_times``)."""
        return wait_ms(value)


class ContextLimitWarningEvent(BaseEvent):
    type: Literal["context_limit_warning"] = "context_limit_warning"
    used_tokens: int
    max_tokens: int
    pct_used: float


class ContextCompactedEvent(BaseEvent):
    type: Literal["context_compacted"] = "context_compacted"
    summary: str = ""
    tokens_saved: int = 0


class RetryEvent(BaseEvent):
    type: Literal["retry"] = "retry"
    attempt: int
    max_attempts: int
    reason: str
    delay_ms: int = 0


# ── Run lifecycle / control (4) ────────────────────────────────────────────────────────────────────────────────
class InterruptedEvent(BaseEvent):
    type: Literal["interrupted"] = "interrupted"


class AbortedEvent(BaseEvent):
    type: Literal["aborted"] = "aborted"


class TimeoutEvent(BaseEvent):
    type: Literal["timeout"] = "timeout"
    kind: Literal["run", "inactivity"]


class TurnLimitEvent(BaseEvent):
    type: Literal["turn_limit"] = "turn_limit"
    max_turns: int


# ── Errors (5) ─────────────────────────────────────────────────────────────────────────────────────────────────
class AuthErrorEvent(BaseEvent):
    type: Literal["auth_error"] = "auth_error"
    message: str
    guidance: str = ""


class RateLimitErrorEvent(BaseEvent):
    """The agent gave up on a limit. ``kind`` says which: ``quota`` is a usage limit the agent will not retry past
    (claude's ``rate_limit_event`` ``rejected``, codex's ``usageLimitExceeded``): the turn can only go on with
    another agent, so the person is offered one; ``rate`` is any other rate limit (a 429 the agent retried and
    gave up on). ``resets_at`` is when the limit lifts (epoch seconds), only from the agent's machine field."""

    type: Literal["rate_limit_error"] = "rate_limit_error"
    message: str
    retry_after_ms: int | None = None
    kind: Literal["quota", "rate"] = "rate"
    resets_at: int | None = None

    @field_validator("retry_after_ms", mode="before")
    @classmethod
    def _sane_wait(cls, value: object) -> int | None:
        """The agent's wait is input: a wait of up to a year, else none (``limit_times``)."""
        return wait_ms(value)

    @field_validator("resets_at", mode="before")
    @classmethod
    def _sane_reset(cls, value: object) -> int | None:
        """The agent's reset time is input: epoch seconds of this century (from s, ms or µs), else none."""
        return epoch_seconds(value)


class ContextExceededEvent(BaseEvent):
    type: Literal["context_exceeded"] = "context_exceeded"
    used_tokens: int = 0
    max_tokens: int = 0


class CrashEvent(BaseEvent):
    type: Literal["crash"] = "crash"
    exit_code: int  # -1 when killed by a signal (then ``signal`` names it)
    stderr: str = ""
    signal: str | None = None  # e.g. "SIGKILL"


class ErrorEvent(BaseEvent):
    type: Literal["error"] = "error"
    code: str
    message: str
    recoverable: bool = False


# ── Debug (2) ──────────────────────────────────────────────────────────────────────────────────────────────────
class DebugEvent(BaseEvent):
    type: Literal["debug"] = "debug"
    level: Literal["verbose", "info", "warn"] = "info"
    message: str


class LogEvent(BaseEvent):
    type: Literal["log"] = "log"
    source: Literal["stdout", "stderr"] = "stderr"
    line: str


# ── Session state (extension, 5): what the agent reports about the session beyond one turn ──────────────────────
class SessionModeOption(BaseModel):
    model_config = _CONFIG
    id: str
    name: str
    description: str = ""


class SessionModelOption(BaseModel):
    model_config = _CONFIG
    id: str
    name: str = ""
    description: str = ""


class SessionOptionsEvent(BaseEvent):
    """The modes, models and other settings the agent offers, as far as it reported them (None = not reported).

    ``config_options`` are further settings in ACP's ``SessionConfigOption`` shape (id, name, type, currentValue,
    options): agent-neutral data the bridge passes through, minus the mode and model, which it carries above."""

    type: Literal["session_options"] = "session_options"
    modes: list[SessionModeOption] | None = None
    current_mode: str | None = None
    models: list[SessionModelOption] | None = None
    current_model: str | None = None
    config_options: list[dict[str, Any]] | None = None


class ModeChangeEvent(BaseEvent):
    """The agent switched its own mode (e.g. after an "always" answer, or leaving plan mode)."""

    type: Literal["mode_change"] = "mode_change"
    mode_id: str


class CommandsUpdateEvent(BaseEvent):
    """The commands the user can type changed (agents report them after start-up or when skills load).

    ``wire``: the ACP agent's own ``availableCommands`` as it sent them (input hints, ``_meta``), for the editor."""

    type: Literal["commands_update"] = "commands_update"
    commands: list[SlashCommand]
    wire: list[dict[str, Any]] | None = None


class PlanEntry(BaseModel):
    model_config = _CONFIG
    content: str
    status: Literal["pending", "in_progress", "completed"] = "pending"
    priority: Literal["high", "medium", "low"] = "medium"


class PlanUpdateEvent(BaseEvent):
    """The agent's plan, whole (each update replaces the previous one)."""

    type: Literal["plan_update"] = "plan_update"
    entries: list[PlanEntry]
    wire: dict[str, Any] | None = None  # an ACP agent's own ``plan`` update as it sent it (``_meta`` included)


class ClientRequestEvent(BaseEvent):
    """The agent asks the client for a capability the client offers (read or write a file through the editor's
    buffers, run a terminal): the session serves it and answers through the run with ``respond_client_request``.
    ``method`` and ``params`` are the request as the agent sent it, minus its session id."""

    type: Literal["client_request"] = "client_request"
    request_id: str
    method: str
    params: dict[str, Any] = Field(default_factory=dict)


class ClientNotificationEvent(BaseEvent):
    """The agent tells the client something the client declared it shows, with no answer expected (ACP's
    ``elicitation/complete`` after a url elicitation): the session sends it to the editor as it is, in the
    agent's words (validated at the agent's edge). ``method`` and ``params`` are the notification as the agent
    sent it; the pair of ``client_request`` for notifications."""

    type: Literal["client_notification"] = "client_notification"
    method: str
    params: dict[str, Any] = Field(default_factory=dict)


class AgentUpdateEvent(BaseEvent):
    """A ``session/update`` an ACP agent sent that reaches the editor exactly as the agent wrote it: what the union
    has no place for and acp-mux adds nothing to (the session's title and timestamps, the context window and cost
    in the agent's own currency, an update kind from a newer ACP). ``update`` is the wire dict, ``sessionUpdate``
    and ``_meta`` included; an explicit ``null`` keeps its meaning (a ``title`` of null clears the title)."""

    type: Literal["agent_update"] = "agent_update"
    update: dict[str, Any]


class UnknownEvent(BaseEvent):
    """An event of a type this version does not know (the union is additive-only): kept, never fatal."""

    model_config = ConfigDict(**{**_CONFIG, "extra": "allow"})


CATEGORIES: dict[str, tuple[type[BaseEvent], ...]] = {
    "session": (SessionStartEvent, SessionEndEvent),
    "turn": (TurnStartEvent, TurnEndEvent),
    "text": (MessageStartEvent, TextDeltaEvent, MessageStopEvent),
    "thinking": (ThinkingStartEvent, ThinkingDeltaEvent, ThinkingStopEvent),
    "tool": (
        ToolCallStartEvent,
        ToolInputDeltaEvent,
        ToolCallReadyEvent,
        ToolResultEvent,
        ToolErrorEvent,
        ToolUpdateEvent,
        ToolProgressEvent,
    ),
    "file": (FileReadEvent, FileWriteEvent, FileCreateEvent, FileDeleteEvent, FilePatchEvent),
    "shell": (ShellStartEvent, ShellStdoutDeltaEvent, ShellStderrDeltaEvent, ShellExitEvent),
    "mcp": (McpToolCallStartEvent, McpToolResultEvent, McpToolErrorEvent),
    "subagent": (SubagentSpawnEvent, SubagentResultEvent, SubagentErrorEvent, SubagentTextEvent),
    "plugin": (PluginLoadedEvent,),
    "skill": (SkillLoadedEvent, SkillInvokedEvent),
    "multimodal": (ImageOutputEvent,),
    "cost": (CostEvent, TokenUsageEvent),
    "interaction": (ApprovalRequestEvent, ApprovalGrantedEvent, ApprovalDeniedEvent),
    "rate_limit": (RateLimitedEvent, ContextLimitWarningEvent, ContextCompactedEvent, RetryEvent),
    "run_lifecycle": (
        InterruptedEvent,
        AbortedEvent,
        TimeoutEvent,
        TurnLimitEvent,
    ),
    "error": (AuthErrorEvent, RateLimitErrorEvent, ContextExceededEvent, CrashEvent, ErrorEvent),
    "debug": (DebugEvent, LogEvent),
    "session_state": (
        SessionOptionsEvent,
        ModeChangeEvent,
        CommandsUpdateEvent,
        PlanUpdateEvent,
        ClientRequestEvent,
        ClientNotificationEvent,
        AgentUpdateEvent,
    ),
}
# The spec's types that are built (55), and the additive extensions this bridge defines (optional fields aside).
EXTENSION_TYPES: frozenset[str] = frozenset(
    {
        "tool_update",
        "tool_progress",
        "session_options",
        "mode_change",
        "commands_update",
        "plan_update",
        "client_request",
        "client_notification",
        "agent_update",
        "subagent_text",
    }
)

EVENT_CLASSES: dict[str, type[BaseEvent]] = {
    cls.model_fields["type"].default: cls for group in CATEGORIES.values() for cls in group
}
EVENT_TYPES: frozenset[str] = frozenset(EVENT_CLASSES)
_CATEGORY_BY_TYPE: dict[str, str] = {
    cls.model_fields["type"].default: name for name, group in CATEGORIES.items() for cls in group
}


class _TypeConstants:
    """``AgentEventType.TEXT_DELTA == "text_delta"``: the spec's constant table, derived from the classes."""

    def __init__(self, types: frozenset[str]) -> None:
        for t in types:
            setattr(self, t.upper(), t)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(EVENT_TYPES))


AgentEventType = _TypeConstants(EVENT_TYPES)

# Built from the category table at import time, so it is a runtime value for pydantic, not a static type.
AgentEvent: Any = Annotated[
    Union[tuple(cls for group in CATEGORIES.values() for cls in group)],  # noqa: UP007 (a runtime tuple: no X | Y)
    Field(discriminator="type"),
]


# ── Guards ─────────────────────────────────────────────────────────────────────────────────────────────────────
def category_of(event: BaseEvent) -> str | None:
    """The category name of an event (``"tool"``, ``"error"``, ...), None for unknown types."""
    return _CATEGORY_BY_TYPE.get(event.type)


def _category_guard(name: str) -> Callable[[BaseEvent], bool]:
    def guard(event: BaseEvent) -> bool:
        return _CATEGORY_BY_TYPE.get(event.type) == name

    guard.__name__ = f"is_{name}_event"
    guard.__doc__ = f"True when the event belongs to the {name!r} category."
    return guard


is_session_event = _category_guard("session")
is_turn_event = _category_guard("turn")
is_text_event = _category_guard("text")
is_thinking_event = _category_guard("thinking")
is_tool_event = _category_guard("tool")
is_file_event = _category_guard("file")
is_shell_event = _category_guard("shell")
is_mcp_event = _category_guard("mcp")
is_subagent_event = _category_guard("subagent")
is_plugin_event = _category_guard("plugin")
is_skill_event = _category_guard("skill")
is_multimodal_event = _category_guard("multimodal")
is_cost_event = _category_guard("cost")
is_interaction_event = _category_guard("interaction")
is_rate_limit_event = _category_guard("rate_limit")
is_run_lifecycle_event = _category_guard("run_lifecycle")
is_error_event = _category_guard("error")
is_debug_event = _category_guard("debug")
is_session_state_event = _category_guard("session_state")

_TERMINAL_TYPES = frozenset(
    {"interrupted", "aborted", "timeout", "turn_limit", "auth_error", "context_exceeded", "crash"}
)


def is_terminal_event(event: BaseEvent) -> bool:
    """True when the run ends after this event (spec 000 §28)."""
    if event.type == "error":
        return not getattr(event, "recoverable", False)
    return event.type in _TERMINAL_TYPES


# ── Serialization ──────────────────────────────────────────────────────────────────────────────────────────────
@cache
def _adapter() -> TypeAdapter[BaseEvent]:
    return TypeAdapter(AgentEvent)


def dump_event(event: BaseEvent) -> dict[str, Any]:
    """The wire form: camelCase keys, unset optionals omitted."""
    return event.model_dump(mode="json", by_alias=True, exclude_none=True)


def event_to_json(event: BaseEvent) -> str:
    return event.model_dump_json(by_alias=True, exclude_none=True)


def parse_event(data: dict[str, Any]) -> BaseEvent:
    """Read one wire-form event. Unknown types become :class:`UnknownEvent` instead of failing."""
    if data.get("type") not in EVENT_TYPES:
        try:
            return UnknownEvent.model_validate(data)
        except ValidationError:
            return UnknownEvent(type=str(data.get("type", "unknown")))
    return _adapter().validate_python(data)


def parse_event_json(line: str) -> BaseEvent:
    import json

    return parse_event(json.loads(line))


# ── Ahead of the first turn ────────────────────────────────────────────────────────────────────────────────────
# What every turn builds (seen on claude and codex: the first prompt built exactly these, plus a tool call's).
TURN_EVENT_CLASSES: tuple[type[BaseModel], ...] = (
    SessionStartEvent,
    SlashCommand,
    TurnStartEvent,
    MessageStartEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    MessageStopEvent,
    TokenUsageEvent,
    CostRecord,
    CostEvent,
    TurnEndEvent,
    ToolCallStartEvent,
    ToolCallReadyEvent,
    ToolResultEvent,
)
_turn_prepared = False


def prepare_turn() -> None:
    """Build the schemas a turn uses now, instead of at their first use (``defer_build``), which is the first
    prompt: there they cost ~35 ms for pydantic's plugin loader (importlib.metadata) plus ~1 ms a class, paid while
    the person waits for the first words. The bridge calls this once a session is answered, while they type."""
    global _turn_prepared
    if _turn_prepared:
        return
    _turn_prepared = True
    for cls in TURN_EVENT_CLASSES:
        cls.model_rebuild()

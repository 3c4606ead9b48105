"""The one contract every agent module implements.

An adapter is synchronous and knows nothing about ACP: it builds a spawn spec, turns each native stdout line into
normalized events, and answers the runtime's control requests (next prompt, approval decision, interrupt, mode) by
queueing native messages on the parse context's outbox. The run runtime does all I/O: it writes the outbox to the
agent's stdin after each line, so one mechanism serves both transport families — line-stream agents (stdout lines
in, stdin control messages out) and bidirectional protocol agents (JSON-RPC or ACP both ways, see
``json_rpc_peer.py``). What one run remembers between lines is the adapter's own :class:`PerRun` dataclass.
"""

from __future__ import annotations

import os
import importlib
import shutil
from dataclasses import dataclass, field
from functools import cache
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Literal, Mapping, Self

from acp_mux.core.process.spawn import ExitStatus, SpawnSpec
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.run.log_follow import SideLog
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.run.prompt import Prompt
from acp_mux.core.text import safe as safe_json
from acp_mux.adapters.registry import (
    AGENT_NAMES,
    ENTRIES,
    AgentEntry,
    AgentNotAvailable,
    entry,
    locate_binary,
    missing_binary_help,
)

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent

ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]


@dataclass(frozen=True)
class AgentCapabilities:
    """What an agent can do that the bridge acts on (spec 06 AgentCapabilities, trimmed to what something reads).

    Every flag here is read: ``persistent_process`` by the live session (start the agent warm, send later prompts
    to the same process), the rest by ``initialize`` (the ACP prompt and MCP capabilities offered to the editor) and
    by the prompt conversion (content an agent cannot take is refused). What the bridge learns in-protocol instead
    (resume, interrupt, approvals) is each adapter's behaviour, not a flag.
    """

    persistent_process: bool = False  # one process serves many turns (continue_ sends the next prompt)
    supports_images: bool = False
    supports_audio: bool = False
    supports_embedded_context: bool = True
    supports_mcp_http: bool = False
    supports_mcp_sse: bool = False
    stops_subagents: bool = False  # stop_subagent reaches one subagent (a child session's ``capabilities.cancel``)


@dataclass(frozen=True)
class ModeInfo:
    """A permission/approval mode the agent supports, offered to the editor as an ACP session mode."""

    id: str
    name: str
    description: str = ""
    read_only: bool = False  # the bridge refuses edits and commands in this mode, without asking the editor


@dataclass(frozen=True)
class DiffSpec:
    """One file edit shown to the user: ``old_text`` None means a new file."""

    path: str
    new_text: str
    old_text: str | None = None


@dataclass(frozen=True)
class ToolSpec:
    """How one native tool looks in the editor: truthful kind, a human title, where it points, how it edits."""

    kind: ToolKind = "other"
    title: Callable[[dict[str, Any]], str] | str | None = None
    path_args: tuple[str, ...] = ()
    line_arg: str | None = None
    command_arg: str | None = None
    diff: Callable[[dict[str, Any]], list[DiffSpec]] | None = None
    paths: Callable[[dict[str, Any]], list[str]] | None = None  # files named deeper than a top-level arg
    is_plan: bool = False  # a todo tool whose input becomes an ACP plan

    def render_title(self, name: str, tool_input: Any) -> str:
        args = tool_input if isinstance(tool_input, dict) else {}
        if callable(self.title):
            try:
                return self.title(args) or name
            except Exception:  # a malformed input must not lose the tool call
                return name
        if isinstance(self.title, str):
            try:
                return self.title.format_map(_Missing(args))
            except Exception:
                return self.title
        return name


class _Missing(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return "…"


@dataclass(frozen=True)
class ToolTable:
    """Tool name → :class:`ToolSpec`, with a fallback for tools this table has never seen."""

    tools: dict[str, ToolSpec] = field(default_factory=dict)
    default: ToolSpec = ToolSpec()

    def lookup(self, name: str) -> ToolSpec:
        return self.tools.get(name) or self.tools.get(name.lower()) or self.default


class PerRun:
    """Base of an adapter's typed per-run state: one dataclass per adapter, reached with ``TheState.of(ctx)``.

    Why it exists: one adapter instance serves every run of its agent, so whatever a run must remember between
    lines lives on that run's :class:`ParseContext`. Each adapter keeps it as fields of its own dataclass, stored in
    ``ctx.state`` under the class's ``KEY`` (never loose string keys), so what a run remembers is declared,
    typed and greppable in one place.

    A subclass is a ``@dataclass`` that sets ``KEY``. When every field has a default, :meth:`of` creates the state
    on first use; a state that cannot exist before the run starts (the ACP family's peer and options) overrides
    :meth:`fresh` to refuse, and :meth:`keep` is called with the built object in ``start``. A subclass of a state
    inherits its ``KEY``, so the family's ``of`` also finds an agent's extended state.
    """

    KEY: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not getattr(cls, "KEY", ""):
            raise TypeError(f"{cls.__name__} must set KEY, the ctx.state key it lives under")

    @classmethod
    def of(cls, ctx: ParseContext) -> Self:
        """This run's state, created on first use."""
        found = cls.find(ctx)
        return found if found is not None else cls.fresh().keep(ctx)

    @classmethod
    def find(cls, ctx: ParseContext) -> Self | None:
        """This run's state if it exists yet (None before it is created)."""
        found = ctx.state.get(cls.KEY)
        if found is None or isinstance(found, cls):
            return found
        raise TypeError(f"ctx.state[{cls.KEY!r}] holds a {type(found).__name__}, not a {cls.__name__}")

    @classmethod
    def fresh(cls) -> Self:
        """A new state for a run that has none yet."""
        return cls()

    def keep(self, ctx: ParseContext) -> Self:
        """Make this the run's state (replacing any earlier one) and return it."""
        ctx.state[self.KEY] = self
        return self


class AgentAdapter:
    """Base class for every agent module. Subclasses set ``name`` and the class attributes of the run, and override
    the hooks they need. What is known before any run (binary, package, login, keys) is the agent's row in
    ``registry.py``; the properties below read it, so no adapter repeats it."""

    name: str = ""
    capabilities: AgentCapabilities = AgentCapabilities()
    tool_table: ToolTable = ToolTable()
    modes: tuple[ModeInfo, ...] = ()
    default_mode: str | None = None
    models: tuple[str, ...] = ()
    # Modes the user may continue in when the agent asks to leave a read-only (plan) mode, most permissive first.
    plan_exit_modes: tuple[str, ...] = ()
    # The agent copies a native session itself when a run asks for it (``RunOptions.fork_session``: a new native
    # session that starts as a copy of ``session_id``): ``session/fork`` then uses it, else hands the turns over.
    native_fork: bool = False
    # The launcher may start this agent before the bridge has loaded (acp_mux.launcher.early_agent): its spawn spec is
    # a function of the run's options alone (no fresh private file in it) and nothing is prepared before it
    # (``prepare`` is this base's). The run takes that agent only if its own spec is the same (acp_mux.core.process.prestart).
    starts_early: bool = False

    # ── discovery: the agent's row ─────────────────────────────────────────────────────────────────────────────

    @property
    def entry(self) -> AgentEntry:
        """This agent's row; an adapter without one (a test double) gets a bare row named after it."""
        return ENTRIES.get(self.name) or AgentEntry(self.name, self.name, self.name, "", "")

    @property
    def display_name(self) -> str:
        return self.entry.display_name

    @property
    def binary(self) -> str:
        return self.entry.binary

    @property
    def package(self) -> str:
        return self.entry.package

    @property
    def install_hint(self) -> str:
        return self.entry.install_hint

    @property
    def login_args(self) -> tuple[str, ...]:
        return self.entry.login_args

    @property
    def logout_args(self) -> tuple[str, ...]:
        return self.entry.logout_args

    @property
    def auth_hint(self) -> str:
        return self.entry.auth_hint

    @property
    def auth_env(self) -> tuple[str, ...]:
        return self.entry.auth_env

    @property
    def login_command(self) -> str | None:
        """The one command that signs this agent in from a terminal (what ACP terminal auth runs)."""
        return self.entry.login_command

    def bin_env_var(self) -> str:
        return self.entry.bin_env_var

    def resolve_binary(self, override: str | None = None, env: dict[str, str] | None = None) -> str:
        """The command to run: explicit override, then ``ACP_MUX_<NAME>_BIN``, then the default on PATH."""
        source: Mapping[str, str] = os.environ if env is None else env
        chosen = override or source.get(self.bin_env_var()) or self.binary
        return shutil.which(chosen, path=source.get("PATH")) or chosen

    def extra_directory_args(self, dirs: list[str]) -> list[str] | None:
        """The command-line arguments that give the agent these extra workspace roots besides its cwd (ACP's
        ``additionalDirectories``); None: this agent cannot take any, and a session asking for some is refused."""
        return None

    def startup_problem(self, override: str | None = None, env: dict[str, str] | None = None) -> str | None:
        """Why this agent cannot start here, as a message for the editor (None: its executable is there)."""
        path, problem = locate_binary(self.entry, override, env)
        return None if path else missing_binary_help(self.entry, problem or "not found")

    # ── the run ────────────────────────────────────────────────────────────────────────────────────────────────
    async def prepare(self, options: RunOptions) -> None:
        """Awaited before ``build_spawn``: have ready what the agent needs at start that the bridge runs beside it
        (openclaw's gateway). The run waits (prompts queue meanwhile); a ``SpawnError`` fails it with its message."""

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        raise NotImplementedError

    def start(self, options: RunOptions, ctx: ParseContext) -> None:
        """Called once the process is spawned: queue the handshake on ``ctx.outbox``, and the first prompt
        (``options.prompt``) when the agent takes prompts at once. An agent that takes them only after a handshake
        of its own leaves it: the run holds it with every other waiting prompt until :meth:`accepts_prompts`."""

    def accepts_prompts(self, ctx: ParseContext) -> bool:
        """The readiness hook: whether the agent takes a prompt now (its own session exists). The run, which owns
        every prompt not yet given to the agent (``acp_mux.core.run.waiting_prompts``), asks before each write to the
        agent and calls :meth:`send_prompt` only once this is true, so no adapter keeps a list of its own. Default:
        at once (the agent reads its first prompt from the command line or stdin)."""
        return True

    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        raise NotImplementedError

    def parse_from(self, lines: Sequence[str], start: int, ctx: ParseContext) -> tuple[Iterable[BaseEvent], int]:
        """The events of ``lines[start]`` and of as many lines after it as the adapter reads as one (a run of
        text chunks of one message), with how many lines that was (at least 1). The run parses each burst of
        output with this; its events are emitted before the next call (a line after the ones taken sees what
        they did). Default: one line, :meth:`parse_line`."""
        return self.parse_line(lines[start], ctx), 1

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        """Queue the next user turn for a persistent process."""
        raise NotImplementedError(f"{self.name} starts a new process for every turn")

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        """Queue the native answer to an approval request this adapter emitted."""
        raise NotImplementedError(f"{self.name} has no approval protocol")

    def interrupt(self, ctx: ParseContext) -> bool:
        """Interrupt in-protocol (queue a message) and return True, or return False to have SIGINT sent."""
        return False

    def set_mode(self, mode: str, ctx: ParseContext) -> bool:
        """Change the permission mode of a live process; False when it needs a restart to apply."""
        return False

    def stop_subagent(self, subagent_id: str, ctx: ParseContext) -> bool:
        """Stop one running subagent (the Task call ``subagent_id``) and leave the parent's turn going; False when
        the agent has no such stop (then only a cancel of the whole turn stops it)."""
        return False

    def steer(self, prompt: Prompt, ctx: ParseContext) -> bool:
        """Put ``prompt`` into the turn the agent is running now, where the agent reads it at its next step (the
        person steering it, ``_session/steering``); False when it cannot take one now (no turn of its own is under
        way yet). An adapter that overrides this steers (:attr:`steers`); the default, for agents without steering,
        takes none."""
        return False

    @property
    def steers(self) -> bool:
        """Whether this agent takes a message during its turn (its adapter overrides :meth:`steer`): what
        ``initialize`` advertises (``_meta.steering``) and what a steer during a turn needs."""
        return type(self).steer is not AgentAdapter.steer

    def set_model(self, model: str, ctx: ParseContext) -> bool:
        """Change the model of a live process; False when it needs a restart to apply (the default)."""
        return False

    def set_config_option(self, option_id: str, value: Any, ctx: ParseContext) -> bool:
        """Pass a setting the agent itself offered through to it; False when the agent has no such thing."""
        return False

    def respond_client_request(
        self, request_id: str, result: Any, error: dict[str, Any] | None, ctx: ParseContext
    ) -> None:
        """Answer a ``client_request`` this adapter emitted (agents that ask the client for files or terminals)."""
        raise NotImplementedError(f"{self.name} makes no client requests")

    def finish(self, status: ExitStatus, ctx: ParseContext) -> Iterable[BaseEvent]:
        """Events owed at process exit: close what is open; a silent non-zero exit becomes a crash."""
        return ctx.finish(status)

    def stderr_events(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        """Recognise errors an agent only reports on stderr (auth, rate limits). Default: nothing."""
        return ()

    def side_logs(self, spec: SpawnSpec, agent_pid: int) -> list[SideLog]:
        """Log files the agent writes beside its output that the run follows while it lives (where omp and
        gemini report their retries of a failing model). Default: none."""
        return []


def try_json(line: str) -> dict[str, Any] | None:
    """Parse a native line as a JSON object; anything else (banners, blank lines) is None."""
    line = line.strip()
    if not line or line[0] != "{":
        return None
    try:
        value = safe_json.loads(line)  # lone surrogates an agent echoed become U+FFFD here, once
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class UnavailableAdapter(AgentAdapter):
    """Stands in for an agent that cannot run at all (unknown name, not supported yet, no such transport).

    Editors hide a server's stderr and show only "server exited", so the bridge still serves: ``initialize`` is
    answered, and session/new (or load/resume) fails with ``reason``, which the editor does show.
    """

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def startup_problem(self, override: str | None = None, env: dict[str, str] | None = None) -> str | None:
        return self.reason


@cache
def get_adapter(name: str, transport: str | None = None) -> AgentAdapter:
    """The adapter for ``name``; ``transport`` picks an alternative one (e.g. codex ``exec``, where the installed
    codex has no ``app-server``)."""
    row = entry(name)  # UnknownAgent for a name the registry does not know
    if not row.supported:
        supported = ", ".join(n for n in AGENT_NAMES if ENTRIES[n].supported)
        raise AgentNotAvailable(f"acp-mux does not support {name} yet (supported now: {supported})")
    chosen = transport or row.default_transport
    target = row.transports.get(chosen or "")
    if target is None:
        raise AgentNotAvailable(f"{name} has no transport {transport!r} (choose: {', '.join(row.transports)})")
    module_name, _, class_name = target.partition(":")
    adapter_class = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(adapter_class, type) and issubclass(adapter_class, AgentAdapter)):
        raise TypeError(f"registry row {name}/{chosen}: {target} is not an AgentAdapter")
    return adapter_class()

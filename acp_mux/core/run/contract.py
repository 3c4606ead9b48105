"""What the run runtime needs from an adapter, stated in the core so the core never imports ``adapters``.

``acp_mux.adapters.base.AgentAdapter`` is the base class every agent module extends; it satisfies :class:`Adapter`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from acp_mux.core.events.union import BaseEvent
    from acp_mux.core.run.log_follow import SideLog
    from acp_mux.core.run.parse_context import ParseContext
    from acp_mux.core.process.spawn import ExitStatus, SpawnSpec
    from acp_mux.core.run.prompt import Prompt


@dataclass
class RunOptions:
    """Everything one run needs; the server fills it from the ACP session and the command line."""

    agent: str
    cwd: str
    prompt: "Prompt | None" = None
    model: str | None = None
    mode: str | None = None
    session_id: str | None = None  # the agent's native session to resume
    fork_session: bool = False  # resume ``session_id`` as a new copy (the agent's own fork: AgentAdapter.native_fork)
    # The id of the native session this run creates (a new one, or a fork's copy), where the agent takes it from us
    # (claude's ``--session-id``): set by the adapter's ``prepare``; the session is then known before the agent's
    # first turn reports it.
    new_session_id: str | None = None
    binary: str | None = None
    env: dict[str, str] | None = None
    extra_args: list[str] = field(default_factory=list)
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    client_capabilities: dict[str, Any] = field(default_factory=dict)  # what the editor offered (ACP initialize)
    # The agent's own settings (config options besides mode and model) as the editor last saw or chose them, id →
    # value: what a process started later (after a restart, a cancel that had to stop it) is started with.
    agent_options: dict[str, Any] = field(default_factory=dict)
    timeout_s: float | None = None
    inactivity_timeout_s: float | None = None
    grace_period_s: float = 5.0
    event_buffer_size: int = 1000
    collect_text: bool = True  # RunResult.text; False: "" (for an owner that reads the text from the events)
    debug: bool = False
    run_id: str | None = None


@dataclass(frozen=True)
class ApprovalDecision:
    """The user's answer to an approval request, as the adapter must relay it."""

    approve: bool
    reason: str | None = None
    always: bool = False
    updated_input: Any = None
    # The mode the agent goes on in, for a yes to leaving plan mode. An adapter whose agent takes the mode inside
    # the answer (Claude: ``updatedPermissions`` setMode) hands it over there, so the agent never acts a moment in
    # the old mode; the live session also sets it the agent's usual way.
    mode: str | None = None


class Adapter(Protocol):
    name: str

    async def prepare(self, options: RunOptions) -> None: ...
    def build_spawn(self, options: RunOptions) -> "SpawnSpec": ...
    def start(self, options: RunOptions, ctx: "ParseContext") -> None: ...
    def parse_line(self, line: str, ctx: "ParseContext") -> "Iterable[BaseEvent]": ...
    def parse_from(
        self, lines: "Sequence[str]", start: int, ctx: "ParseContext"
    ) -> "tuple[Iterable[BaseEvent], int]": ...
    def stderr_events(self, line: str, ctx: "ParseContext") -> "Iterable[BaseEvent]": ...
    def side_logs(self, spec: "SpawnSpec", agent_pid: int) -> "list[SideLog]": ...
    def accepts_prompts(self, ctx: "ParseContext") -> bool: ...
    def send_prompt(self, prompt: "Prompt", ctx: "ParseContext") -> None: ...
    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: "ParseContext") -> None: ...
    def interrupt(self, ctx: "ParseContext") -> bool: ...
    def set_mode(self, mode: str, ctx: "ParseContext") -> bool: ...
    def set_model(self, model: str, ctx: "ParseContext") -> bool: ...
    def stop_subagent(self, subagent_id: str, ctx: "ParseContext") -> bool: ...
    def steer(self, prompt: "Prompt", ctx: "ParseContext") -> bool: ...
    def set_config_option(self, option_id: str, value: Any, ctx: "ParseContext") -> bool: ...
    def respond_client_request(
        self, request_id: str, result: Any, error: "dict[str, Any] | None", ctx: "ParseContext"
    ) -> None: ...
    def finish(self, status: "ExitStatus", ctx: "ParseContext") -> "Iterable[BaseEvent]": ...

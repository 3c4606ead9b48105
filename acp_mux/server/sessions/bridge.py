"""The ACP agent the editor talks to: thin methods that validate, then delegate to live sessions.

``initialize`` is answered from the adapter's declared capabilities without spawning anything. Sessions are kept
in the store so list/load/resume work after a restart. The agent starts in the background right after a session is
opened (the answer never waits for it); modes, models and settings it reports later reach the editor as updates.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
from typing import TYPE_CHECKING, Any, Callable

from acp_mux.version import __version__
from acp_mux.protocol import unstable, v1, wire
from acp_mux.server.wire import params as p
from acp_mux.server.wire.editor_edge import answer, asking, parse_request, typed
from acp_mux.server.wire.rpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    RESOURCE_NOT_FOUND,
    AfterResponse,
    Connection,
    RpcError,
)
from acp_mux.core.ids import new_ulid
from acp_mux.launcher.early_init import CHECKUP_METHOD, caps_of, initialize_result, takes_extra_directories
from acp_mux.server.wire.self_command import own_command
from acp_mux.server.sessions.sign_out import can_sign_out, sign_out
from acp_mux.server.sessions.agent_choice import AGENT_OPTION, AgentChoices
from acp_mux.server.branches.fork import META_KEY
from acp_mux.server.branches.failover import FAILOVER_OPTION
from acp_mux.server.records.store import SessionRecord, SessionStore
from acp_mux.server.sessions import steering
from acp_mux.translation.child_sessions import split_child_id

if TYPE_CHECKING:
    from acp_mux.protocol.v1_dicts import SessionConfigOption, SessionUpdate
    from acp_mux.server.sessions.live_session import BridgeConfig, LiveSession
    from acp_mux.launcher.early_session import EarlySession
    from acp_mux.adapters.base import AgentAdapter

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
PAGE_SIZE = 50


class AcpServer:
    """``adapter`` serves every session; with ``choices`` (one editor entry for every agent) it is only the default,
    and each session's ``agent`` option picks the agent that answers its next prompt."""

    # Every method served (ACP method → the handler's name here), each handler taking its typed v1 params
    # (editor_edge.typed reads them): the one table initialize's advertisement is held to (test_editor_wire).
    HANDLERS: dict[str, str] = {
        "initialize": "initialize",
        "authenticate": "authenticate",
        "logout": "logout",
        "session/new": "new_session",
        "session/load": "load_session",
        "session/resume": "resume_session",
        "session/fork": "fork_session",  # unstable (acp_mux.protocol.unstable)
        "session/list": "list_sessions",
        "session/close": "close_session",
        "session/delete": "delete_session",
        "session/prompt": "prompt",
        "session/set_mode": "set_mode",
        "session/set_config_option": "set_config_option",
    }
    NOTIFICATIONS: dict[str, str] = {"session/cancel": "cancel"}

    def __init__(
        self,
        conn: Connection,
        adapter: AgentAdapter,
        config: BridgeConfig,
        store: SessionStore,
        choices: AgentChoices | None = None,
        usable_agents: Callable[[], AgentChoices] | None = None,
    ) -> None:
        self.conn = conn
        self.adapter = adapter
        self.choices = choices
        # a single-agent entry: the agents a session may carry on with at a usage limit (asked for when needed)
        self.usable_agents = usable_agents
        self.config = config
        self.store = store
        self.sessions: dict[str, LiveSession] = {}
        self.client_capabilities: dict[str, Any] = {}
        self._retention_done = False
        for method, name in {**self.HANDLERS, **self.NOTIFICATIONS}.items():
            handler = typed(method, getattr(self, name))
            if method in self.HANDLERS:
                conn.method(method, handler)
            else:
                conn.notification(method, handler)
        conn.on_cancel_request("session/prompt", self._cancel_prompt)  # the turn ends as session/cancel ends it
        conn.method(steering.METHOD, self.steer)  # an extension method (no schema model): its params read there

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        """``method`` with these params as the editor's message would run it, through the typed edge: for a caller
        in this process (a replay of recorded runs, ``acp-mux sessions``, tests) that has no JSON-RPC line to send."""
        name = self.HANDLERS.get(method) or self.NOTIFICATIONS[method]
        return await getattr(self, name)(parse_request(method, params))

    # ── initialize and auth ────────────────────────────────────────────────────────────────────────────────────
    async def initialize(self, request: v1.InitializeRequest) -> dict[str, Any]:
        requested = request.protocol_version
        self._initialized(request)
        caps = self.adapter.capabilities
        extra_dirs = takes_extra_directories(self.adapter)
        steers = self.adapter.steers
        if self.choices is not None:  # any agent may answer: offer what some can take, refuse per agent at prompt time
            from acp_mux.adapters.base import get_adapter

            adapters = [get_adapter(n) for n in self.choices.names]
            every = [a.capabilities for a in adapters] or [caps]
            extra_dirs = any(takes_extra_directories(a) for a in adapters) or extra_dirs
            steers = any(a.steers for a in adapters) or steers
            caps = type(caps)(
                supports_images=any(c.supports_images for c in every),
                supports_audio=any(c.supports_audio for c in every),
                supports_embedded_context=any(c.supports_embedded_context for c in every),
                supports_mcp_http=all(c.supports_mcp_http for c in every),
                supports_mcp_sse=all(c.supports_mcp_sse for c in every),
            )
        logins = [
            (a.name, a.display_name, a.auth_hint, self.config.binary if a.name == self.config.agent else None)
            for a in self._login_adapters()
            if a.login_args
        ]
        title = "acp-mux" if self.choices is not None else f"acp-mux: {self.adapter.display_name}"
        one = (
            None if self.choices is not None else (self.adapter.name, self.adapter.display_name, self.adapter.auth_hint)
        )
        result = initialize_result(
            requested,
            self.client_capabilities,
            caps_of(caps, extra_dirs, can_sign_out(self.adapter if self.choices is None else None), steers),
            logins,
            title,
            own_command(),
            __version__,
            one,
        )
        return answer(v1.InitializeResponse, result)

    def initialized(self, params: dict[str, Any]) -> None:
        """What the editor's ``initialize`` tells the bridge, when the launcher answered it early
        (:mod:`acp_mux.launcher.early_init`), before this server existed. The launcher checked the parts the bridge
        reads; params the model still refuses leave the editor's capabilities unknown (logged), never the bridge down."""
        try:
            request = parse_request("initialize", params)
        except RpcError as exc:
            log.warning("the early initialize params do not fit ACP (%s); client capabilities unknown", exc.message)
            request = v1.InitializeRequest.model_validate({"protocolVersion": 1})
        assert isinstance(request, v1.InitializeRequest)
        self._initialized(request)

    def _initialized(self, request: v1.InitializeRequest) -> None:
        """Keep the editor's capabilities as it sent them (a plain dict, the fields it set), for the sessions."""
        caps = request.client_capabilities if "client_capabilities" in request.model_fields_set else None
        self.client_capabilities = wire.dump(caps) if caps is not None else {}
        meta = self.client_capabilities.get("_meta") or {}
        self.config.terminal_output_meta = isinstance(meta, dict) and bool(meta.get("terminal_output"))

    def _login_adapters(self) -> list[AgentAdapter]:
        if self.choices is None:
            return [self.adapter]
        return [self._adapter_of(name) for name in self.choices.names]

    async def authenticate(self, request: v1.AuthenticateRequest) -> dict[str, Any]:
        method = request.method_id
        logins = {f"{a.name}-login" for a in self._login_adapters() if a.login_args}
        if method not in (logins or {CHECKUP_METHOD}):  # the methods initialize offered
            raise RpcError(INVALID_PARAMS, f"unknown auth method {method!r}")
        return {}  # the login itself runs in a terminal (`acp-mux --agent X --login`); nothing to do in-band

    async def logout(self, request: v1.LogoutRequest) -> dict[str, Any]:
        """The agent's own sign-out where it has one (acp-mux keeps no sign-in of its own): :mod:`sign_out`."""
        await sign_out(self.adapter if self.choices is None else None, self.config.binary, self.config.env)
        return answer(v1.LogoutResponse, {})

    # ── sessions ───────────────────────────────────────────────────────────────────────────────────────────────
    async def new_session(self, request: v1.NewSessionRequest) -> AfterResponse:
        cwd = _require_cwd(request.cwd)
        servers = _mcp_servers(request.mcp_servers)
        self._require_startable()
        agent = self.adapter.name
        if self.choices is not None:
            agent = self.choices.default() or agent
        record = SessionRecord(
            session_id=new_ulid(),
            agent=agent,
            cwd=cwd,
            mode=self.config.mode if agent == self.config.agent else None,
            model=self.config.model if agent == self.config.agent else None,
            additional_directories=self._extra_roots(agent, request.additional_directories),
        )
        self.store.save(record)
        session = self._live(record, servers)

        async def then() -> None:
            await self._announce(session)
            await self._retain_once()

        return AfterResponse(answer(v1.NewSessionResponse, self._session_state(session)), then)

    async def adopt(self, early: EarlySession) -> None:
        """Take over the ``session/new`` the launcher answered before this server existed
        (:mod:`acp_mux.launcher.early_session`): save its record and open it as :meth:`new_session` would have, and
        correct the editor's view should the launcher's answer differ from this server's. A problem found only now
        (the store cannot be written, the agent cannot start) is logged; the first prompt reports it as a typed error."""
        agent = self.adapter.name
        record = SessionRecord(
            session_id=early.session_id, agent=agent, cwd=early.cwd, mode=self.config.mode, model=self.config.model
        )
        try:
            self.store.save(record)
        except Exception as exc:
            log.warning("session %s could not be saved: %s", early.session_id, exc)
        problem = self.adapter.startup_problem(self.config.binary, self.config.env)
        if problem:
            log.warning("%s", problem)
        session = self._live(record, p.mcp_servers(early.params))
        state = self._session_state(session)
        if state != early.answer:
            log.warning("the launcher's session/new answer differed from the server's; corrected by updates")
            self._announce_mode(session.id)
        await self._announce(session)
        await self._retain_once()

    def _reopen(self, request: v1.LoadSessionRequest | v1.ResumeSessionRequest) -> LiveSession:
        """The stored session ``session/load`` or ``session/resume`` names, live in the folder and with the extra
        roots and MCP servers this request gives (also when it is open already)."""
        self._require_startable()
        record = self._stored(request.session_id)
        record.cwd = _require_cwd(request.cwd)
        roots = self._extra_roots(record.agent, request.additional_directories)
        session = self._live(record, _mcp_servers(request.mcp_servers))
        session.record.additional_directories = record.additional_directories = roots
        return session

    async def load_session(self, request: v1.LoadSessionRequest) -> AfterResponse:
        session = self._reopen(request)
        for session_id, update in session.routed_history():  # ACP: replay everything (from the log), then answer
            self.conn.notify("session/update", {"sessionId": session_id, "update": update})
        return AfterResponse(
            answer(v1.LoadSessionResponse, self._session_state(session)), lambda: self._reopened(session)
        )

    async def resume_session(self, request: v1.ResumeSessionRequest) -> AfterResponse:
        session = self._reopen(request)
        state = answer(v1.ResumeSessionResponse, self._session_state(session))
        return AfterResponse(state, lambda: self._reopened(session))

    async def fork_session(self, request: unstable.ForkSessionRequest) -> AfterResponse:
        """A new session that starts as a copy of the original's completed turns, in the same agent or the one
        ``_meta["acp-mux"]["agent"]`` names (:mod:`acp_mux.server.branches.fork`). Everything is checked before anything
        is written: a refused fork creates nothing, and the original's files are only ever read."""
        from acp_mux.server.branches.fork import copy_conversation, fork_agent
        from acp_mux.server.sessions.handoff import turns_from_record
        from acp_mux.server.records.replay import folded_conversation

        self._require_startable()
        source = self._stored(request.session_id)
        cwd = _require_cwd(request.cwd)
        usable = self.choices.names if self.choices is not None else (self.adapter.name,)
        agent = fork_agent(request.field_meta, source.agent, usable, one_agent=self.choices is None)
        adapter = self._adapter_of(agent)
        problem = adapter.startup_problem(self.config.binary if agent == self.config.agent else None, self.config.env)
        if problem:
            raise RpcError(RESOURCE_NOT_FOUND, problem, {"agent": agent})
        servers = _mcp_servers(request.mcp_servers)
        roots = self._extra_roots(agent, request.additional_directories)
        live = self.sessions.get(source.session_id)
        if live is not None:  # its record is the fresher one (its log holds every completed turn: flushed at turn end)
            source = live.record
        native = self._native_to_fork(source, agent, adapter, live)
        record = SessionRecord(
            session_id=new_ulid(),
            agent=agent,
            cwd=cwd,
            mode=source.mode if agent == source.agent else None,
            model=source.model if agent == source.agent else None,
            chosen_options=list(source.chosen_options) if agent == source.agent else [],
            title=f"{source.title} (fork)" if source.title else None,
            additional_directories=roots,
            forked_from=source.session_id,
            native_fork_from=native,
            failover=source.failover,  # the person's choice for this conversation goes with it
            entry=source.entry,  # a fork of a session that carried on from a single-agent entry stays in it
        )
        how = "native" if native else "handover"
        try:
            copy_conversation(
                self.store,
                source.session_id,
                record.session_id,
                {"from": source.session_id, "agent": agent, "how": how},
            )
        except OSError as exc:
            self.store.delete(record.session_id)
            raise RpcError(INTERNAL_ERROR, f"session/fork: the fork could not be written: {exc}") from exc
        session = self._live(record, servers)
        count = len(turns_from_record(folded_conversation(session.history()), []))
        record.turn_agents = (source.turn_agents[:count] + [source.agent] * count)[:count]
        if native and count:  # the agent's own copy has what its native session saw; the rest is handed over
            record.seen_turns = {agent: min(source.seen_turns.get(agent, count), count)}
        if not self.store.save(record):
            self.sessions.pop(record.session_id, None)
            self.store.delete(record.session_id)
            raise RpcError(INTERNAL_ERROR, f"session/fork: the fork could not be saved: {self.store.write_error}")
        log.info(
            "session %s forked from %s into %s (%s, %d turns)", record.session_id, source.session_id, agent, how, count
        )
        state = answer(unstable.ForkSessionResponse, self._session_state(session))
        return AfterResponse(state, lambda: self._announce(session))

    def _native_to_fork(
        self, source: SessionRecord, agent: str, adapter: AgentAdapter, live: LiveSession | None
    ) -> str | None:
        """The original's native session the agent forks itself, or None for the handover: another agent, an agent
        without a fork of its own, no native session yet, or a turn still running in it (the agent's copy would
        hold that turn's beginning, which is not the fork's)."""
        if not adapter.native_fork:
            return None
        native = source.native_session_id if source.agent == agent else source.native_sessions.get(agent)
        if native is None or (live is not None and live.turn_running):
            return None
        return native

    async def _reopened(self, session: LiveSession) -> None:
        """After load/resume: announcements, then any question the running turn still waits on, asked again."""
        await self._announce(session)
        session.reask_pending()

    async def _retain_once(self) -> None:
        """Automatic retention, once per bridge, after the first session/new answer and off the event loop
        (``ACP_MUX_SESSION_MAX_AGE_DAYS`` / ``ACP_MUX_SESSION_MAX_COUNT``); sessions open here are kept. The
        copies of comparisons whose acp-mux is gone are removed then too."""
        if self._retention_done:
            return
        self._retention_done = True
        from acp_mux.server.branches import compare_copies
        from acp_mux.server.records.store import retention_from_env

        try:  # the copies of a comparison cut short (a crash, a SIGKILL) go at the next start
            await asyncio.to_thread(compare_copies.sweep_orphans, self.store.root.parent)
        except Exception as exc:
            log.warning("removing the copies of an ended comparison failed: %s", exc)

        try:
            max_age, max_count = retention_from_env()
        except ValueError as exc:  # a bad setting prunes nothing (session/new already refused it)
            log.warning("session retention skipped: %s", exc)
            return
        if max_age is None and max_count is None:
            return
        protect = frozenset(self.sessions)
        try:
            await asyncio.to_thread(self.store.prune, older_than_days=max_age, keep_sessions=max_count, protect=protect)
        except Exception as exc:  # retention must never disturb a session
            log.warning("session retention failed: %s", exc)

    async def list_sessions(self, request: v1.ListSessionsRequest) -> dict[str, Any]:
        cwd = request.cwd
        if cwd is not None and ("\0" in cwd or not os.path.isabs(cwd)):  # the schema: an absolute path
            raise p.invalid("session/list: cwd must be an absolute path")
        records = self.store.list(cwd=cwd)
        if self.choices is None:  # this agent's sessions, and those that carried on from it at a limit
            records = [r for r in records if self._of_this_entry(r)]
        cursor = request.cursor
        start = int(cursor) if cursor and cursor.isascii() and cursor.isdigit() and len(cursor) < 10 else 0
        if cursor and not start and cursor != "0":
            raise RpcError(INVALID_PARAMS, f"invalid cursor {cursor[:40]!r}")
        page = records[start : start + PAGE_SIZE]
        result: dict[str, Any] = {
            "sessions": [
                {
                    "sessionId": r.session_id,
                    "cwd": r.cwd,
                    "updatedAt": r.updated_at,
                    **({"title": r.title} if r.title else {}),
                    **({"additionalDirectories": r.additional_directories} if r.additional_directories else {}),
                    **({"_meta": {META_KEY: {"forkedFrom": r.forked_from}}} if r.forked_from else {}),
                }
                for r in page
            ]
        }
        if start + PAGE_SIZE < len(records):
            result["nextCursor"] = str(start + PAGE_SIZE)
        return answer(v1.ListSessionsResponse, result)

    async def close_session(self, request: v1.CloseSessionRequest | v1.DeleteSessionRequest) -> dict[str, Any]:
        session = self.sessions.pop(request.session_id, None)
        if session is not None:
            await session.close()
        return {}

    async def delete_session(self, request: v1.DeleteSessionRequest) -> dict[str, Any]:
        await self.close_session(request)
        self.store.delete(request.session_id)
        return {}

    # ── turns ──────────────────────────────────────────────────────────────────────────────────────────────────
    async def prompt(self, request: v1.PromptRequest) -> dict[str, Any]:
        session = self._session(request.session_id)
        result = await session.prompt([wire.dump(block) for block in request.prompt])
        return answer(v1.PromptResponse, result)

    async def steer(self, params: dict[str, Any]) -> dict[str, str]:
        """``_session/steering``: a message into the running turn (:mod:`acp_mux.server.sessions.steering`); its content is
        checked as a prompt's is."""
        request = steering.parse(params)
        session = self._session(request.session_id)
        typed_prompt = parse_request("session/prompt", {"sessionId": request.session_id, "prompt": request.prompt})
        assert isinstance(typed_prompt, v1.PromptRequest)
        blocks = [wire.dump(block) for block in typed_prompt.prompt]
        return await session.steer(blocks, prompt_required=request.prompt_required)

    async def cancel(self, request: v1.CancelNotification) -> None:
        session = self.sessions.get(request.session_id)
        if session is not None:
            await session.cancel()
            return
        child = split_child_id(request.session_id)  # a subagent's child session: that subagent alone
        parent = self.sessions.get(child[0]) if child is not None else None
        if parent is not None and child is not None:
            await parent.cancel_child(child[1])

    async def set_mode(self, request: v1.SetSessionModeRequest) -> dict[str, Any]:
        session = self._session(request.session_id)
        await session.switches_done()  # a mode asked for after a switch is one of the agent it chose
        await session.set_mode(self._valid_mode(session, request.mode_id))
        self._announce_mode(session.id)
        return {}

    def _announce_mode(self, session_id: str, *, with_config_options: bool = True) -> None:
        """Tell the editor the mode changed (by its request, or the agent's, e.g. leaving plan mode).

        ``with_config_options=False`` when the answer itself carries the options (session/set_config_option).
        """
        session = self.sessions.get(session_id)
        if session is None:
            return
        current = self._current_mode(session)
        if current is not None:  # an agent that has not reported its modes yet: its own update will follow
            self._tell(session_id, {"sessionUpdate": "current_mode_update", "currentModeId": current})
        if with_config_options:
            self._tell(
                session_id, {"sessionUpdate": "config_option_update", "configOptions": self._config_options(session)}
            )

    async def set_config_option(self, request: v1.SetSessionConfigOptionRequest) -> dict[str, Any]:
        session = self._session(request.session_id)
        config_id, value = request.config_id, request.value
        if config_id == AGENT_OPTION and session.choices is not None:  # (a single-agent session carried on: too)
            await session.switch_agent(str(value))
            return answer(v1.SetSessionConfigOptionResponse, {"configOptions": self._config_options(session)})
        await session.switches_done()  # any other setting sent after a switch is about the agent it chose
        if config_id == "mode":
            await session.set_mode(self._valid_mode(session, value))
            self._announce_mode(session.id, with_config_options=False)
        elif config_id == "model":
            if not isinstance(value, str) or not session.settings.has_model(value):
                choices = [m for m, _ in session.settings.models]
                raise RpcError(INVALID_PARAMS, f"unknown model {value!r}; choose one of {choices}")
            await session.set_model(value)
        elif config_id == FAILOVER_OPTION:
            session.set_failover(value)
        elif (option := session.settings.agent_option(config_id)) is not None:
            if not session.settings.offers(option, value):
                raise RpcError(INVALID_PARAMS, f"{value!r} is not a value of config option {config_id!r}")
            if not await session.set_agent_option(str(config_id), value):
                raise RpcError(INVALID_PARAMS, f"{self.adapter.display_name} is not running; try again in a moment")
        else:
            raise RpcError(INVALID_PARAMS, f"unknown config option {config_id!r}")
        return answer(v1.SetSessionConfigOptionResponse, {"configOptions": self._config_options(session)})

    async def _cancel_prompt(self, params: dict[str, Any]) -> None:
        """``$/cancel_request`` for a running session/prompt: its session cancels the turn, and the prompt is then
        answered with the stop reason ``cancelled``, as after ``session/cancel`` (its params were read at the edge)."""
        session_id = params.get("sessionId")
        session = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if session is not None:
            await session.cancel()

    # ── helpers ────────────────────────────────────────────────────────────────────────────────────────────────
    def _require_startable(self) -> None:
        """An agent that cannot start fails here, where the editor shows the message (install hint, the
        ``ACP_MUX_<NAME>_BIN`` override, ``acp-mux doctor``), not later as a crashed turn; so does a badly set
        ``ACP_MUX_*`` setting (:mod:`acp_mux.core.settings`). Neither is an internal error (-32603, which
        CodeCompanion never shows): the agent is "not found" (-32002, ACP's resource_not_found), the setting an
        invalid parameter (-32602), and the message says what to do."""
        from acp_mux.core.settings import settings_problem
        from acp_mux.server.branches.failover import setting_problem as failover_problem

        # a badly set ACP_MUX_* value: refused, never guessed at (ACP_MUX_FAILOVER's agent: one acp-mux runs)
        setting = settings_problem(os.environ) or failover_problem(os.environ)
        if setting:
            raise RpcError(INVALID_PARAMS, setting, {"agent": self.adapter.name})
        problem = self.adapter.startup_problem(self.config.binary, self.config.env)
        if problem:
            raise RpcError(RESOURCE_NOT_FOUND, problem, {"agent": self.adapter.name})

    def _live(self, record: SessionRecord, servers: list[dict[str, Any]]) -> LiveSession:
        existing = self.sessions.get(record.session_id)
        if existing is not None:
            return existing
        from acp_mux.server.sessions.live_session import (
            LiveSession,
        )  # deferred: sessions are needed only from the first new/load/resume

        choices = self.choices
        if choices is None and record.agent != self.adapter.name and self.usable_agents is not None:
            choices = self.usable_agents()  # a session of this entry that carried on with another agent at a limit
        session = LiveSession(
            record,
            self._adapter_of(record.agent),
            self.config,
            self.store,
            send_update=self._notify,
            request=asking(self.conn.request),
            notify=self.conn.notify,
            writable=self.conn.writable,
            mcp_servers=_secret_mcp_servers(servers),
            mode_changed=lambda mode: self._announce_mode(record.session_id),
            client_capabilities=self.client_capabilities,
            choices=choices,
            adapter_for=self._adapter_of,
            usable_agents=self.usable_agents if choices is None else None,
        )
        self.sessions[record.session_id] = session
        return session

    def _extra_roots(self, agent: str, dirs: list[str] | None) -> list[str]:
        """``additionalDirectories`` of new/load/resume, checked: each an absolute path of an existing directory,
        and an agent that can be given them (its ``extra_directory_args`` hook); omitted or empty means none. The
        list is the session's whole list from then on (the schema: load/resume replace it)."""
        roots = list(dirs or ())
        for index, root in enumerate(roots):
            if "\0" in root or not os.path.isabs(root):
                raise p.invalid(f"additionalDirectories[{index}] must be an absolute path")
            if not os.path.isdir(root):
                raise p.invalid(f"additionalDirectories[{index}] {root[:200]!r} is not a directory")
        adapter = self._adapter_of(agent)
        if roots and adapter.extra_directory_args(roots) is None:
            raise p.invalid(f"{adapter.display_name} cannot be given additional directories (additionalDirectories)")
        return roots

    def _adapter_of(self, name: str) -> AgentAdapter:
        if name == self.adapter.name:
            return self.adapter
        from acp_mux.adapters.base import get_adapter

        return get_adapter(name)

    def _of_this_entry(self, record: SessionRecord) -> bool:
        """A session of this single-agent entry: its agent's, or one that carried on from it at a limit (the entry
        it was opened in, or, in records written before ``entry`` was kept, a turn its agent answered)."""
        name = self.adapter.name
        return record.agent == name or record.entry == name or name in record.turn_agents

    def _stored(self, session_id: str) -> SessionRecord:
        record = self.store.get(session_id)
        servable = record is not None and (
            record.agent == self.adapter.name
            or (self.choices is not None and record.agent in self.choices.names)
            or (self.usable_agents is not None and self._of_this_entry(record))  # carried on at a limit
        )
        if record is None or not servable:
            raise RpcError(RESOURCE_NOT_FOUND, f"no {self.adapter.name} session {session_id!r}", {"uri": session_id})
        return record

    def _session(self, session_id: str) -> LiveSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RpcError(RESOURCE_NOT_FOUND, f"unknown session {session_id!r}", {"uri": session_id})
        return session

    def _notify(self, session_id: str, update: SessionUpdate) -> None:
        self.conn.notify("session/update", {"sessionId": session_id, "update": update})

    def _tell(self, session_id: str, update: dict[str, Any]) -> None:
        """An update the bridge itself makes (mode, settings, commands), built as the v1 SessionNotification and
        dumped by wire.dump. The agent's own stream goes through :meth:`_notify` as translated, unvalidated per event."""
        params = answer(v1.SessionNotification, {"sessionId": session_id, "update": update})
        self.conn.notify("session/update", params)

    def _valid_mode(self, session: LiveSession, mode: Any) -> str:
        if not session.settings.has_mode(mode):
            raise RpcError(
                INVALID_PARAMS, f"unknown mode {mode!r}; choose one of {[m.id for m in session.settings.modes]}"
            )
        return str(mode)

    def _current_mode(self, session: LiveSession) -> str | None:
        mode = session.mode_info()
        return mode.id if mode is not None else None

    def _session_state(self, session: LiveSession) -> dict[str, Any]:
        state: dict[str, Any] = {"sessionId": session.id}
        modes = session.settings.modes_state()
        if modes:
            state["modes"] = modes
        options = self._config_options(session)
        if options:
            state["configOptions"] = options
        return state

    def _config_options(self, session: LiveSession) -> list[SessionConfigOption]:
        return session.config_options()

    async def _announce(self, session: LiveSession) -> None:
        """After new/load/resume: the commands the user can type (agent commands are added as the agent reports)."""
        # The answer is out: start the agent and load the event machinery now, while the user types.
        session.warm()
        # The run spawns its agent from its own task: one turn of the loop lets that task take its first step (the
        # fork and exec, or its wait for what the agent needs first, openclaw's gateway), so the agent's start of
        # seconds runs while the event models load and the schemas below are built, instead of only after them.
        await asyncio.sleep(0)
        events = importlib.import_module("acp_mux.core.events.union")
        events.prepare_turn()  # after the agent's spawn: its start and these schemas share the wait
        wire.warm()  # likewise the validators and serializers of a turn's ACP messages
        commands = getattr(session.adapter, "slash_commands", ())
        if self.choices is not None:
            session._on_commands(None)  # the bridge's own /agent, before the agent reports its commands
        elif commands:
            self._tell(
                session.id,
                {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": [{"name": n, "description": d} for n, d in commands],
                },
            )

    async def shutdown(self) -> None:
        await asyncio.gather(*(s.close() for s in list(self.sessions.values())), return_exceptions=True)


def _secret_mcp_servers(servers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The editor's MCP servers, their env values and headers registered as secrets (masked in every log)."""
    from acp_mux.adapters.mcp import mcp_secrets
    from acp_mux.core.text import redact

    redact.register(mcp_secrets(servers))
    return servers


def _mcp_servers(servers: list[v1.McpServer] | None) -> list[dict[str, Any]]:
    """The typed servers as the plain dicts the adapters read, held to the same rules as the launcher's early path."""
    return p.mcp_servers({"mcpServers": [wire.dump(server) for server in servers or ()]})


def _require_cwd(cwd: str) -> str:
    if "\0" in cwd or not os.path.isabs(cwd):
        raise RpcError(INVALID_PARAMS, "cwd must be an absolute path")
    if not os.path.isdir(cwd):
        raise RpcError(INVALID_PARAMS, f"cwd {cwd!r} is not a directory")
    return cwd

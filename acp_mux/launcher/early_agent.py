"""Start the agent of the ``session/new`` the launcher answered, before the bridge has loaded.

The person's typing pause begins when the launcher answers ``session/new`` (:mod:`acp_mux.launcher.early_session`);
the bridge then still loads its server and session machinery, and only after that does the session's run start its
agent. An agent that takes seconds to start (hermes) is then still starting when the first prompt comes. So right
after the answer, the launcher starts the agent itself, with the spawn spec its adapter builds from the options the
bridge will give the session's run (:meth:`acp_mux.server.sessions.bridge.AcpServer.adopt`), and keeps it
(:mod:`acp_mux.core.process.prestart`); the run takes it if, and only if, its own spec is the same.

Only agents whose adapter says its spawn depends on the options alone (``starts_early``) are started here. Nothing
that fails here is reported or raised: the run then starts the agent as it always did and reports what fails.
"""

from __future__ import annotations

import os

from acp_mux.launcher.early_init import serve_target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from acp_mux.adapters.base import AgentAdapter
    from acp_mux.launcher.early_session import EarlySession


def adapter_for(argv: list[str]) -> tuple[AgentAdapter, dict[str, str]] | None:
    """The adapter of the agent ``argv`` serves alone, with the command line's options that take a value; None for
    several agents, another command or no such agent. Importing the adapter is most of what starting the agent
    costs, so the launcher's loading thread calls this first."""
    target = serve_target(argv, os.environ)
    if target is None:
        return None
    agent, transport, values = target
    from acp_mux.adapters.base import get_adapter

    try:
        return get_adapter(agent, transport), values
    except Exception:  # noqa: BLE001 - an unknown or unsupported agent: the bridge says so to the editor
        return None


def start_agent(argv: list[str], session: EarlySession) -> bool:
    """Start ``session``'s agent now and keep it for the session's run; True if one was started."""
    try:
        return _start(argv, session)
    except Exception:  # noqa: BLE001 - the run starts it instead, and reports what fails
        return False


def _start(argv: list[str], session: EarlySession) -> bool:
    found = adapter_for(argv)
    if found is None:
        return False
    adapter, values = found
    if not adapter.starts_early or not adapter.capabilities.persistent_process:
        return False
    from acp_mux.core.process import prestart
    from acp_mux.core.run.contract import RunOptions
    from acp_mux.core.process.spawn import start

    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    servers = session.params.get("mcpServers") or []
    # What AcpServer.adopt and LiveSession._run_options give the session's warm run (the command line's --model,
    # --mode, --agent-bin and arguments after --, the editor's MCP servers). The editor's client capabilities are
    # left out: no spawn reads them, and the run's spec is compared in full before this agent is taken.
    options = RunOptions(
        agent=adapter.name,
        cwd=session.cwd,
        model=values.get("--model"),
        mode=values.get("--mode"),
        binary=values.get("--agent-bin"),
        extra_args=extra,
        mcp_servers=servers if isinstance(servers, list) else [],
    )
    prestart.keep(start(adapter.build_spawn(options)))
    return True

"""Command line: ``acp-mux --agent NAME`` serves ACP on stdio; ``doctor``, ``demo`` and ``--login`` help people.

Nothing heavy is imported before it is needed: the ACP server path starts answering as soon as it can.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from typing import Sequence

from acp_mux.adapters.registry import AGENT_NAMES, DEMO_AGENT, AgentNotAvailable, UnknownAgent, get_adapter, known

EPILOG = (
    "agents: " + ", ".join(AGENT_NAMES) + f" (and '{DEMO_AGENT}', the bundled scripted agent)\n"
    "subcommands: acp-mux doctor [AGENT] | acp-mux demo\n"
    "environment: ACP_MUX_AGENT and ACP_MUX_LOG default --agent and --log-file;\n"
    "             ACP_MUX_<AGENT>_BIN overrides an agent's binary; ACP_MUX_STATE_DIR moves the session store;\n"
    "             the bridge's environment (API keys, base URLs) passes through to the agent."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-mux",
        description="Serve a coding-agent CLI as an Agent Client Protocol (ACP) agent on stdio.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--agent", metavar="NAME", default=os.environ.get("ACP_MUX_AGENT") or None,
                        help="which agent to run: " + ", ".join(AGENT_NAMES))
    parser.add_argument("--agent-bin", metavar="PATH", help="path of the agent's executable")
    parser.add_argument("--transport", metavar="T",
                        help="an agent's alternative transport (codex: exec, for a codex without app-server); "
                             "default from ACP_MUX_<AGENT>_TRANSPORT")
    parser.add_argument("--model", help="model to start sessions with")
    parser.add_argument("--mode", help="permission mode to start sessions with (agent specific)")
    parser.add_argument("--log-file", metavar="F", default=os.environ.get("ACP_MUX_LOG") or None,
                        help="also write diagnostics to this file")
    parser.add_argument("--log-level", default=os.environ.get("ACP_MUX_LOG_LEVEL", "WARNING"))
    parser.add_argument("--inactivity-timeout", type=float, default=600.0, metavar="S",
                        help="end a turn with a visible error after S seconds without agent output (default 600)")
    parser.add_argument("--login", action="store_true", help="run the agent's own login in this terminal")
    parser.add_argument("--version", action="store_true", help="print the version")
    parser.add_argument("--stdio", action="store_true",
                        help="serve ACP on stdin/stdout (the default and only transport; accepted for launchers)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "doctor":
        from acp_mux.cli.doctor import run_doctor

        return run_doctor(argv[1:])
    if argv and argv[0] == "demo":
        from acp_mux.cli.demo import run_demo

        return run_demo(argv[1:])
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1 :]
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from acp_mux import __version__

        print(f"acp-mux {__version__}")
        return 0
    if not args.agent:
        parser.print_help(sys.stderr)
        return 2
    if not known(args.agent):
        print(f"acp-mux: {UnknownAgent(args.agent)}", file=sys.stderr)
        return 2
    transport = args.transport or os.environ.get(f"ACP_MUX_{args.agent.upper()}_TRANSPORT") or None
    try:
        adapter = get_adapter(args.agent, transport)
    except AgentNotAvailable as exc:
        print(f"acp-mux: {exc}", file=sys.stderr)
        return 2
    if args.login:
        return run_login(adapter, args.agent_bin)
    setup_logging(args.log_level, args.log_file)
    from acp_mux.server.live_session import BridgeConfig

    config = BridgeConfig(
        agent=args.agent,
        binary=args.agent_bin,
        model=args.model,
        mode=args.mode,
        extra_args=extra,
        inactivity_timeout_s=args.inactivity_timeout or None,
    )
    return asyncio.run(serve(adapter, config))


def setup_logging(level: str, log_file: str | None) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(log_file))
    logging.basicConfig(
        level=getattr(logging, str(level).upper(), logging.WARNING),
        format="%(asctime)s acp-mux %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
    )


async def serve(adapter, config) -> int:  # noqa: ANN001 (kept light: typed in server.py)
    """Serve until the editor closes stdin or signals us; then leave no agent process behind."""
    from acp_mux.server.rpc import Connection, protect_stdout
    from acp_mux.core.tracker import TRACKER
    from acp_mux.server.bridge import AcpServer
    from acp_mux.server.store import SessionStore

    proto_in, proto_out = protect_stdout()
    TRACKER.install_handlers()
    conn = Connection(proto_in, proto_out)
    if logging.getLogger().isEnabledFor(logging.DEBUG):
        conn.on_message = lambda direction, msg: logging.getLogger("acp_mux.protocol").debug("%s %s", direction, msg)
    server = AcpServer(conn, adapter, config, SessionStore())
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(sig, stop.set)
    serving = asyncio.ensure_future(conn.serve())
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
    TRACKER.kill_all(grace=0.0)  # the editor is gone: agents must not outlive it
    try:
        await asyncio.wait_for(server.shutdown(), timeout=1.0)
    except (asyncio.TimeoutError, Exception):
        pass
    await conn.cancel_handlers()
    TRACKER.kill_all(grace=0.0)
    for task in (serving, stopping):
        task.cancel()
    return 0


def run_login(adapter, binary: str | None) -> int:  # noqa: ANN001
    """Hand the terminal to the agent's own login flow (ACP terminal auth runs exactly this)."""
    if not adapter.login_args:
        print(f"{adapter.display_name} needs no login.", file=sys.stderr)
        return 0
    command = adapter.resolve_binary(binary)
    try:
        os.execvp(command, [command, *adapter.login_args])
    except OSError as exc:
        print(f"acp-mux: cannot run {command}: {exc}. {adapter.install_hint}", file=sys.stderr)
        return 127
    return 0

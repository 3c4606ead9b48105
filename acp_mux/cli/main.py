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
import textwrap
from typing import TYPE_CHECKING, Sequence

from acp_mux.adapters.registry import AGENT_NAMES, DEMO_AGENT, ENTRIES, AgentNotAvailable, UnknownAgent
from acp_mux.adapters.base import get_adapter
from acp_mux.core.settings import LOG_LEVELS, SettingError, read_setting

if TYPE_CHECKING:  # types only: the server loads after initialize is answered (acp_mux.launcher.entry)
    from pathlib import Path
    from typing import TextIO

    from acp_mux.adapters.base import AgentAdapter
    from acp_mux.server.sessions.agent_choice import AgentChoices
    from acp_mux.launcher.early_init import Early
    from acp_mux.server.branches.compare_turn import Ask, Comparison
    from acp_mux.server.sessions.live_session import BridgeConfig


def _agents_line() -> str:
    """The agents, from the registry: which run now and which are only named."""
    works = [n for n in AGENT_NAMES if ENTRIES[n].supported]
    later = [n for n in AGENT_NAMES if not ENTRIES[n].supported]
    line = f"agents: {', '.join(works)}"
    if later:
        line += f"; named, not supported yet: {', '.join(later)}"
    line += f"; '{DEMO_AGENT}' is the bundled scripted agent"
    for name in works:
        if ENTRIES[name].untested:
            line += f"; {name}: {ENTRIES[name].untested}"
    from acp_mux.cli.terminal import width

    return textwrap.fill(line, width=width() - 3, subsequent_indent="  ", break_on_hyphens=False)


_COMMANDS = (
    ("acp-mux doctor [AGENT]", "which agents are installed and can run, how they sign in, what to do next"),
    ("acp-mux demo [PROMPT]", "the whole bridge in this terminal, with the bundled scripted agent"),
    ("acp-mux sessions CMD", "list | show ID | export ID | prune: the stored sessions and their event logs"),
    ("acp-mux run --agent A ...", "one turn of an agent, for scripts and CI (--json: the event union per line)"),
)
_ENVIRONMENT = (
    ("ACP_MUX_AGENT", "default for --agent"),
    ("ACP_MUX_LOG", "default for --log-file ('off': no log file)"),
    ("ACP_MUX_LOG_LEVEL", "default for --log-level"),
    ("ACP_MUX_<AGENT>_BIN", "the agent's executable (e.g. ACP_MUX_CLAUDE_BIN=/opt/claude/bin/claude)"),
    ("ACP_MUX_<AGENT>_TRANSPORT", "default for --transport"),
    ("ACP_MUX_STATE_DIR", "where sessions and the log are kept (default $XDG_STATE_HOME/acp-mux)"),
    ("anything else", "(API keys, base URLs) passes through to the agent"),
)


def epilog() -> str:
    """The agents, the other commands and the environment, laid out for the terminal's width."""
    from acp_mux.cli.terminal import field

    def rows(pairs: tuple[tuple[str, str], ...]) -> str:
        return "\n".join(line for label, text in pairs for line in field(label, text, 30))

    return f"{_agents_line()}\nother commands:\n{rows(_COMMANDS)}\nenvironment:\n{rows(_ENVIRONMENT)}"


def _log_level(value: str) -> str:
    level = value.strip().upper()
    if level not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"{value!r} is not one of {', '.join(LOG_LEVELS)}")
    return level


def _default_log_level() -> str:
    """ACP_MUX_LOG_LEVEL, if valid. A bad value is refused where an editor shows it (session/new fails naming it:
    :mod:`acp_mux.core.settings`); until then the log runs at WARNING so that refusal is logged, and stderr says so."""
    try:
        level = read_setting("ACP_MUX_LOG_LEVEL", os.environ)
    except SettingError as exc:
        print(f"acp-mux: {exc}", file=sys.stderr)
        return "WARNING"
    return str(level or "WARNING")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-mux",
        description="Serve a coding-agent CLI as an Agent Client Protocol (ACP) agent on stdio.",
        epilog=epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--agent",
        metavar="NAME",
        default=os.environ.get("ACP_MUX_AGENT") or None,
        help="which agent to run (default from ACP_MUX_AGENT); 'auto' (or no --agent when an editor "
        "starts acp-mux) lets the person pick and switch the agent in each session",
    )
    parser.add_argument("--agent-bin", metavar="PATH", help="path of the agent's executable")
    parser.add_argument(
        "--transport",
        metavar="T",
        help="an agent's alternative transport (codex: exec, for a codex without app-server); "
        "default from ACP_MUX_<AGENT>_TRANSPORT",
    )
    parser.add_argument("--model", help="model to start sessions with")
    parser.add_argument("--mode", help="permission mode to start sessions with (agent specific)")
    parser.add_argument(
        "--log-file",
        metavar="F",
        default=os.environ.get("ACP_MUX_LOG") or None,
        help="write diagnostics to this file (default: logs/acp-mux.log in the state folder, private, rotated; "
        "'off': none)",
    )
    parser.add_argument(
        "--log-level",
        metavar="LEVEL",
        type=_log_level,
        default=None,
        help=f"{', '.join(LOG_LEVELS)} (default WARNING, or ACP_MUX_LOG_LEVEL); DEBUG logs every protocol message",
    )
    parser.add_argument(
        "--inactivity-timeout",
        type=float,
        default=600.0,
        metavar="S",
        help="end a turn with a visible error after S seconds without agent output (default 600)",
    )
    parser.add_argument("--login", action="store_true", help="run the agent's own login in this terminal")
    parser.add_argument("-V", "--version", action="store_true", help="print the version")
    parser.add_argument(
        "--stdio",
        action="store_true",
        help="serve ACP on stdin/stdout (the default and only transport; accepted for launchers)",
    )
    return parser


def main(argv: Sequence[str] | None = None, early: Early | None = None) -> int:
    """``early``: what the launcher already read (and maybe answered) from the editor (``acp_mux.launcher.entry``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("doctor", "sessions", "demo", "run"):
        from acp_mux.cli.commands import run_command

        return run_command(argv[0], argv[1:])
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1 :]
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from acp_mux.version import __version__

        print(f"acp-mux {__version__}")
        return 0
    multi = args.agent == "auto" or (not args.agent and not _stdin_is_terminal() and not args.login)
    if not args.agent and not multi:
        print(
            "acp-mux: --agent NAME is needed (or ACP_MUX_AGENT).\n"
            f"{textwrap.indent(_agents_line(), '  ')}\n"
            "  try it without any agent CLI: acp-mux demo\n"
            "  which agents are ready here:  acp-mux doctor\n"
            "  all options:                  acp-mux --help",
            file=sys.stderr,
        )
        return 2
    choices: AgentChoices | None = None
    if multi:  # one editor entry for every agent: the person picks one per session
        from acp_mux.cli.health_cache import usable_here

        # doctor's health check decides too, from its stored verdicts only: a CLI proven unable to run is not offered,
        # and no CLI is run while the editor waits
        choices = usable_here()
        args.agent = choices.default() or "auto"
    entry = ENTRIES.get(args.agent)
    transport = args.transport or (os.environ.get(entry.transport_env_var) if entry else None) or None
    try:
        if choices is not None and not choices.names:
            raise AgentNotAvailable("no agent CLI is installed here (see `acp-mux doctor`)")
        adapter = get_adapter(args.agent, transport)
    except (UnknownAgent, AgentNotAvailable) as exc:
        # A person at a terminal gets the error and status 2; an editor (stdin is a pipe) gets an agent that answers
        # initialize and shows this reason on session/new, because editors hide stderr and say only "server exited".
        print(f"acp-mux: {exc}", file=sys.stderr)
        if args.login or _stdin_is_terminal():
            return 2
        from acp_mux.adapters.base import UnavailableAdapter

        adapter = UnavailableAdapter(args.agent, str(exc))
    if args.login:
        return run_login(adapter, args.agent_bin)
    log_path = setup_logging(args.log_level or _default_log_level(), args.log_file)
    if _stdin_is_terminal():  # started by hand: an editor never gives us a terminal
        from acp_mux.cli.by_hand import hint

        print(hint(args.agent, log_path), file=sys.stderr)
    from acp_mux.server.sessions.live_session import BridgeConfig

    config = BridgeConfig(
        agent=args.agent,
        binary=args.agent_bin,
        model=args.model,
        mode=args.mode,
        extra_args=extra,
        inactivity_timeout_s=args.inactivity_timeout or None,
        compare=comparison,
    )
    try:
        return asyncio.run(serve(adapter, config, choices, early))
    except Exception as exc:  # never a silent exit: say why, and fail
        logging.getLogger("acp_mux").exception("acp-mux failed")
        print(f"acp-mux: internal error: {exc!r}", file=sys.stderr)
        return 1


def _stdin_is_terminal() -> bool:
    try:
        return os.isatty(0)
    except OSError:
        return False


def setup_logging(level: str, log_file: str | None) -> Path | None:
    """stderr and a log file, both with secrets masked at every level; the file is private (0600). Without
    ``log_file`` that is the default log in the state folder (:mod:`acp_mux.cli.log_file`); ``off``: none.
    Returns the default log's path when it is used.

    ``level`` is the file's. stderr gets warnings and worse only, whatever the level: an editor may show every
    stderr line in the conversation (acp.el turns each one into an error in agent-shell), and DEBUG holds every
    protocol message, prompts and file contents included, which belong in the private file alone."""
    from acp_mux.cli.log_file import OFF, open_default_log
    from acp_mux.core.text import redact

    to_stderr = logging.StreamHandler(sys.stderr)
    to_stderr.setLevel(max(logging.WARNING, getattr(logging, level)))
    handlers: list[logging.Handler] = [to_stderr]
    default = None
    if log_file and log_file != OFF:
        handlers.append(logging.StreamHandler(_private_log(log_file)))
    elif not log_file:
        default = open_default_log()
        handlers += [default] if default is not None else []
    for handler in handlers:
        handler.addFilter(redact.RedactingFilter())
    redact.register_environment(os.environ)  # API keys passed through to agents are not for the log either
    logging.basicConfig(
        level=getattr(logging, level),
        format="%(asctime)s acp-mux %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
    )
    return default.path if default is not None else None


def _private_log(path: str) -> TextIO:
    """The log file, appended to, readable by us only: created 0600, tightened to 0600 if it was ours already."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        if os.fstat(fd).st_uid == os.getuid():
            os.fchmod(fd, 0o600)
    except OSError:
        pass
    return os.fdopen(fd, "a", encoding="utf-8", errors="replace", buffering=1)


def _log_protocol(direction: str, message: object) -> None:
    """The DEBUG protocol log: MCP env values and headers in a message are registered as secrets before it is
    written, so they are masked in this line and in every later one."""
    from acp_mux.adapters.mcp import mcp_secrets
    from acp_mux.core.text import redact

    params = message.get("params") if isinstance(message, dict) else None
    if isinstance(params, dict) and params.get("mcpServers"):
        redact.register(mcp_secrets(params["mcpServers"]))
    logging.getLogger("acp_mux.protocol").debug("%s %s", direction, message)


def comparison(
    agents: list[str],
    prompt: str,
    *,
    ask: Ask,
    cwd: str,
    check: str | None,
    judge: str | None,
    env: dict[str, str] | None,
    state_dir: Path,
) -> Comparison:
    """``/compare`` in the every-agent entry: the Python API's comparison (the server does not import the API),
    with the session's question handler as the person's policy; loaded only when a comparison starts."""
    import acp_mux

    return acp_mux.compare(
        agents, prompt, approvals=acp_mux.ask(ask), cwd=cwd, check=check, judge=judge, env=env, state_dir=state_dir
    )


async def serve(
    adapter: AgentAdapter, config: BridgeConfig, choices: AgentChoices | None = None, early: Early | None = None
) -> int:
    """Serve until the editor closes stdin or signals us; then leave no agent process behind."""
    from acp_mux.cli.by_hand import terminal_connection
    from acp_mux.server.wire.rpc import Connection, protect_stdout
    from acp_mux.core.process import prestart
    from acp_mux.core.process.tracker import TRACKER
    from acp_mux.server.sessions.bridge import AcpServer
    from acp_mux.server.records.store import SessionStore

    connection = terminal_connection if _stdin_is_terminal() else Connection  # asked before fd 0 is moved
    proto_in, proto_out = protect_stdout()
    TRACKER.install_handlers()
    conn = connection(proto_in, proto_out, early.leftover if early is not None else b"")
    if logging.getLogger().isEnabledFor(logging.DEBUG):
        conn.on_message = _log_protocol
    from acp_mux.cli.health_cache import usable_here

    server = AcpServer(conn, adapter, config, SessionStore(), choices, usable_agents=usable_here)
    if early is not None and early.params is not None:  # answered by the launcher before this server existed
        server.initialized(early.params)
        if conn.on_message is not None:
            conn.on_message(
                "in", {"jsonrpc": "2.0", "id": early.request_id, "method": "initialize", "params": early.params}
            )
            conn.on_message("out", {"jsonrpc": "2.0", "id": early.request_id, "result": early.answer})
    if early is not None and early.session is not None:  # and the session/new after it
        if conn.on_message is not None:
            conn.on_message(
                "in",
                {
                    "jsonrpc": "2.0",
                    "id": early.session.request_id,
                    "method": "session/new",
                    "params": early.session.params,
                },
            )
            conn.on_message("out", {"jsonrpc": "2.0", "id": early.session.request_id, "result": early.session.answer})
        await server.adopt(early.session)
        if prestart.discard():  # the launcher's early agent, which the session's run did not take
            logging.getLogger("acp_mux").info("the agent started with the launcher was not the run's: ended")
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(sig, stop.set)
    serving = asyncio.ensure_future(conn.serve())
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
    status = 0
    if serving.done() and not serving.cancelled() and serving.exception() is not None:
        failure = serving.exception()  # never exit silently: an editor shows only "server exited" and our stderr
        logging.getLogger("acp_mux").error("stopped serving: %r", failure, exc_info=failure)
        print(f"acp-mux: stopped serving after an internal error: {failure!r}", file=sys.stderr)
        status = 1
    prestart.discard()
    TRACKER.kill_all(grace=0.0)  # the editor is gone: agents must not outlive it
    try:
        await asyncio.wait_for(server.shutdown(), timeout=1.0)
    except (TimeoutError, Exception):
        pass
    await conn.cancel_handlers()
    TRACKER.kill_all(grace=0.0)
    for task in (serving, stopping):
        task.cancel()
    return status


def run_login(adapter: AgentAdapter, binary: str | None) -> int:
    """Hand the terminal to the agent's own login flow (ACP terminal auth runs exactly this)."""
    if not adapter.login_args:
        print(f"{adapter.display_name} needs no login.", file=sys.stderr)
        return 0
    command = adapter.resolve_binary(binary)
    try:
        os.execvp(command, [command, *adapter.login_args])  # returns only by raising: this process becomes the login
    except OSError as exc:
        print(f"acp-mux: cannot run {command}: {exc}. Install: {adapter.entry.install_text}", file=sys.stderr)
        return 127

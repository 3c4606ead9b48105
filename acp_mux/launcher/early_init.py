"""Answer ``initialize`` before anything heavy is imported.

An editor spawns the agent and writes ``initialize`` at once; until it is answered the editor shows nothing. A
JSON-RPC responder using only the standard library answers in the time the interpreter takes to start, while the
bridge's own machinery (asyncio, the server, the adapter) costs several times that to import. So the launcher
(``acp_mux.launcher.entry``) first reads the first line itself, and when it is an ``initialize`` this module can answer
exactly as the server would, writes the answer, and only then lets the rest load; the server is told what the
editor said (:class:`Early`) and starts from the bytes that followed. A ``session/new`` right after it is answered
here too (:mod:`acp_mux.launcher.early_session`), while the launcher loads the bridge on a thread.

The answer needs a few facts about the agent (its capabilities, name, login) that live in its adapter and the
registry, whose imports are the heavy part. They are kept as a snapshot in ``agent_facts.json`` next to this
file, which a test compares with the adapters (``python -m acp_mux.launcher.early_init`` rewrites it). The answer
itself is built by :func:`initialize_result` for both paths, so the two cannot differ in anything else.

Only the standard library's ``json``, ``os`` and ``sys`` (and ``shlex`` for one string) are imported here. Whatever
this module does not fully understand (other options, another first message, a malformed one, several agents at
once) it leaves to the server, unanswered; and it answers only params the server's typed edge accepts, decided from
the server's own models (:mod:`acp_mux.launcher.early_shapes`), so what it answers is never a yes where the server
says no (a property test compares the two paths request by request: tests/faults/test_early_answers.py).
"""

from __future__ import annotations

import json
import os
import re  # already loaded by json
import sys

TYPE_CHECKING = False  # typing itself is one of the imports this module exists to avoid
if TYPE_CHECKING:
    from typing import Any, Callable

    from acp_mux.launcher.early_session import EarlySession

FACTS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "agent_facts.json")
PROTOCOL_VERSION = 1  # the latest ACP version served
SUPPORTED_PROTOCOL_VERSIONS = (1,)  # every version served: a request for another is answered with the latest
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# The serve path's options (acp_mux.cli.main.build_parser) that take a value, and those that take none.
VALUE_OPTIONS = (
    "--agent",
    "--agent-bin",
    "--transport",
    "--model",
    "--mode",
    "--log-file",
    "--log-level",
    "--inactivity-timeout",
)
FLAG_OPTIONS = ("--stdio",)
# The optional session methods the bridge serves (``session/<name>``), advertised under
# ``agentCapabilities.sessionCapabilities`` as ``{}`` each; a test holds this to the bridge's own method table.
SESSION_CAPABILITIES = ("list", "delete", "resume", "close", "fork")  # fork: unstable (acp_mux.protocol.unstable)
# A prompt sent while one runs is queued and runs as the next turn, for every agent (server/sessions/session_gate.py): said
# under the key claude-agent-acp uses (``claudeCode.promptQueueing``, which editors already read) and under acp-mux's
# own ``_meta`` namespace (the name it gives in ``agentInfo``), for clients that look for a neutral one.
QUEUEING_META = {"claudeCode": {"promptQueueing": True}, "acp-mux": {"promptQueueing": True}}
# ``_session/steering`` is served (a message into the running turn), said as claude-agent-acp and codex-acp say it:
# the initialize result's top-level ``_meta`` (server/sessions/steering.py).
STEERING_META = {"steering": {"supported": True}}
MAX_FIRST_LINE = 1 << 20  # an initialize is a few hundred bytes; anything longer is the server's problem
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class Early:
    """What was read before the server existed: the ``initialize`` params if it was answered, the ``session/new``
    answered after it if any (:mod:`acp_mux.launcher.early_session`), and every byte after."""

    __slots__ = ("params", "request_id", "answer", "leftover", "session")

    def __init__(
        self,
        params: dict[str, Any] | None,
        request_id: Any,
        answer: dict[str, Any] | None,
        leftover: bytes,
        session: EarlySession | None = None,
    ) -> None:
        self.params, self.request_id, self.answer, self.leftover = params, request_id, answer, leftover
        self.session = session


# ── the answer, for both paths ─────────────────────────────────────────────────────────────────────────────────
def initialize_result(
    requested: int,
    client_caps: dict[str, Any],
    caps: dict[str, bool],
    logins: list[tuple[str, str, str, str | None]],
    title: str,
    command: list[str],
    version: str,
    agent: tuple[str, str, str] | None = None,
) -> dict[str, Any]:
    """The ``initialize`` result. ``caps``: images, audio, embedded_context, mcp_http, mcp_sse, extra_dirs (the agent
    takes ``additionalDirectories``), logout (``logout`` runs its own sign-out: :mod:`acp_mux.server.sessions.sign_out`), steering
    (``_session/steering`` reaches the running turn); ``logins``: one
    (agent, display name, auth hint, --agent-bin or None) per agent with a login of its own; ``command``: how a
    terminal runs this acp-mux again; ``agent``: (name, display name, auth hint) of the one agent served, None
    when any may answer. Without a login to offer, the sign-in offered is ``acp-mux doctor`` in a terminal: it
    shows what is installed and signed in and the next step (the ACP registry lists only agents that offer one)."""
    methods = [_auth_method(client_caps, command, *login) for login in logins]
    return {
        "protocolVersion": negotiated_version(requested),
        "agentCapabilities": {
            "loadSession": True,
            # Only what is offered: an editor may read a flag that is there as offered whatever its value
            # (agent-shell lists ``"audio": false`` as a capability), so a declined one is left out, never false.
            "promptCapabilities": _offered(
                image=caps["images"], audio=caps["audio"], embeddedContext=caps["embedded_context"]
            ),
            "mcpCapabilities": _offered(http=caps["mcp_http"], sse=caps["mcp_sse"]),
            "sessionCapabilities": {
                **{name: {} for name in SESSION_CAPABILITIES},
                **({"additionalDirectories": {}} if caps.get("extra_dirs") else {}),
            },
            **({"auth": {"logout": {}}} if caps.get("logout") else {}),
            "_meta": QUEUEING_META,
        },
        "authMethods": methods or [_checkup_method(client_caps, command, agent)],
        "agentInfo": {"name": "acp-mux", "title": title, "version": version},
        **({"_meta": STEERING_META} if caps.get("steering") else {}),
    }


def negotiated_version(requested: int) -> int:
    """ACP's rule: the version the client asked for when it is one served here, else the latest served here (the
    client then decides whether it can go on). Never a version below the first: 0 is no ACP version to speak."""
    return requested if requested in SUPPORTED_PROTOCOL_VERSIONS else PROTOCOL_VERSION


def _offered(**flags: bool) -> dict[str, bool]:
    """The flags that are true: ACP's capability flags default to false, so a false one says nothing."""
    return {name: True for name, on in flags.items() if on}


def _auth_method(
    client_caps: dict[str, Any], command: list[str], name: str, display_name: str, hint: str, binary: str | None
) -> dict[str, Any]:
    """Each agent's own login, run in a terminal."""
    args = ["--agent", name, *(["--agent-bin", binary] if binary else []), "--login"]
    return _terminal_method(client_caps, command, f"{name}-login", f"Log in to {display_name}", hint, args)


CHECKUP_METHOD = "doctor"


def _checkup_method(
    client_caps: dict[str, Any], command: list[str], agent: tuple[str, str, str] | None
) -> dict[str, Any]:
    """``acp-mux doctor [NAME]`` in a terminal, for an agent without a login command of its own (or when none of the
    agents found has one): how it signs in, and whether it is installed and signed in here."""
    if agent is None:
        return _terminal_method(
            client_caps,
            command,
            CHECKUP_METHOD,
            "Check which agents are ready",
            "Shows which agent CLIs are installed and signed in here, and the next step for each.",
            ["doctor"],
        )
    name, display_name, hint = agent
    return _terminal_method(
        client_caps,
        command,
        CHECKUP_METHOD,
        f"Check {display_name}'s set-up",
        f"{hint} This shows whether it is installed and signed in here, and what to do next.".lstrip(),
        ["doctor", name],
    )


def _terminal_method(
    client_caps: dict[str, Any], command: list[str], method_id: str, label: str, hint: str, args: list[str]
) -> dict[str, Any]:
    """This acp-mux run with ``args`` in a terminal. The legacy ``terminal-auth`` form names the command, so it is
    this program's absolute path: an editor's PATH often lacks ``acp-mux``."""
    if (client_caps.get("auth") or {}).get("terminal"):
        return {"id": method_id, "name": label, "description": hint, "type": "terminal", "args": args}
    import shlex

    return {
        "id": method_id,
        "name": label,
        "description": f"{hint} In a terminal: {shlex.join(command + args)}",
        "_meta": {"terminal-auth": {"command": command[0], "args": command[1:] + args, "label": label}},
    }


def initialize_params_fit(params: dict[str, Any]) -> bool:
    """Whether the server reads these ``initialize`` params without an error, as its typed edge reads them
    (:func:`acp_mux.server.wire.editor_edge.parse_request`): fitting the model (:mod:`acp_mux.launcher.early_shapes`), or
    fitting once a ``clientInfo`` that does not is left out, which the edge does too."""
    from acp_mux.launcher.early_shapes import fits

    if fits("initialize", params):
        return True
    return "clientInfo" in params and fits("initialize", {k: v for k, v in params.items() if k != "clientInfo"})


# ── the launcher's side ────────────────────────────────────────────────────────────────────────────────────────
def serve_target(
    argv: list[str], environ: dict[str, str] | os._Environ[str]
) -> tuple[str, str | None, dict[str, str]] | None:
    """(agent, transport, the options given with a value) when ``argv`` is a plain serve command line this module
    fully understands, else None. Anything else (doctor, demo, --login, --help, an unknown option, a bad value, no agent) goes to the
    full command line parser, unanswered here."""
    values: dict[str, str] = {}
    at = 0
    while at < len(argv):
        arg = argv[at]
        if arg == "--":
            break  # the agent's own arguments follow: they do not change the answer
        name, eq, value = arg.partition("=")
        if name in FLAG_OPTIONS and not eq:
            at += 1
            continue
        if name not in VALUE_OPTIONS:
            return None
        if not eq:
            if at + 1 >= len(argv) or argv[at + 1].startswith("--"):
                return None
            value = argv[at + 1]
            at += 1
        values[name] = value
        at += 1
    if "--log-level" in values and values["--log-level"].strip().upper() not in LOG_LEVELS:
        return None
    if "--inactivity-timeout" in values:
        try:
            float(values["--inactivity-timeout"])
        except ValueError:
            return None
    agent = values.get("--agent") or environ.get("ACP_MUX_AGENT") or None
    if not agent or agent == "auto":
        return None  # several agents at once: the server works out what they can do together
    transport = values.get("--transport") or environ.get(f"ACP_MUX_{agent.upper()}_TRANSPORT") or None
    return agent, transport, values


def load_facts(agent: str, transport: str | None) -> dict[str, Any] | None:
    """The snapshot's facts for ``agent`` over ``transport`` (its default when None); None if it has none."""
    try:
        with open(FACTS_FILE, encoding="utf-8") as fh:
            facts = json.load(fh).get(agent)
    except (OSError, ValueError):
        return None
    if not isinstance(facts, dict) or not facts.get("transports"):
        return None
    chosen = transport or facts["default_transport"]
    caps = facts["transports"].get(chosen)
    if caps is None:
        return None
    return {
        "display_name": facts["display_name"],
        "auth_hint": facts["auth_hint"],
        "login": facts["login"],
        "caps": caps,
        "binary": facts["binary"],
        "session": facts["sessions"][chosen],
    }


def read_first_line(fd: int, data: bytes = b"") -> bytes:
    """``data`` and bytes from ``fd`` up to and including the first newline (or end of input), reading no more than
    needed beyond it; whatever else arrived with it is kept by the caller."""
    while b"\n" not in data and len(data) < MAX_FIRST_LINE:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data


def answer_early(
    argv: list[str],
    fd_in: int = 0,
    fd_out: int = 1,
    meanwhile: Callable[[], Callable[[], None]] | None = None,
    on_session: Callable[[EarlySession], object] | None = None,
) -> Early | None:
    """Read the editor's first message; when it is an ``initialize`` this module can answer, write the answer to
    ``fd_out``, and do the same for a ``session/new`` right after it. Returns what the server needs to carry on
    (None: nothing was read, the server starts as usual).

    ``meanwhile``: started once ``initialize`` is answered, while the next message is awaited (the launcher loads
    the bridge then); it returns what waits for it to finish, called before this returns. ``on_session``: called
    with the answered ``session/new`` before that wait (the launcher starts the session's agent then)."""
    target = serve_target(argv, os.environ)
    if target is None or os.isatty(fd_in):
        return None
    agent, transport, options = target
    facts = load_facts(agent, transport)
    if facts is None:
        return None
    data = read_first_line(fd_in)
    try:
        early = _answer(data, agent, facts, options.get("--agent-bin"), fd_out)
    except Exception:  # noqa: BLE001 - whatever went wrong, the bytes read go to the server, never lost
        return Early(None, None, None, data)
    if early.params is not None:
        finish = meanwhile() if meanwhile is not None else None
        try:
            _answer_session(early, agent, facts, options, fd_in, fd_out)
            if early.session is not None and on_session is not None:
                try:
                    on_session(early.session)
                except Exception:  # noqa: BLE001 - both answers are written: what was read must reach the server
                    pass
        finally:
            if finish is not None:
                finish()
    return early


def _answer_session(
    early: Early, agent: str, facts: dict[str, Any], options: dict[str, str], fd_in: int, fd_out: int
) -> None:
    """Read the message after ``initialize`` into ``early.leftover``, and answer it when it is a ``session/new``
    the launcher can answer (:mod:`acp_mux.launcher.early_session`)."""
    try:
        early.leftover = read_first_line(fd_in, early.leftover)
    except OSError:
        return  # the server reads on and meets the same error
    line, newline, rest = early.leftover.partition(b"\n")
    message = _request(line, "session/new") if newline else None
    if message is None:
        return
    try:
        from acp_mux.launcher.early_session import answer_new_session

        early.session = answer_new_session(message, agent, facts, options, fd_out)
    except Exception:  # noqa: BLE001 - unanswered, the request goes to the server as it came
        early.session = None
    if early.session is not None:
        early.leftover = rest


def _answer(data: bytes, agent: str, facts: dict[str, Any], binary: str | None, fd_out: int) -> Early:
    line, newline, rest = data.partition(b"\n")
    message = _initialize_request(line) if newline else None
    if message is None:
        return Early(None, None, None, data)
    params = message["params"]
    client_caps = params.get("clientCapabilities") or {}  # (they fit the model: an object, or null)
    from acp_mux.version import __version__
    from acp_mux.server.wire.self_command import own_command

    result = initialize_result(
        params["protocolVersion"],
        client_caps,
        facts["caps"],
        [(agent, facts["display_name"], facts["auth_hint"], binary)] if facts["login"] else [],
        f"acp-mux: {facts['display_name']}",
        own_command(),
        __version__,
        (agent, facts["display_name"], facts["auth_hint"]),
    )
    reply = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}, separators=(",", ":"))
    os.write(fd_out, reply.encode() + b"\n")
    return Early(params, message["id"], result, rest)


def _request(line: bytes, method: str) -> dict[str, Any] | None:
    """``line`` as a JSON-RPC request for ``method`` with an object of params, or None (the server answers it)."""
    if _SURROGATE_ESCAPE.search(line):
        return (
            None  # the server's parser repairs lone surrogates (acp_mux.core.text.safe); it answers such a line itself
        )
    try:
        # as strict as the server's parser (acp_mux.core.text.safe.loads) or stricter: UTF-8 only (no BOM, no UTF-16,
        # which json.loads would guess from bytes), no NaN, Infinity or number that overflows to one
        message = _STRICT_JSON.decode(line.decode("utf-8"))
    except (ValueError, RecursionError):  # not JSON, or nested too deep to parse: the server answers it
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or message.get("method") != method:
        return None
    request_id = message.get("id")
    if not isinstance(request_id, (int, str)) or isinstance(request_id, bool):
        return None
    if not isinstance(message.get("params"), dict):
        return None
    return message


def _initialize_request(line: bytes) -> dict[str, Any] | None:
    message = _request(line, "initialize")
    if message is None or not initialize_params_fit(message["params"]):
        return None  # the server's -32602 names what does not fit
    return message


def _finite(literal: str) -> float:
    number = float(literal)
    if number - number != 0.0:  # inf or nan (math is one more import)
        raise ValueError("not a finite number")
    return number


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_STRICT_JSON = json.JSONDecoder(parse_float=_finite, parse_constant=_no_constant)


# ── the snapshot ───────────────────────────────────────────────────────────────────────────────────────────────
def current_facts() -> dict[str, Any]:
    """The facts as the registry and the adapters state them now (imports every adapter: tests and tools only)."""
    from acp_mux.adapters.registry import ENTRIES
    from acp_mux.adapters.base import get_adapter

    out: dict[str, Any] = {}
    for name in ENTRIES:
        entry = ENTRIES[name]
        if not entry.supported:
            continue
        adapters = {transport: get_adapter(name, transport) for transport in entry.transports}
        first = next(iter(adapters.values()))
        out[name] = {
            "display_name": first.display_name,
            "auth_hint": first.auth_hint,
            "login": bool(first.login_args),
            "default_transport": entry.default_transport,
            "transports": {
                transport: caps_of(
                    adapter.capabilities, takes_extra_directories(adapter), bool(adapter.logout_args), adapter.steers
                )
                for transport, adapter in adapters.items()
            },
            "sessions": {transport: session_facts(adapter) for transport, adapter in adapters.items()},
            # "" for the bundled demo agent, which runs on the interpreter running acp-mux (a path of this machine)
            "binary": {
                "name": "" if entry.binary == sys.executable else entry.binary,
                "env_var": entry.bin_env_var,
                "alt": entry.alt_binary,
                "alt_target": entry.alt_binary_target,
            },
        }
    return out


def takes_extra_directories(adapter: Any) -> bool:
    """Whether the adapter gives an agent extra workspace roots (its ``extra_directory_args`` hook)."""
    return adapter.extra_directory_args(["/"]) is not None


def caps_of(
    capabilities: Any, extra_dirs: bool = False, logout: bool = False, steering: bool = False
) -> dict[str, bool]:
    """The capabilities ``initialize`` reports, from an adapter's :class:`AgentCapabilities`, its hook for extra
    workspace roots (:func:`takes_extra_directories`), whether ``logout`` is served for it and whether it steers
    (``AgentAdapter.steers``)."""
    return {
        "extra_dirs": extra_dirs,
        "logout": logout,
        "images": capabilities.supports_images,
        "audio": capabilities.supports_audio,
        "embedded_context": capabilities.supports_embedded_context,
        "mcp_http": capabilities.supports_mcp_http,
        "mcp_sse": capabilities.supports_mcp_sse,
        "steering": steering,
    }


def session_facts(adapter: Any) -> dict[str, Any]:
    """What a new session starts with (:func:`acp_mux.server.wire.settings_shapes.starting_settings`)."""
    from acp_mux.server.sessions.session_settings import mode_dicts

    return {"modes": mode_dicts(adapter.modes), "models": list(adapter.models), "default_mode": adapter.default_mode}


def facts_text() -> str:
    return json.dumps(current_facts(), indent=1, sort_keys=True) + "\n"


def write_facts(path: str = FACTS_FILE) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(facts_text())


if __name__ == "__main__":
    write_facts()
    print(f"wrote {FACTS_FILE}", file=sys.stderr)

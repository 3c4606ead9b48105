"""The agent table: one row per agent, the only place acp-mux learns which agents exist and how to reach them.

The server, ``doctor``, ``--help``, the README's agents table and the ACP-registry entries (``tools/sync_agents.py``)
all read these rows, so adding an agent is one adapter module plus one :class:`AgentEntry` here. Adapter classes
carry only their ``name``; everything a user needs before the first run (binary, package, login, keys) is here.

Adapters are imported on first use, so starting the bridge for one agent never imports the other nine.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping


ASKABLE = ("writes", "edits", "commands", "fetches")  # what an agent can ask the person before, in this order
# The programs codex (codex-rs shell-command is_safe_command.rs) and gemini (its shell tool's isSafeToCallWithExec)
# run without asking as read-only, the same list in both (inside the workspace for gemini; codex adds find, rg,
# base64 and `sed -n Np` when their options write nothing).
READ_ONLY_PROGRAMS = (
    "ls",
    "cat",
    "grep",
    "echo",
    "cd",
    "cut",
    "expr",
    "false",
    "head",
    "id",
    "nl",
    "paste",
    "pwd",
    "rev",
    "seq",
    "stat",
    "tail",
    "tr",
    "true",
    "uname",
    "uniq",
    "wc",
    "which",
    "whoami",
    "numfmt",
    "tac",
)


@dataclass(frozen=True)
class Asking:
    """What an agent asks the person before, in the mode a new session starts in, and how to let it run unasked.

    acp-mux's promise is that nothing is written or run without the person unless they chose a mode that says so;
    this is where each agent's side of that promise is written down, for ``doctor`` and the README, and the
    write-then-edit end-to-end tests hold the real CLIs to it.
    """

    mode: str  # the mode a new session starts in ("" = the agent's own default, which it reports)
    asks: tuple[str, ...]  # what that mode asks before (of ASKABLE)
    through: str  # whose asking it is: the agent's own approvals, or acp-mux's
    unasked: str = ""  # the --mode (or setting) that runs without asking; "" = none is offered
    limits: str = ""  # what still runs unasked in the default mode, or when it does not ask at all
    # commands the agent runs unasked by its own list of read-only programs, though it asks before commands
    unasked_programs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = [what for what in self.asks if what not in ASKABLE]
        if unknown:
            raise ValueError(f"Asking.asks names {unknown}; choose from {ASKABLE}")

    @property
    def text(self) -> str:
        """What it asks before, where, and how to turn that off: ``doctor``'s "asks" line and the README's "asks"
        column ("before writes, edits and commands in mode `ask` (…); without asking: `--mode full-access`")."""
        asks = [what for what in ASKABLE if what in self.asks]
        before = ", ".join(asks[:-1]) + f" and {asks[-1]}" if len(asks) > 1 else "".join(asks)
        where = f"in mode `{self.mode}`" if self.mode else "in its own default mode"
        said = f"before {before} {where} ({self.through})" if asks else f"before nothing {where}"
        if self.unasked_programs:
            said += f"; commands its own list deems read-only ({', '.join(self.unasked_programs[:4])} …) run unasked"
        if self.limits:
            said += f"; {self.limits}"
        unasked = f"without asking: {self.unasked}" if self.unasked else "no mode runs without asking"
        return f"{said}; {unasked}"


@dataclass(frozen=True)
class AgentEntry:
    """Everything about one agent that is true before any process runs."""

    name: str  # the --agent NAME
    display_name: str
    binary: str  # the executable looked up on PATH (ACP_MUX_<NAME>_BIN / --agent-bin override it)
    package: str  # where it comes from: npm or PyPI package name ("" when bundled)
    install_hint: str  # one command that installs it
    requires: str = ""  # what that command needs besides npm/pip, e.g. "bun >= 1.3.14"
    # The agent's own terminal sign-in (`acp-mux --agent NAME --login` runs `<binary> *login_args`); () = none.
    login_args: tuple[str, ...] = ()
    # The agent's own sign-out, run without a terminal for ACP's ``logout`` (`<binary> *logout_args`); () = none.
    logout_args: tuple[str, ...] = ()
    auth_env: tuple[str, ...] = ()  # variables that authenticate without a login, first = the usual one
    auth_hint: str = ""  # one sentence: how to authenticate
    # Files the agent's own login leaves behind (``~`` and ``${VAR:-default}`` expand); doctor reports
    # "login found" only when one exists. Logins kept in a keychain are not seen: doctor says "not checked".
    login_files: tuple[str, ...] = ()
    # Transport name -> "module:Class", in order; the first is the default. Empty: not supported yet.
    transports: Mapping[str, str] = field(default_factory=dict, hash=False)
    tested_version: str = ""  # the CLI version the end-to-end tests pin ("" = none yet)
    # Said wherever the tested version would be, for an agent never run for real here (cursor: not installable).
    untested: str = ""
    # A second executable name, accepted only when it resolves to a file named ``alt_binary_target`` (cursor's
    # installer links ``agent`` → …/cursor-agent; a bare ``agent`` could be anything, so it is never run to ask).
    alt_binary: str = ""
    alt_binary_target: str = ""
    status: str = ""  # one line: what works through acp-mux
    # The agent's own controls an editor gets through acp-mux (read from the agent at session start), for the tables
    controls: str = ""
    asking: Asking | None = None  # what a new session asks before (None: not supported yet, nothing runs)

    def __post_init__(self) -> None:
        object.__setattr__(self, "transports", MappingProxyType(dict(self.transports)))

    @property
    def install_text(self) -> str:
        """The install command with what it needs, for messages."""
        if not self.install_hint:
            return "bundled with acp-mux"
        return f"`{self.install_hint}`" + (f" (needs {self.requires})" if self.requires else "")

    @property
    def supported(self) -> bool:
        return bool(self.transports)

    @property
    def default_transport(self) -> str | None:
        return next(iter(self.transports), None)

    @property
    def bin_env_var(self) -> str:
        return f"ACP_MUX_{self.name.upper()}_BIN"

    @property
    def transport_env_var(self) -> str:
        return f"ACP_MUX_{self.name.upper()}_TRANSPORT"

    @property
    def login_command(self) -> str | None:
        """The one command that signs this agent in from a terminal (what ACP terminal auth runs)."""
        return f"acp-mux --agent {self.name} --login" if self.login_args else None

    def existing_login_file(self, env: Mapping[str, str] | None = None) -> str | None:
        """The first of :attr:`login_files` present on this machine (None: none found, or none known)."""
        env = os.environ if env is None else env
        for pattern in self.login_files:
            path = expand_path(pattern, env)
            if path and os.path.isfile(path):
                return path
        return None


_DEFAULT_VAR = re.compile(r"\$\{(\w+):-([^}]*)\}")


def expand_path(pattern: str, env: Mapping[str, str]) -> str:
    """``${VAR:-default}`` and a leading ``~`` (from ``env``'s HOME), the two forms :attr:`login_files` use."""
    text = _DEFAULT_VAR.sub(lambda m: env.get(m.group(1)) or m.group(2), pattern)
    if text.startswith("~"):
        home = env.get("HOME") or os.path.expanduser("~")
        text = home + text[1:]
    return text


# ── the table ─────────────────────────────────────────────────────────────────────────────────────────────────
# Rows for agents without transports are placeholders: --agent names them and says "not supported yet".

_ROWS: tuple[AgentEntry, ...] = (
    AgentEntry(
        name="claude",
        display_name="Claude Code",
        binary="claude",
        package="@anthropic-ai/claude-code",
        install_hint="npm install -g @anthropic-ai/claude-code",
        login_args=("auth", "login"),  # Claude's own terminal sign-in (browser OAuth; `--console` for API billing)
        logout_args=("auth", "logout"),  # claude auth --help: "Log out from your Anthropic account"
        auth_env=("ANTHROPIC_API_KEY",),
        auth_hint="Set ANTHROPIC_API_KEY in the agent's environment, or sign in with Claude's own login.",
        login_files=("${CLAUDE_CONFIG_DIR:-~/.claude}/.credentials.json",),
        transports={"stream-json": "acp_mux.adapters.stream_agents.claude:ClaudeAdapter"},
        tested_version="2.1.332",
        controls="models, modes (with `auto`), effort, Fast mode and ultracode, read from the CLI; its slash commands; steering",
        status="works: permissions (with edited input), interrupt, modes incl. plan (read-only, enforced), "
        "slash commands, MCP servers from session/new",
        asking=Asking(
            "default",
            ("writes", "edits", "commands"),
            "Claude's own permission prompts",
            unasked="`--mode bypassPermissions` (`acceptEdits`: edits unasked, commands still ask)",
        ),
    ),
    AgentEntry(
        name="codex",
        display_name="Codex",
        binary="codex",
        package="@openai/codex",
        install_hint="npm install -g @openai/codex",
        login_args=("login",),
        logout_args=("logout",),  # codex logout --help: "Remove stored authentication credentials"
        auth_env=("OPENAI_API_KEY",),
        auth_hint="Set OPENAI_API_KEY in the agent's environment, or sign in with `codex login`.",
        login_files=("${CODEX_HOME:-~/.codex}/auth.json",),
        transports={
            "app-server": "acp_mux.adapters.rpc_agents.codex:CodexAdapter",
            "exec": "acp_mux.adapters.stream_agents.codex_exec:CodexExecAdapter",
        },
        tested_version="0.169.0",
        controls="models (`model/list`), reasoning effort, Fast mode, plan mode; its slash commands (`/review`, `/compact`, `/status`, …); steering; extra roots",
        status="works: approvals for commands and file changes, diffs, plans, usage, interrupt, MCP servers; "
        "`--transport exec` (one `codex exec --json` per turn, no approvals) for a codex without app-server",
        asking=Asking(
            "ask",
            ("writes", "edits", "commands"),
            "codex's approvals, policy untrusted",
            unasked="`--mode full-access` (`auto`: unasked inside the workspace)",
            limits="`--transport exec` asks nothing",
            unasked_programs=(*READ_ONLY_PROGRAMS, "find", "rg", "base64", "sed"),
        ),
    ),
    AgentEntry(
        name="gemini",
        display_name="Gemini CLI",
        binary="gemini",
        package="@google/gemini-cli",
        install_hint="npm install -g @google/gemini-cli",
        login_args=("-i", "/auth"),  # gemini's interactive /auth dialog: Google sign-in, API key or Vertex AI
        auth_env=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        auth_hint="Set GEMINI_API_KEY in the agent's environment, or sign in through gemini's own /auth dialog.",
        login_files=("~/.gemini/oauth_creds.json",),
        transports={"acp": "acp_mux.adapters.acp_agents.gemini:GeminiAdapter"},
        tested_version="0.61.0",
        controls="its own modes, models and settings, as it reports them; its slash commands",
        status="works through its own ACP mode: permissions, diffs, plans, modes and models from gemini, "
        "cancel, resume",
        asking=Asking(
            "default",
            ("writes", "edits", "commands"),
            "gemini's own permission requests",
            unasked="`--mode yolo` (`autoEdit`: edits unasked)",
            unasked_programs=READ_ONLY_PROGRAMS,
        ),
    ),
    AgentEntry(
        name="copilot",
        display_name="GitHub Copilot CLI",
        binary="copilot",
        package="@github/copilot",
        install_hint="npm install -g @github/copilot",
        login_args=("login",),  # GitHub device-flow sign-in (what copilot's own ACP terminal-auth method runs)
        auth_env=("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "COPILOT_PROVIDER_API_KEY"),
        auth_hint="Sign in with `copilot login` (GitHub), set COPILOT_GITHUB_TOKEN (or GH_TOKEN) in the agent's "
        "environment, or use your own model provider with COPILOT_PROVIDER_BASE_URL and COPILOT_PROVIDER_API_KEY.",
        transports={"acp": "acp_mux.adapters.acp_agents.copilot:CopilotAdapter"},
        tested_version="1.0.102",
        controls="its own modes, models and settings, as it reports them; its slash commands",
        status="works through its own ACP mode (`copilot --acp --stdio`): permissions for edits and commands "
        "(mode agent asks; autopilot and allow_all are never the default), diffs, modes agent/plan/autopilot, "
        "cancel (also while asking), resume through session/load; 401/429 become typed errors; "
        "no model list with a custom provider",
        asking=Asking(
            "agent", ("writes", "edits", "commands"), "copilot's own permission requests", unasked="`--mode autopilot`"
        ),
    ),
    AgentEntry(
        name="cursor",
        display_name="Cursor Agent",
        binary="cursor-agent",
        package="",
        install_hint="curl https://cursor.com/install -fsS | bash",
        login_args=("login",),  # cursor-agent's own browser sign-in
        auth_env=("CURSOR_API_KEY",),
        auth_hint="Set CURSOR_API_KEY in the agent's environment, or sign in with `cursor-agent login`.",
        # where cursor-agent login keeps its tokens (Linux, macOS with the file store; else the macOS keychain)
        login_files=("~/.config/cursor/auth.json", "~/.cursor/auth.json"),
        transports={"acp": "acp_mux.adapters.acp_agents.cursor:CursorAdapter"},
        untested="untested against the real CLI: tested against a replayed transcript",
        alt_binary="agent",
        alt_binary_target="cursor-agent",
        controls="its own modes, models and settings, as it reports them; its slash commands",
        status="untested against the real CLI: tested against a replayed transcript (Cursor's documented ACP "
        "mode): permissions, questions (cursor/ask_question) as choice dialogs, plans and todos, subagent tasks, "
        "cancel, resume; sign-in errors become typed auth errors",
        asking=Asking(
            "agent",
            ("writes", "edits", "commands"),
            "Cursor's own permission requests, as documented",
            limits="untested against the real CLI",
        ),
    ),
    AgentEntry(
        name="opencode",
        display_name="OpenCode",
        binary="opencode",
        package="opencode-ai",
        install_hint="npm install -g opencode-ai",
        login_args=("auth", "login"),  # opencode's own provider sign-in (keys and OAuth go to its auth.json)
        auth_env=("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"),
        auth_hint="Sign in with `opencode auth login` (or `acp-mux --agent opencode --login`), or set your "
        "provider's API key (e.g. ANTHROPIC_API_KEY) in the agent's environment.",
        login_files=("${XDG_DATA_HOME:-~/.local/share}/opencode/auth.json",),
        transports={"acp": "acp_mux.adapters.acp_agents.opencode:OpencodeAdapter"},
        tested_version="1.18.33",
        controls="its own modes, models and settings, as it reports them; its slash commands",
        status="works through its own ACP mode, started with acp-mux's asking permission rules "
        "(OPENCODE_CONFIG_CONTENT; your config files untouched): permissions for edits, commands and fetches, "
        "diffs, modes build (asks) / plan / allow-all, models, images, cancel, resume; 401/429 become typed errors",
        asking=Asking(
            "build",
            ("writes", "edits", "commands", "fetches"),
            "acp-mux's asking rules in opencode's config",
            unasked="`--mode allow-all`",
        ),
    ),
    AgentEntry(
        name="pi",
        display_name="pi",
        binary="pi",
        package="@mariozechner/pi-coding-agent",
        install_hint="npm install -g @mariozechner/pi-coding-agent",
        # pi signs in only inside its own TUI (its /login command; `pi /login` would send "/login" as a prompt), so
        # the terminal login opens that TUI without saving a session, and the hint says to type /login there.
        login_args=("--no-session",),
        auth_env=("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"),
        auth_hint="Set your provider's API key (e.g. ANTHROPIC_API_KEY) in the agent's environment, "
        "or sign in inside pi: its terminal login opens pi, where you type /login.",
        transports={"rpc": "acp_mux.adapters.rpc_agents.pi:PiAdapter"},
        tested_version="0.73.1",
        controls="its models and thinking level; its slash commands; steering",
        status="works through `pi --mode rpc`: permissions from acp-mux's own pi extension (ask, accept edits, "
        "bypass; without it, the session says pi does not ask), diffs, live command output, usage and cost, "
        "models from pi, cancel, resume",
        asking=Asking(
            "ask",
            ("writes", "edits", "commands"),
            "acp-mux's pi extension",
            unasked="`--mode bypass` (`accept-edits`: edits unasked)",
            limits="without the extension pi asks nothing, and the session says so",
        ),
    ),
    AgentEntry(
        name="omp",
        display_name="oh-my-pi",
        binary="omp",
        package="@oh-my-pi/pi-coding-agent",
        install_hint="npm install -g @oh-my-pi/pi-coding-agent",
        requires="bun >= 1.3.14",
        # No terminal sign-in command: omp signs in with /login inside its interactive TUI, or takes provider keys.
        auth_env=("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"),
        auth_hint="Set your provider's API key (e.g. ANTHROPIC_API_KEY or OPENAI_API_KEY) in the agent's "
        "environment, add a provider to ~/.omp/agent/models.yml, or sign in with /login in `omp`'s interactive mode.",
        transports={"acp": "acp_mux.adapters.acp_agents.omp:OmpAdapter"},
        tested_version="18.2.3",
        controls="its own modes, models and settings, as it reports them; its slash commands",
        status="works through its own ACP mode (started with --approval-mode always-ask): permissions for "
        "commands and, through form elicitations, for writes and edits (diffs), modes, model and thinking "
        "settings, images (omp sends them as WebP), cancel, resume; 401/429 become typed errors",
        asking=Asking("default", ("writes", "edits", "commands"), "omp started with --approval-mode always-ask"),
    ),
    AgentEntry(
        name="openclaw",
        display_name="OpenClaw",
        binary="openclaw",
        package="openclaw",
        install_hint="npm install -g openclaw",
        requires="Node >= 24.16",
        # No terminal login: `openclaw onboard` keeps keys in auth profiles in the person's own state directory,
        # which the private gateway (its own state) does not read. Keys come from the config or the environment.
        login_files=("${OPENCLAW_CONFIG_PATH:-~/.openclaw/openclaw.json}",),
        auth_env=("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"),
        auth_hint="Configure a model provider in OpenClaw's config (~/.openclaw/openclaw.json) with its key in the "
        "config or in the agent's environment (keys `openclaw onboard` keeps in OpenClaw's own state are not seen "
        "by acp-mux's private gateway).",
        transports={
            "acp": "acp_mux.adapters.acp_agents.openclaw.adapter:OpenclawAdapter",
            "exec": "acp_mux.adapters.acp_agents.openclaw.exec_transport:OpenclawExecAdapter",
        },
        tested_version="2026.9.6",
        controls="its own modes, models and settings, as it reports them; its slash commands",
        status="works through `openclaw acp` on one private gateway per user, shared by every acp-mux window "
        "(loopback, token, its port's listener checked before the token is sent, its own state; stopped "
        "`ACP_MUX_OPENCLAW_GRACE_S` (15) s after the last window leaves, also when windows are killed): "
        "permissions for writes, edits and commands with diffs, tool calls with output and locations, its own "
        "retries of a failing model shown as they happen, cancel, resume after a restart, a provider's 401 as an "
        "auth error. Lost by openclaw's bridge: the text before the first tool call and the thinking. The first "
        "window's first answer takes 35-60 s on two shared cores (about 50 CPU-seconds of OpenClaw's own start-up "
        "and first-turn set-up, not a network wait); a second window's about 5 s; later prompts 1-5 s. The "
        "gateway keeps its own exec approvals and logins (not those in ~/.openclaw). Without a gateway (or "
        "`--transport exec`): one `openclaw agent exec` per message, no streaming, no approvals, no memory "
        "between messages",
        asking=Asking(
            "",
            ("writes", "edits", "commands"),
            "acp-mux's gate plugin in its private gateway before every tool not known to be read-only; "
            "OpenClaw's exec approvals, set to ask there, before commands",
            unasked="`ACP_MUX_OPENCLAW_ASK=bypass` (`accept-edits`: file changes unasked, commands ask)",
            limits="commands your OpenClaw config lists in `tools.exec.safeBins` run unasked; "
            "`--transport exec` asks nothing",
        ),
    ),
    AgentEntry(
        name="hermes",
        display_name="Hermes Agent",
        binary="hermes",
        package="hermes-agent",
        install_hint="pipx install 'hermes-agent[acp]'",
        login_args=("setup",),  # hermes' interactive setup wizard: provider, model and key
        auth_env=("OPENROUTER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"),
        auth_hint="Run hermes' setup (provider, model and key go to ~/.hermes), or set the provider's API key "
        "in the agent's environment.",
        login_files=("${HERMES_HOME:-~/.hermes}/auth.json", "${HERMES_HOME:-~/.hermes}/.env"),
        transports={"acp": "acp_mux.adapters.acp_agents.hermes:HermesAdapter"},
        tested_version="0.19.0",
        controls="its own modes, models and settings, as it reports them; its slash commands",
        status="works through its own ACP mode: questions linked to their tool calls, diffs for edits, "
        "approvals before every command (acp-mux's plugin; dangerous ones also hermes' own), modes and models, images, cancel (also while asking: hermes is restarted), "
        "resume; 401/429 become typed errors; slow first start",
        asking=Asking(
            "default",
            ("writes", "edits", "commands"),
            "hermes' own questions; for commands its patterns do not deem dangerous, through acp-mux's hermes plugin",
            unasked="`--mode dont_ask` (commands hermes' own patterns deem dangerous still ask; "
            "`accept_edits`: workspace edits only)",
            limits="commands run unasked when hermes cannot load that plugin (HERMES_SAFE_MODE, a wrapper "
            "that sets HERMES_BUNDLED_PLUGINS itself, or `acp-mux-asks` in hermes' `plugins.disabled`), "
            "and the session says so at the first one",
        ),
    ),
    AgentEntry(
        name="demo",  # DEMO_AGENT
        display_name="Scripted demo agent",
        binary=sys.executable,  # the bundled agent runs on the Python that runs acp-mux
        package="",
        install_hint="",  # bundled with acp-mux
        auth_hint="No login needed.",
        transports={"scripted": "acp_mux.adapters.stream_agents.scripted:ScriptedAdapter"},
        controls="modes",
        status="bundled scripted agent: streams text and thoughts, writes and edits a file with permission, "
        "runs a shell command; drives `acp-mux demo` and the bridge's own tests",
        asking=Asking(
            "default", ("writes", "edits", "commands"), "the scripted agent's requests", unasked="`--mode bypass`"
        ),
    ),
)

# The bundled scripted agent behind `acp-mux demo` and the bridge's own tests (not one of the ten).
DEMO_AGENT = "demo"
ENTRIES: Mapping[str, AgentEntry] = MappingProxyType({row.name: row for row in _ROWS})
AGENT_NAMES: tuple[str, ...] = tuple(row.name for row in _ROWS if row.name != DEMO_AGENT)


def entry(name: str) -> AgentEntry:
    """The row for ``name``; :class:`UnknownAgent` when there is none."""
    row = ENTRIES.get(name)
    if row is None:
        raise UnknownAgent(name)
    return row


def transports(name: str) -> tuple[str, ...]:
    """The transports an agent can be run with; the first is the default."""
    row = ENTRIES.get(name)
    return tuple(row.transports) if row else ()


class UnknownAgent(LookupError):
    def __init__(self, name: str) -> None:
        super().__init__(f"unknown agent {name!r}; choose one of: {', '.join(AGENT_NAMES)} (or {DEMO_AGENT})")


class AgentNotAvailable(LookupError):
    """A known agent this version cannot run: no adapter yet, or no such transport."""


def locate_binary(
    row: AgentEntry, override: str | None = None, env: Mapping[str, str] | None = None
) -> tuple[str | None, str | None]:
    """(absolute path, None) when the agent's executable is found, else (None, what is wrong and how to fix it).

    The order is the one the run uses: ``--agent-bin``, then ``ACP_MUX_<NAME>_BIN``, then ``binary`` on PATH.
    A set-but-wrong override is reported as such: it would otherwise look like "not installed".
    """
    env = os.environ if env is None else env
    search = env.get("PATH")
    if override:
        found = shutil.which(override, path=search)
        return (os.path.abspath(found), None) if found else (None, f"--agent-bin {override} is not an executable file")
    configured = env.get(row.bin_env_var)
    if configured:
        found = shutil.which(configured, path=search)
        if found:
            return os.path.abspath(found), None
        return None, f"{row.bin_env_var} is set to {configured}, which is not an executable file"
    found = shutil.which(row.binary, path=search)
    if found:
        return os.path.abspath(found), None
    if row.alt_binary:
        alt = shutil.which(row.alt_binary, path=search)
        if alt and os.path.basename(os.path.realpath(alt)) == row.alt_binary_target:
            return os.path.abspath(alt), None
        if alt:
            return None, (
                f"{row.binary} not found on PATH ({alt} is not a link to {row.alt_binary_target}, "
                "so it is not taken for it)"
            )
        return None, f"neither {row.binary} nor {row.alt_binary} found on PATH"
    return None, f"{row.binary} not found on PATH"


def missing_binary_help(row: AgentEntry, problem: str) -> str:
    """The whole message for an agent whose executable is missing: what, how to install, how to point at it."""
    return (
        f"{row.display_name} cannot start: {problem}. Install it with {row.install_text}, "
        f"or set {row.bin_env_var}=/path/to/{row.binary} (or pass --agent-bin) in the editor's config for acp-mux. "
        f"`acp-mux doctor {row.name}` checks the setup."
    )

"""``acp-mux demo [PROMPT]``: the real bridge, end to end, with the bundled scripted agent and a small terminal client.

It spawns ``acp-mux --agent demo`` exactly as an editor would, drives it with the official ACP SDK's client side,
and renders the conversation: streamed thoughts and text, tool calls with their diffs and output, the permission
prompt (answered from the keyboard, or "allow once" when stdin is not a terminal), and the stop reason.

What a person at a terminal expects, and the tests check through a PTY: a prompt that takes only its choices (Enter
= the default shown), Ctrl-C that ends everything at once without a traceback (status 130), no crash when stdin is
closed, nothing left behind in the temporary folder, shell output without Markdown fences.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import tempfile
from typing import TYPE_CHECKING, Any, Sequence, TypeAlias, cast

from acp_mux.cli.plain_client import PlainClient

if TYPE_CHECKING:  # the SDK loads only when the demo runs (it is no dependency of the bridge's start-up path)
    import acp
    from acp.schema import (
        AgentMessageChunk,
        AgentPlanContentUpdate,
        AgentPlanRemovedUpdate,
        AgentPlanUpdate,
        AgentThoughtChunk,
        AvailableCommandsUpdate,
        ConfigOptionUpdate,
        CurrentModeUpdate,
        PermissionOption,
        RequestPermissionResponse,
        SessionInfoUpdate,
        ToolCallProgress,
        ToolCallStart,
        ToolCallUpdate,
        UsageUpdate,
        UserMessageChunk,
    )

    SessionUpdate: TypeAlias = (
        UserMessageChunk
        | AgentMessageChunk
        | AgentThoughtChunk
        | ToolCallStart
        | ToolCallProgress
        | AgentPlanUpdate
        | AgentPlanContentUpdate
        | AgentPlanRemovedUpdate
        | AvailableCommandsUpdate
        | CurrentModeUpdate
        | ConfigOptionUpdate
        | SessionInfoUpdate
        | UsageUpdate
    )

DEMO_PROMPT = "Please write the demo notes file, then fix its second line."
INTERRUPTED = 130  # the shell's status for a program ended by Ctrl-C (128 + SIGINT)
_STYLES = {"dim": "2", "bold": "1", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
_FENCE = re.compile(r"\A(`{3,})[\w-]*\n(.*)\n\1\Z", re.DOTALL)


def _colors_wanted() -> bool:
    """Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _stdin_is_terminal() -> bool:
    """False for a pipe, /dev/null, or a closed stdin (``<&-``: ``sys.stdin`` is then None)."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):
        return False


def style(name: str, text: str, enabled: bool) -> str:
    return f"\033[{_STYLES[name]}m{text}\033[0m" if enabled else text


def unfence(text: str) -> str:
    """Shell output arrives as a Markdown code block (for editors that render Markdown); a terminal shows it bare."""
    match = _FENCE.match(text)
    return match.group(2) if match else text


def choose(answer: str, count: int, default: int = 1) -> int | None:
    """The option an answer picks (1-based): Enter takes ``default``; anything but a listed number is None."""
    answer = answer.strip()
    if not answer:
        return default
    return int(answer) if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= count else None


async def read_line(prompt: str) -> str | None:
    """One line from the terminal without a thread (a thread blocked in ``input()`` would keep Ctrl-C waiting for
    Enter); None at end of input."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[bytes] = loop.create_future()

    def on_readable() -> None:
        if not ready.done():
            try:
                ready.set_result(os.read(0, 4096))
            except OSError:
                ready.set_result(b"")

    loop.add_reader(0, on_readable)
    try:
        data = await ready
    finally:
        loop.remove_reader(0)
    return data.decode(errors="replace") if data else None


class TerminalClient(PlainClient):
    def __init__(self, interactive: bool, colors: bool = False) -> None:
        self.interactive = interactive
        self.colors = colors
        self._last = ""

    def _c(self, name: str, text: str) -> str:
        return style(name, text, self.colors)

    def _print(self, kind: str, text: str) -> None:
        if kind != self._last:
            sys.stdout.write("\n" + ("[thinking] " if kind == "thought" else ""))
            self._last = kind
        sys.stdout.write(self._c("dim", text) if kind == "thought" else text)
        sys.stdout.flush()

    async def session_update(self, session_id: str, update: SessionUpdate, **kwargs: Any) -> None:
        from acp import schema

        match update:
            case schema.AgentThoughtChunk(content=schema.TextContentBlock(text=text)):
                self._print("thought", text)
            case schema.AgentMessageChunk(content=schema.TextContentBlock(text=text)):
                self._print("text", text)
            case schema.ToolCallStart():
                self._print("tool", self._c("cyan", f"● {update.title} [{update.kind}]") + "\n")
            case schema.ToolCallProgress():
                self._tool_progress(update)
            case schema.AgentPlanUpdate():
                marks = {"completed": "x", "in_progress": "~", "pending": " "}
                entries = "  ".join(f"[{marks[e.status]}] {e.content}" for e in update.entries)
                self._print("tool", "  plan: " + entries + "\n")

    def _tool_progress(self, update: ToolCallProgress) -> None:
        """A tool call moved on: its diffs in colour, its output once it has finished, then how it ended."""
        from acp import schema

        done = update.status in ("completed", "failed")
        for content in update.content or []:
            if isinstance(content, schema.FileEditToolCallContent):
                self._print("tool", f"  diff {os.path.basename(content.path)}:\n")
                for line in (content.old_text or "").splitlines():
                    self._print("tool", self._c("red", f"  - {line}") + "\n")
                for line in content.new_text.splitlines():
                    self._print("tool", self._c("green", f"  + {line}") + "\n")
            elif isinstance(content, schema.ContentToolCallContent) and done:
                text = content.content.text if isinstance(content.content, schema.TextContentBlock) else ""
                for line in unfence(text).splitlines():
                    self._print("tool", self._c("dim", "  │ ") + line + "\n")
        if done:
            self._print("tool", f"  → {update.status}\n")

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **kwargs: Any
    ) -> RequestPermissionResponse:
        from acp.schema import AllowedOutcome, RequestPermissionResponse

        self._print("tool", self._c("yellow", f"  ? permission for {tool_call.title or tool_call.tool_call_id}") + "\n")
        for index, option in enumerate(options, 1):
            self._print("tool", f"    {index}. {option.name}\n")
        if not self.interactive:
            self._print("tool", "    (not a terminal: choosing 1)\n")
            return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=options[0].option_id))
        choice = await self._ask(len(options))
        if choice is None:  # end of input: the safe answer
            choice = next((i for i, o in enumerate(options, 1) if o.kind == "reject_once"), len(options))
            self._print("tool", f"    (no answer: choosing {choice})\n")
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=options[choice - 1].option_id)
        )

    async def _ask(self, count: int) -> int | None:
        """Ask until the answer is one of the choices; None when input ends."""
        prompt = f"    choose 1-{count} [1]: "
        while True:
            answer = await read_line(prompt)
            if answer is None:
                sys.stdout.write("\n")
                return None
            choice = choose(answer, count)
            if choice is not None:
                return choice
            prompt = f"    please type a number from 1 to {count} (Enter = 1): "


async def _demo(prompt: str, workdir: str) -> int:
    import acp

    env = dict(os.environ, ACP_MUX_STATE_DIR=os.path.join(workdir, ".state"))
    colors = _colors_wanted()
    client = TerminalClient(interactive=_stdin_is_terminal(), colors=colors)
    print(f"acp-mux demo — the bridge runs the bundled scripted agent in {workdir} (removed at the end)")
    async with acp.spawn_agent_process(
        # Errors only: a warning such as "the client has gone away" after Ctrl-C is noise in a terminal.
        # A cast, not a subclass of acp.Client: the methods the demo leaves out must answer "method not found"
        # (PlainClient says why), so TerminalClient cannot satisfy the whole protocol.
        cast("acp.Client", client),
        sys.executable,
        "-m",
        "acp_mux",
        "--agent",
        "demo",
        "--log-level",
        "ERROR",
        env=env,
        cwd=workdir,
        transport_kwargs={"stderr": None},
    ) as (conn, _proc):
        init = await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=workdir, mcp_servers=[])
        name = (init.agent_info.title or init.agent_info.name) if init.agent_info else "the agent"
        print(f"connected to {name}; session {session.session_id}\n\n> {prompt}")
        result = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block(prompt)])
    print("\n\n" + style("bold", f"stop reason: {result.stop_reason}", colors))
    notes = os.path.join(workdir, "notes.txt")
    if os.path.exists(notes):
        with open(notes) as f:
            print(f"notes.txt now reads:\n{f.read()}")
    return 0 if result.stop_reason == "end_turn" else 1


def run_demo(argv: Sequence[str]) -> int:
    prompt = " ".join(argv) or DEMO_PROMPT
    with tempfile.TemporaryDirectory(prefix="acp-mux-demo-") as workdir:
        try:
            return asyncio.run(_demo(prompt, workdir))
        except KeyboardInterrupt:
            # asyncio.run already cancelled the turn and closed the bridge's stdin (the bridge then stops its agent).
            sys.stdout.write("\n")
            return INTERRUPTED

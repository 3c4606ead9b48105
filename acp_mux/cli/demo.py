"""``acp-mux demo [PROMPT]``: the real bridge, end to end, with the bundled scripted agent and a small terminal client.

It spawns ``acp-mux --agent demo`` exactly as an editor would, drives it with the official ACP SDK's client side,
and renders the conversation: streamed thoughts and text, tool calls with their diffs and output, the permission
prompt, and how the turn ended.

What a person expects, and the tests check through a PTY and through pipes: a prompt that takes only its choices
(Enter = the default shown; ``y``/``n`` where exactly one option allows or rejects once), answers piped in read the
same way as typed ones (``printf '3\\n' | acp-mux demo`` rejects), the safe answer (reject) when input ends or there is
none (nothing is allowed without the person), Ctrl-C that ends everything at once without a traceback (status 130),
an exit status that says how the turn ended (:data:`EXIT_CODES`), nothing left behind in the temporary folder, shell
output without Markdown fences.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import signal
import sys
import tempfile
from typing import TYPE_CHECKING, Any, Sequence, TypeAlias, cast

from acp_mux.cli.plain_client import PlainClient
from acp_mux.cli.terminal import field, fill
from acp_mux.core.text.visible import visible

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
FINISHED, STOPPED_SHORT, USAGE, FAILED = 0, 1, 2, 3
EXIT_CODES = (
    (FINISHED, "the agent finished its turn (stop reason end_turn)"),
    (STOPPED_SHORT, "the turn stopped short: refusal, max_tokens, max_turn_requests or cancelled"),
    (USAGE, "the command line was wrong"),
    (FAILED, "the prompt failed with an error (e.g. auth): its code and message are printed"),
    (INTERRUPTED, "Ctrl-C"),
)
DEMO_WORDS = (
    ("(none)", "writes notes.txt and edits it, asking before each change, then runs a command"),
    ("shell", "runs a shell command and shows its output as it comes"),
    ("refuse", "the agent refuses: stop reason refusal, exit 1"),
    ("auth", "the agent's sign-in fails: ACP's auth_required error (-32000), exit 3"),
    ("rate", "the provider rate-limits and the agent gives up: the turn fails with the reason, exit 3"),
)
_STYLES = {"dim": "2", "bold": "1", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
_FENCE = re.compile(r"\A(`{3,})[\w-]*\n(.*)\n\1\Z", re.DOTALL)
_YES, _NO = ("y", "yes"), ("n", "no")


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


def shortcuts(kinds: Sequence[str | None]) -> dict[str, int]:
    """``y``/``n`` → the option they pick (1-based), only where that is unambiguous: exactly one option that allows
    once (``y``) or rejects once (``n``). "Always" is never a shortcut: it must be chosen by its number."""
    found: dict[str, int] = {}
    for words, kind in ((_YES, "allow_once"), (_NO, "reject_once")):
        matching = [index for index, k in enumerate(kinds, 1) if k == kind]
        if len(matching) == 1:
            found.update(dict.fromkeys(words, matching[0]))
    return found


def choose(answer: str, kinds: Sequence[str | None], default: int = 1) -> int | None:
    """The option an answer picks (1-based): Enter takes ``default``, a listed number that option, ``y``/``n`` the
    one option that allows or rejects once (:func:`shortcuts`); anything else is None."""
    answer = answer.strip()
    if not answer:
        return default
    if answer.isascii() and answer.isdigit():
        return int(answer) if 1 <= int(answer) <= len(kinds) else None
    return shortcuts(kinds).get(answer.lower())


class LineReader:
    """Lines from stdin, typed at a terminal or piped in, without a thread (a thread blocked in ``input()`` would
    keep Ctrl-C waiting for Enter). Several answers may arrive in one read (``printf '1\\n3\\n'``): they are kept
    and handed out one per question. A terminal or pipe is awaited through the event loop; a regular file (``<
    answers.txt``, ``</dev/null``) cannot be, and never blocks, so it is read directly."""

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._buffer = b""
        # Started with stdin closed (``<&-``), fd 0 is free, and the next pipe opened (the bridge's) may take it:
        # that is no input of the person's, so there is none.
        self._ended = fd == 0 and sys.stdin is None

    async def line(self) -> str | None:
        """The next line without its newline; None at end of input (or when stdin is closed)."""
        while b"\n" not in self._buffer and not self._ended:
            data = await self._read()
            self._ended = not data
            self._buffer += data
        if not self._buffer:
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace")

    async def _read(self) -> bytes:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[bytes] = loop.create_future()

        def on_readable() -> None:
            if not ready.done():
                ready.set_result(self._read_now())

        try:
            loop.add_reader(self._fd, on_readable)
        except (OSError, ValueError):  # a regular file (epoll refuses it) or a closed stdin: reading never blocks
            return self._read_now()
        try:
            return await ready
        finally:
            loop.remove_reader(self._fd)

    def _read_now(self) -> bytes:
        try:
            return os.read(self._fd, 4096)
        except OSError:
            return b""


class TerminalClient(PlainClient):
    def __init__(self, interactive: bool, colors: bool = False, answers: LineReader | None = None) -> None:
        self.interactive = interactive  # answers typed at a terminal (else piped in, and echoed)
        self.colors = colors
        self.answers = answers or LineReader()
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
        kinds = [option.kind for option in options]
        choice = await self._ask(kinds)
        if choice is None:  # end of input, or no input at all: the safe answer, never an allow
            choice = next((i for i, kind in enumerate(kinds, 1) if kind == "reject_once"), len(options))
            self._print("tool", f"    (no answer: choosing {choice})\n")
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=options[choice - 1].option_id)
        )

    async def _ask(self, kinds: Sequence[str | None]) -> int | None:
        """Ask until the answer is one of the choices; None when input ends. An answer that did not come from a
        terminal is echoed, so the transcript shows what was chosen."""
        keys = shortcuts(kinds)
        hint = "".join(f", {word} = {keys[word]}" for word in ("y", "n") if word in keys)
        prompt = f"    choose 1-{len(kinds)}{hint} [1]: "
        while True:
            sys.stdout.write(prompt)
            sys.stdout.flush()
            answer = await self.answers.line()
            if answer is None:
                sys.stdout.write("\n")
                return None
            if not self.interactive:
                sys.stdout.write(visible(answer) + "\n")
            choice = choose(answer, kinds)
            if choice is not None:
                return choice
            prompt = f"    please type a number from 1 to {len(kinds)}{hint} (Enter = 1): "


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
        try:
            result = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block(prompt)])
        except acp.RequestError as exc:  # a typed failure (auth_required, an agent error): said, not a traceback
            print("\n\n" + style("bold", f"the prompt failed: error {exc.code}: {exc}", colors))
            return FAILED
    print("\n\n" + style("bold", f"stop reason: {result.stop_reason}", colors))
    notes = os.path.join(workdir, "notes.txt")
    if os.path.exists(notes):
        with open(notes) as f:
            print(f"notes.txt now reads:\n{f.read()}")
    return FINISHED if result.stop_reason == "end_turn" else STOPPED_SHORT


def build_parser() -> argparse.ArgumentParser:
    """``acp-mux demo --help``: what it does, the words that show the other cases, and what each exit status means."""
    words = "\n".join(line for word, what in DEMO_WORDS for line in field(word, what, 11))
    codes = "\n".join(line for code, what in EXIT_CODES for line in field(str(code), what, 11))
    return argparse.ArgumentParser(
        prog="acp-mux demo",
        description=fill(
            "Run the whole bridge in this terminal with the bundled scripted agent (no agent CLI needed), in a "
            "temporary folder removed at the end. Each permission question takes a number, Enter (the default "
            "shown), or y/n where one option allows or rejects once; answers can be piped in "
            "(printf '3\\n' | acp-mux demo); when input ends, the answer is reject."
        ),
        epilog=f"prompt words:\n{words}\nexit status:\n{codes}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _drop_unknown_notification(record: logging.LogRecord) -> bool:
    """The SDK logs a notification it has no handler for (e.g. ACP 1.21's ``$/cancel_request``, which the bridge
    sends when a turn ends with a question still open) as an error with a traceback; JSON-RPC says an unknown
    notification is ignored, so in a terminal that traceback is noise."""
    return not record.getMessage().startswith("Unhandled error while handling notification")


def run_demo(argv: Sequence[str]) -> int:
    parser = build_parser()
    parser.add_argument("prompt", nargs="*", help="what to ask the scripted agent (default: the notes-file demo)")
    args = parser.parse_args(list(argv))
    prompt = " ".join(args.prompt) or DEMO_PROMPT
    # A shell starts a background job with Ctrl-C ignored, and the demo inherits that; asyncio.run turns Ctrl-C
    # into a cancelled turn and exit 130 only when Python's own handler is in place, so put it back.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    logging.getLogger().addFilter(_drop_unknown_notification)
    with tempfile.TemporaryDirectory(prefix="acp-mux-demo-") as workdir:
        try:
            return asyncio.run(_demo(prompt, workdir))
        except KeyboardInterrupt:
            # asyncio.run already cancelled the turn and closed the bridge's stdin (the bridge then stops its agent).
            sys.stdout.write("\n")
            return INTERRUPTED

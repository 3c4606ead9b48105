"""``acp-mux demo``: the real bridge, end to end, with the bundled scripted agent and a small terminal client.

It spawns ``acp-mux --agent demo`` exactly as an editor would, drives it with the official ACP SDK's client side,
and renders the conversation: streamed thoughts and text, tool calls with their diffs, the permission prompt
(answered from the keyboard, or "allow once" when stdin is not a terminal), and the stop reason.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from typing import Any, Sequence

from acp_mux.cli.plain_client import PlainClient

DEMO_PROMPT = "Please write the demo notes file, then fix its second line."
_STYLES = {"dim": "2", "bold": "1", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


def _colors_wanted() -> bool:
    """Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def style(name: str, text: str, enabled: bool) -> str:
    return f"\033[{_STYLES[name]}m{text}\033[0m" if enabled else text


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

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        kind = update.session_update
        if kind == "agent_thought_chunk":
            self._print("thought", update.content.text)
        elif kind == "agent_message_chunk":
            self._print("text", update.content.text)
        elif kind == "tool_call":
            self._print("tool", self._c("cyan", f"● {update.title} [{update.kind}]") + "\n")
        elif kind == "tool_call_update":
            for content in update.content or []:
                if content.type == "diff":
                    self._print("tool", f"  diff {os.path.basename(content.path)}:\n")
                    for line in (content.old_text or "").splitlines():
                        self._print("tool", self._c("red", f"  - {line}") + "\n")
                    for line in content.new_text.splitlines():
                        self._print("tool", self._c("green", f"  + {line}") + "\n")
                elif content.type == "content" and update.status in ("completed", "failed"):
                    self._print("tool", "  " + content.content.text.replace("\n", "\n  ") + "\n")
            if update.status in ("completed", "failed"):
                self._print("tool", f"  → {update.status}\n")
        elif kind == "plan":
            marks = {"completed": "x", "in_progress": "~", "pending": " "}
            self._print("tool", "  plan: " + "  ".join(f"[{marks[e.status]}] {e.content}" for e in update.entries) + "\n")

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        from acp.schema import AllowedOutcome, RequestPermissionResponse

        self._print("tool", self._c("yellow", f"  ? permission for {tool_call.title or tool_call.tool_call_id}") + "\n")
        for index, option in enumerate(options, 1):
            self._print("tool", f"    {index}. {option.name}\n")
        choice = 1
        if self.interactive:
            answer = await asyncio.get_running_loop().run_in_executor(None, input, "    choose [1]: ")
            if answer.strip().isdigit() and 1 <= int(answer) <= len(options):
                choice = int(answer)
        else:
            self._print("tool", "    (not a terminal: choosing 1)\n")
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=options[choice - 1].option_id))


async def _demo(prompt: str) -> int:
    import acp

    workdir = tempfile.mkdtemp(prefix="acp-mux-demo-")
    env = dict(os.environ, ACP_MUX_STATE_DIR=os.path.join(workdir, ".state"))
    colors = _colors_wanted()
    client = TerminalClient(interactive=sys.stdin.isatty(), colors=colors)
    print(f"acp-mux demo — the bridge runs the bundled scripted agent in {workdir}")
    async with acp.spawn_agent_process(
        client, sys.executable, "-m", "acp_mux", "--agent", "demo", env=env, cwd=workdir, transport_kwargs={"stderr": None}
    ) as (conn, _proc):
        init = await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=workdir, mcp_servers=[])
        print(f"connected to {init.agent_info.title}; session {session.session_id}\n\n> {prompt}")
        result = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block(prompt)])
    print("\n\n" + style("bold", f"stop reason: {result.stop_reason}", colors))
    notes = os.path.join(workdir, "notes.txt")
    if os.path.exists(notes):
        print(f"{notes}:\n{open(notes).read()}")
    return 0 if result.stop_reason == "end_turn" else 1


def run_demo(argv: Sequence[str]) -> int:
    prompt = " ".join(argv) or DEMO_PROMPT
    return asyncio.run(_demo(prompt))

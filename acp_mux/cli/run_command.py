"""``acp-mux run --agent NAME [PROMPT | -]``: one turn of any agent from a script, CI job or terminal.

It is the Python API (:func:`acp_mux.run`) on the command line: the turn is rendered as ``acp-mux demo`` renders
it (the same terminal client, fed the same ACP updates an editor would get), or with ``--json`` printed as the
event union, one event per line, for a script to read back with ``acp_mux.parse_event_json``. Questions are
answered by ``--allow``/``--deny`` rules first; then a person at a terminal is asked with the editor's four
options; with no terminal, what no rule allows is denied — nothing is ever allowed silently. The exit status says
how the turn ended (:data:`EXIT_CODES`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, Sequence

from acp_mux.cli.demo import (
    EXIT_CODES,
    FAILED,
    FINISHED,
    INTERRUPTED,
    STOPPED_SHORT,
    USAGE,
    LineReader,
    TerminalClient,
    _colors_wanted,
    _stdin_is_terminal,
    style,
)
from acp_mux.cli.terminal import field, fill

if TYPE_CHECKING:
    from acp_mux.api import ApprovalRequest, Approve, Deny, TurnResult
    from acp_mux.protocol.v1_dicts import SessionUpdate

RUN_EXIT_CODES = tuple((code, what) for code, what in EXIT_CODES if code not in (USAGE, FAILED)) + (
    (USAGE, "the command line was wrong (or a rule names nothing)"),
    (FAILED, "the prompt failed with an error (auth, rate limit, crash ...) or the agent cannot run here"),
)


def build_parser() -> argparse.ArgumentParser:
    codes = "\n".join(line for code, what in sorted(RUN_EXIT_CODES) for line in field(str(code), what, 11))
    rules = "\n".join(
        line
        for rule, what in (
            (
                "execute:CMD",
                (
                    "that command; `execute:git status` also with more arguments (as the editor's "
                    '"Always allow `git status` commands"), a longer command exactly as written'
                ),
            ),
            ("edit:PATH", "changes to that file (also delete:, move:, read:), relative to --cwd"),
            ("fetch:URL", "fetches from that URL's origin"),
        )
        for line in field(rule, what, 16)
    )
    parser = argparse.ArgumentParser(
        prog="acp-mux run",
        description=fill(
            "Send one prompt to an agent and show its turn as `acp-mux demo` does, or with --json print every event "
            "of the turn as one JSON object per line (the event union; stdout carries nothing else). Questions: "
            "--deny rules, then --allow rules, then the person at this terminal (the editor's four options); with no "
            "terminal, or with --json (stdout is the script's), whatever no rule allows is denied. The session is "
            "stored like an editor's (acp-mux sessions, --resume)."
        ),
        epilog=f"rules:\n{rules}\nexit status:\n{codes}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--agent", required=False, help="claude, codex, gemini, ... or demo (the bundled scripted agent)"
    )
    parser.add_argument("prompt", nargs="*", help="the prompt; '-' or nothing (with stdin not a terminal): read stdin")
    parser.add_argument("--json", action="store_true", help="print the event union, one event per line")
    parser.add_argument("--allow", action="append", default=[], metavar="RULE", help="allow what RULE names")
    parser.add_argument("--deny", action="append", default=[], metavar="RULE", help="deny what RULE names")
    parser.add_argument("--cwd", default=None, help="the agent's working folder (default: this one)")
    parser.add_argument("--model", default=None, help="the model to use")
    parser.add_argument("--mode", default=None, help="the agent's permission mode to start in")
    parser.add_argument("--resume", default=None, metavar="ID", help="continue a stored session (acp-mux sessions)")
    compare = parser.add_argument_group(
        "several agents on one task",
        "--compare sends the prompt to 2-4 agents, each in its own copy of --cwd (edits there need no question), "
        "shows a table and each diff, and applies the change you keep, merged with what changed meanwhile or refused "
        "naming the files. Exit status: 0 applied (or --pick none), 1 nothing applied, 3 could not run or apply.",
    )
    compare.add_argument("--compare", default=None, metavar="A,B[,C,D]", help="the agents, comma-separated")
    compare.add_argument("--check", default=None, metavar="CMD", help="a command run in each copy afterwards")
    compare.add_argument("--judge", default=None, metavar="AGENT", help="an agent that reads the diffs and advises")
    compare.add_argument("--pick", default=None, metavar="AGENT|none", help="which change to keep, without asking")
    return parser


def run_turn(argv: Sequence[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(list(argv))
    if args.compare and (args.agent or args.resume):
        parser.error("--compare takes the agents itself: no --agent or --resume with it")
    if not args.compare and (args.check or args.judge or args.pick):
        parser.error("--check, --judge and --pick go with --compare")
    if not args.agent and not args.resume and not args.compare:
        parser.error("--agent NAME is needed (or --resume ID, or --compare A,B)")
    stdin_prompt = args.prompt in ([], ["-"]) and (args.prompt == ["-"] or not _stdin_is_terminal())
    if stdin_prompt:
        prompt = sys.stdin.read()
    else:
        prompt = " ".join(args.prompt)
    if not prompt.strip():
        parser.error("the prompt is empty")
    interactive = _stdin_is_terminal() and not stdin_prompt
    try:
        if args.compare:
            from acp_mux.cli.compare_command import compare_turn

            return asyncio.run(compare_turn(args, prompt, interactive))
        return asyncio.run(_turn(args, prompt, interactive))
    except KeyboardInterrupt:
        sys.stdout.write("\n")
        return INTERRUPTED
    except ValueError as exc:  # a rule that names nothing, a session of another folder
        print(f"acp-mux run: {exc}", file=sys.stderr)
        return USAGE


class _Renderer:
    """The demo's terminal client fed the ACP updates of the run, in order; flushed before a question is asked so
    the question follows the tool call it is about."""

    def __init__(self, client: TerminalClient, session_id: str) -> None:
        self.client = client
        self.session_id = session_id
        self.waiting: list[SessionUpdate] = []

    def add(self, payload: SessionUpdate) -> None:
        self.waiting.append(payload)

    async def flush(self) -> None:
        from acp.schema import SessionNotification
        from pydantic import ValidationError

        waiting, self.waiting = self.waiting, []
        for payload in waiting:
            try:
                note = SessionNotification.model_validate({"sessionId": self.session_id, "update": payload})
            except ValidationError:  # an update kind this client does not know: nothing to show
                continue
            await self.client.session_update(self.session_id, note.update)

    async def ask(self, request: ApprovalRequest) -> Approve | Deny:
        """The editor's options for this question, asked on the terminal; decoded by the editor path's decoder."""
        from acp.schema import PermissionOption, ToolCallUpdate

        from acp_mux.api import Approve, Deny
        from acp_mux.translation.permissions import choice_options, chosen_choice, decode_outcome, permission_options

        await self.flush()
        if request.choices:
            options = choice_options(request.choices)
        elif request.scope is not None:
            options = permission_options(request.scope)
        else:
            return Deny(reason="acp-mux could not name what this question covers.")
        response = await self.client.request_permission(
            [PermissionOption.model_validate(o) for o in options],
            self.session_id,
            ToolCallUpdate(tool_call_id=request.interaction_id, title=request.title),
        )
        raw = response.model_dump(mode="json", by_alias=True)
        if request.choices:
            picked = chosen_choice(raw, options)
            return (
                Approve(updated_input={"choice": picked}) if picked else Deny(reason="The user skipped the question.")
            )
        answer = decode_outcome(raw, options)
        if answer.approve:
            return Approve(always=answer.always)
        return Deny(reason="The user rejected this action.", always=answer.always)


async def _turn(args: argparse.Namespace, prompt: str, interactive: bool) -> int:
    import acp_mux

    colors = _colors_wanted() and not args.json
    client = TerminalClient(interactive=interactive, colors=colors, answers=LineReader())
    renderer = _Renderer(client, "")
    if interactive and not args.json:
        approvals = acp_mux.ask(renderer.ask, allow=args.allow, deny=args.deny)
    else:
        approvals = acp_mux.allow(*args.allow, deny=args.deny)
    try:
        conversation = acp_mux.run(
            args.agent,
            prompt,
            cwd=args.cwd,
            model=args.model,
            mode=args.mode,
            approvals=approvals,
            resume=args.resume,
        )
    except acp_mux.AgentMuxError as exc:
        print(f"acp-mux run: {exc.message}", file=sys.stderr)
        return FAILED
    if not args.json:
        renderer.session_id = conversation.session_id
        conversation.on_update = renderer.add
        print(f"> {prompt.strip()}")
    async with conversation:
        async for event in conversation:
            if args.json:
                sys.stdout.write(acp_mux.event_to_json(event) + "\n")
                sys.stdout.flush()
            else:
                await renderer.flush()
        result = conversation.result
    await renderer.flush()
    assert result is not None
    _say_how_it_ended(result, args.json, colors)
    if result.error is not None:
        return FAILED
    return FINISHED if result.stop_reason == "end_turn" else STOPPED_SHORT


def _say_how_it_ended(result: TurnResult, as_json: bool, colors: bool) -> None:
    """The end of the turn: on stdout for a person, on stderr beside --json (stdout carries only events)."""
    if result.error is not None:
        line = f"the prompt failed: error {result.error.code}: {result.error.message}"
    else:
        line = f"stop reason: {result.stop_reason}"
    line += f" (session {result.session_id})"
    if as_json:
        print(line, file=sys.stderr)
    else:
        print("\n\n" + style("bold", line, colors))

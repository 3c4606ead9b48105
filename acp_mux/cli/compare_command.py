"""``acp-mux run --compare claude,codex PROMPT``: the same prompt to several agents, then keep the best (or none).

It is :func:`acp_mux.compare` on the command line. While the candidates work, one line per tool call and per end
shows who does what (``--json``: every event of every candidate, one per line; each event names its ``agent``).
Then the table, each candidate's whole diff, the judge's recommendation when ``--judge`` named one, and the pick:
``--pick AGENT`` (or ``--pick none``), else the person at the terminal is asked; with no terminal and no
``--pick``, nothing is applied. The chosen change is merged into the folder, or refused whole naming the files the
person changed meanwhile. Commands and fetches of the candidates are decided as in ``acp-mux run`` (rules, then the
person at the terminal, else denied); edits inside a candidate's own copy need no question.

Exit status: 0 the pick was applied, or "none" was picked; 1 nothing was applied because no candidate finished its
turn or nobody picked; 2 a wrong command line; 3 the comparison could not run (too large a folder, an agent that
cannot run here) or the pick could not be applied (a conflict); 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from acp_mux.cli.demo import FAILED, FINISHED, STOPPED_SHORT, LineReader, _colors_wanted, style

if TYPE_CHECKING:
    from acp_mux.api import ApprovalRequest, Approve, Comparison, Deny
    from acp_mux.api.compare import Candidate
    from acp_mux.core.events.union import BaseEvent

NONE = "none"


def agents_of(value: str) -> list[str]:
    """``claude,codex`` → ``["claude", "codex"]`` (spaces and empty names ignored)."""
    return [name.strip() for name in value.split(",") if name.strip()]


async def compare_turn(args: argparse.Namespace, prompt: str, interactive: bool) -> int:
    import acp_mux

    colors = _colors_wanted() and not args.json
    reader = LineReader()
    asking = asyncio.Lock()  # one question on the terminal at a time, whichever candidate asks

    async def ask(request: ApprovalRequest) -> Approve | Deny:
        async with asking:
            return await _ask_at_terminal(request, reader)

    if interactive and not args.json:
        approvals = acp_mux.ask(ask, allow=args.allow, deny=args.deny)
    else:
        approvals = acp_mux.allow(*args.allow, deny=args.deny)
    try:
        comparison = acp_mux.compare(
            agents_of(args.compare),
            prompt,
            cwd=args.cwd,
            approvals=approvals,
            check=args.check,
            judge=args.judge,
        )
    except acp_mux.AgentMuxError as exc:
        print(f"acp-mux run: {exc.message}", file=sys.stderr)
        return FAILED
    try:
        async with comparison:
            async for agent, event in comparison:
                _show(agent, event, args.json, colors)
            candidates = await comparison.wait()
            _report(comparison, candidates, args.json, colors)
            pick = args.pick
            if pick is None and interactive and not args.json:
                pick = await _ask_pick(candidates, reader)
            return await _apply(comparison, candidates, pick, args.json)
    except acp_mux.AgentMuxError as exc:
        print(f"acp-mux run: {exc.message}", file=sys.stderr)
        return FAILED


def _show(agent: str, event: BaseEvent, as_json: bool, colors: bool) -> None:
    if as_json:
        sys.stdout.write(event.model_dump_json(by_alias=True, exclude_none=True) + "\n")
        sys.stdout.flush()
        return
    if event.type == "tool_call_start":
        title = getattr(event, "title", None) or getattr(event, "tool_name", "") or "a tool"
        print(f"[{agent}] {title}")
    elif event.type == "turn_end":
        print(style("dim", f"[{agent}] ended its turn", colors))


def _report(comparison: Comparison, candidates: list[Candidate], as_json: bool, colors: bool) -> None:
    out = sys.stderr if as_json else sys.stdout
    print("\n" + comparison.table(), file=out)
    if not as_json:
        for candidate in candidates:
            diff = candidate.changes.diff if candidate.changes is not None else ""
            print("\n" + style("bold", f"── {candidate.agent}", colors))
            print(diff.rstrip() or "(no change)")
    if comparison.recommendation:
        print("\n" + style("bold", f"The judge ({comparison.judge}) says:", colors), file=out)
        print(comparison.recommendation, file=out)
    if as_json:
        summary = {
            "type": "comparison",
            "candidates": [
                {
                    "agent": c.agent,
                    "status": c.status,
                    "stopReason": c.stop_reason,
                    "reason": c.reason,
                    "seconds": round(c.seconds, 3),
                    "inputTokens": c.input_tokens,
                    "outputTokens": c.output_tokens,
                    "costUsd": c.cost_usd,
                    "files": [f.path for f in c.changes.files] if c.changes is not None else [],
                    "linesAdded": c.changes.lines_added if c.changes is not None else 0,
                    "linesRemoved": c.changes.lines_removed if c.changes is not None else 0,
                    "checkStatus": c.check_status,
                }
                for c in candidates
            ],
            "recommendation": comparison.recommendation,
        }
        sys.stdout.write(json.dumps(summary) + "\n")
        sys.stdout.flush()


async def _ask_pick(candidates: list[Candidate], reader: LineReader) -> str:
    names = [c.agent for c in candidates]
    print(f"\nKeep which change? {', '.join(names)} or {NONE} [{NONE}]: ", end="", flush=True)
    line = await reader.line()
    answer = (line or "").strip()
    return answer if answer in names else NONE


async def _apply(comparison: Comparison, candidates: list[Candidate], pick: str | None, as_json: bool) -> int:
    from acp_mux.server.branches.compare_copies import CompareError

    out = sys.stderr if as_json else sys.stdout
    if pick == NONE:
        print("Kept none: your folder is as it was.", file=out)
        return FINISHED
    if pick is None:
        print("Nothing applied (no --pick, and nobody at a terminal to ask).", file=out)
        return STOPPED_SHORT
    chosen = next((c for c in candidates if c.agent == pick), None)
    if chosen is None:
        print(f"acp-mux run: --pick {pick} is not one of the candidates", file=sys.stderr)
        return FAILED
    if chosen.status == "failed":
        print(f"acp-mux run: {pick} failed ({chosen.reason}); its change is not applied", file=sys.stderr)
        return FAILED
    try:
        written = await comparison.apply(pick)
    except CompareError as exc:
        print(f"acp-mux run: {exc}", file=sys.stderr)
        return FAILED
    print(f"Applied {pick}'s change: {', '.join(written) or 'no file changed'}.", file=out)
    return FINISHED


async def _ask_at_terminal(request: ApprovalRequest, reader: LineReader) -> Approve | Deny:
    from acp_mux.api import Approve, Deny

    print(f"\n{request.title}\n  allow once? [y/N]: ", end="", flush=True)
    line = await reader.line()
    if (line or "").strip().lower() in ("y", "yes"):
        return Approve()
    return Deny(reason="The user rejected this action.")

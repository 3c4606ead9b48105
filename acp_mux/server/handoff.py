"""The conversation so far, handed to an agent that takes over a session from another.

When the person switches agents, the new agent has not seen the turns the others answered. Before its next prompt
it gets them as earlier context: each missed turn's user message, the answering agent's reply and the tool calls it
made (title and outcome), oldest first, as plain text every agent understands. Built from the session's record
(what the editor was shown, in the same form for every agent), so any agent can take over from any other.

Within a size budget: the newest turns are kept whole as far as they fit, long replies are cut in the middle, and
turns that do not fit are left out with a note saying how many.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

BUDGET_CHARS = 24_000
REPLY_CHARS = 4_000


@dataclass
class Turn:
    agent: str
    user: list[str] = field(default_factory=list)
    reply: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)


def turns_from_record(updates: Iterable[dict[str, Any]], agents: list[str]) -> list[Turn]:
    """Split the session's record into turns (a user message starts one); ``agents[i]`` answered turn ``i``."""
    turns: list[Turn] = []
    for update in updates:
        kind = update.get("sessionUpdate")
        content = update.get("content")
        text = content.get("text") if isinstance(content, dict) and isinstance(content.get("text"), str) else None
        if kind == "user_message_chunk":
            if not turns or turns[-1].reply or turns[-1].tools:
                index = len(turns)
                turns.append(Turn(agent=agents[index] if index < len(agents) else "the agent"))
            if text:
                turns[-1].user.append(text)
        elif not turns:
            continue
        elif kind == "agent_message_chunk" and text:
            turns[-1].reply.append(text)
        elif kind == "tool_call" and isinstance(update.get("title"), str):
            status = update.get("status") or "pending"
            turns[-1].tools.append(f"{update['title']} ({status})")
    return turns


def context_text(turns: list[Turn], budget: int = BUDGET_CHARS) -> str:
    """The missed turns as one text block to put before the person's new message ("" when there are none)."""
    if not turns:
        return ""
    blocks: list[str] = []
    used = 0
    for turn in reversed(turns):
        block = _render(turn)
        if used + len(block) > budget and blocks:
            break
        blocks.append(block[:budget])
        used += len(block)
    left_out = len(turns) - len(blocks)
    head = "Earlier in this conversation the person worked with other coding agents. What happened, oldest first:"
    if left_out:
        head += f"\n({left_out} earlier turn{'s' if left_out > 1 else ''} left out to keep this short.)"
    body = "\n\n".join(reversed(blocks))
    return f"<earlier-conversation>\n{head}\n\n{body}\n</earlier-conversation>\n\nThe person's new message:\n\n"


def _render(turn: Turn) -> str:
    reply = _cut("".join(turn.reply).strip(), REPLY_CHARS)
    lines = [f"Person: {''.join(turn.user).strip()}", f"{turn.agent}: {reply or '(no text)'}"]
    if turn.tools:
        lines.append(f"{turn.agent}'s tool calls: " + "; ".join(turn.tools))
    return "\n".join(lines)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]} […{len(text) - limit} characters left out…] {text[-half:]}"

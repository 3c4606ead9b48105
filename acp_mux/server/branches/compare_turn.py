"""``/compare A B [C D] PROMPT`` in the every-agent entry: what the editor sees of a comparison of agents.

The comparison itself is :class:`acp_mux.api.compare.Comparison` (copies, candidates, measures, the way back); the
live session runs it as one turn. This module holds the pure parts of that turn, so the session only wires them:

* :func:`parse_compare`: the command line (agents among the entry's, ``--check CMD``, ``--judge AGENT``, prompt);
* :class:`CandidateRelay`: one candidate's events re-addressed into the session's event stream, so the one data
  direction holds (candidate event → session event → ACP update) and the session's log, translator, child
  sessions and replay show a candidate exactly as they show a subagent: one call per candidate (``compare:AGENT``,
  kind ``think``) marked as a subagent's spawn, the candidate's tool calls nested under it (or in its child
  session, for an editor that declared ``subagents``) with ids made unique per candidate, its words as the call's
  subagent text, its end as the call's result;
* :func:`report` and :func:`pick_options`: the comparison's table and diffs as one message, and the one question
  that follows (one option per candidate that changed something, and "Keep none").
"""

from __future__ import annotations

import shlex
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from acp_mux.core.events import union as ev

if TYPE_CHECKING:
    from acp_mux.core.run.interaction import Approve, Deny
    from acp_mux.protocol.v1_dicts import JsonValue, PermissionOption
    from acp_mux.server.branches.compare_copies import Changes
    from acp_mux.translation.permissions import Scope


class Question(Protocol):
    """A candidate's permission question as the comparison hands it to the session (the API's
    ``ApprovalRequest``): the title already names the candidate."""

    @property
    def interaction_id(self) -> str: ...
    @property
    def tool_name(self) -> str | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def input(self) -> JsonValue: ...
    @property
    def scope(self) -> Scope | None: ...


Ask = Callable[[Question], Awaitable["Approve | Deny"]]


class Candidate(Protocol):
    """What the session reads of one candidate (:class:`acp_mux.api.compare.Candidate`)."""

    agent: str
    status: str
    reason: str | None
    seconds: float
    changes: Changes | None

    @property
    def stop_reason(self) -> str: ...


class Comparison(Protocol):
    """What the session uses of a comparison (:class:`acp_mux.api.compare.Comparison`). The server does not import
    the Python API (the rooms import one way: cli → api → server); the command line hands the session a factory."""

    judge: str | None
    recommendation: str | None

    @property
    def candidates(self) -> Sequence[Candidate]: ...

    async def __aenter__(self) -> Comparison: ...

    async def __aexit__(self, *exc: object) -> None: ...

    def __aiter__(self) -> AsyncIterator[tuple[str, ev.BaseEvent]]: ...

    async def wait(self) -> Sequence[Candidate]: ...

    async def cancel(self) -> None: ...

    def table(self) -> str: ...

    async def apply(self, agent: str) -> list[str]: ...


ComparisonFactory = Callable[..., Comparison]
"""``(agents, prompt, *, ask, cwd, check, judge, env, state_dir) -> Comparison``: ``ask`` decides the candidates'
questions that the comparison does not (commands, fetches); the command line builds it on ``acp_mux.compare``."""

COMMAND = "compare"
KEEP_NONE = "compare-keep-none"
_KEEP = "compare-keep:"
CALL_PREFIX = "compare:"
# ids of a candidate's own calls, made unique across candidates (two agents may both call their first tool "call_0")
_ID_FIELDS = ("tool_call_id", "subagent_id", "parent_tool_call_id")
# what a candidate's stream holds that is its own run's, not the comparison's: not shown in the session
_NOT_SHOWN = frozenset(
    {
        "session_start",
        "session_end",
        "turn_start",
        "turn_end",
        "token_usage",
        "cost",
        "approval_request",
        "approval_granted",
        "approval_denied",
        "session_options",
        "mode_change",
        "commands_update",
        "agent_update",
        "debug",
        "log",
    }
)
MAX_DIFF_CHARS = 20_000  # per candidate, in the report message (the whole diff stays in the copy until the pick)


@dataclass(frozen=True)
class CompareRequest:
    agents: list[str]
    prompt: str
    check: str | None = None
    judge: str | None = None


def parse_compare(text: str, names: Sequence[str]) -> CompareRequest:
    """``/compare claude codex [--check CMD] [--judge AGENT] PROMPT`` → a request; ValueError says what is wrong
    in words the person can act on."""
    usage = f"Usage: /compare AGENT AGENT [AGENT AGENT] [--check COMMAND] [--judge AGENT] PROMPT (agents: {', '.join(names)})"
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ValueError(f"{exc}. {usage}") from None
    if not words or words[0] != f"/{COMMAND}":
        raise ValueError(usage)
    words = words[1:]
    agents: list[str] = []
    while words and words[0] in names:
        agents.append(words.pop(0))
    check = judge = None
    while words and words[0] in ("--check", "--judge"):
        flag = words.pop(0)
        if not words:
            raise ValueError(f"{flag} needs a value. {usage}")
        if flag == "--check":
            check = words.pop(0)
        else:
            judge = words.pop(0)
            if judge not in names:
                raise ValueError(f"--judge {judge}: not one of this entry's agents. {usage}")
    if not 2 <= len(agents) <= 4 or len(set(agents)) != len(agents):
        raise ValueError(f"Name two to four different agents. {usage}")
    prompt = " ".join(words).strip()
    if not prompt:
        raise ValueError(f"The prompt is missing. {usage}")
    return CompareRequest(agents, prompt, check, judge)


def call_id(agent: str) -> str:
    return f"{CALL_PREFIX}{agent}"


class CandidateRelay:
    """One candidate's events, as the session's own: see the module docstring."""

    def __init__(self, agent: str, display_name: str, prompt: str, run_id: str) -> None:
        self.agent = agent
        self.display_name = display_name
        self.prompt = prompt
        self.run_id = run_id
        self.call = call_id(agent)
        self._text: dict[bool, list[str]] = {False: [], True: []}  # the message (or thought) being written

    def started(self) -> list[ev.BaseEvent]:
        title = f"{self.display_name} works on it in its own copy"
        return [
            ev.ToolCallStartEvent(
                run_id=self.run_id,
                agent=self.agent,
                tool_call_id=self.call,
                tool_name=COMMAND,
                display=ev.ToolDisplay(kind="think", title=title),
            ),
            ev.SubagentSpawnEvent(
                run_id=self.run_id,
                agent=self.agent,
                subagent_id=self.call,
                agent_name=self.display_name,
                prompt=self.prompt,
                description=title,
            ),
        ]

    def relay(self, event: ev.BaseEvent) -> list[ev.BaseEvent]:
        """The session's events for one of the candidate's (none for what only its own run needs)."""
        if event.type in _NOT_SHOWN:
            return []
        if event.type in ("text_delta", "thinking_delta"):
            self._text[event.type == "thinking_delta"].append(getattr(event, "delta", ""))
            return []
        if event.type in ("message_stop", "thinking_stop"):
            return self._words(event.type == "thinking_stop")
        if event.type in ("message_start", "thinking_start"):
            return []
        changes: dict[str, object] = {"run_id": self.run_id, "agent": self.agent}
        for name in _ID_FIELDS:
            value = getattr(event, name, None)
            if isinstance(value, str) and value:
                changes[name] = f"{self.agent}:{value}"
        if not getattr(event, "parent_tool_call_id", None):
            changes["parent_tool_call_id"] = self.call  # the candidate's own calls nest under its compare call
        return [event.model_copy(update=changes)]

    def _words(self, thinking: bool) -> list[ev.BaseEvent]:
        parts, self._text[thinking] = self._text[thinking], []
        text = "".join(parts).strip()
        if not text:
            return []
        return [
            ev.SubagentTextEvent(
                run_id=self.run_id, agent=self.agent, subagent_id=self.call, text=text, thinking=thinking or None
            )
        ]

    def ended(self, candidate: Candidate) -> list[ev.BaseEvent]:
        out = self._words(True) + self._words(False)
        summary = outcome(candidate)
        out.append(
            ev.SubagentResultEvent(
                run_id=self.run_id,
                agent=self.agent,
                subagent_id=self.call,
                agent_name=self.display_name,
                summary=summary,
            )
        )
        if candidate.status == "failed":
            out.append(
                ev.ToolErrorEvent(
                    run_id=self.run_id, agent=self.agent, tool_call_id=self.call, tool_name=COMMAND, error=summary
                )
            )
        else:
            out.append(
                ev.ToolResultEvent(
                    run_id=self.run_id, agent=self.agent, tool_call_id=self.call, tool_name=COMMAND, output=summary
                )
            )
        return out


def outcome(candidate: Candidate) -> str:
    """One line: how the candidate ended and what it changed."""
    if candidate.status == "failed":
        return f"failed: {candidate.reason}"
    changes = candidate.changes
    files = f"{len(changes.files)} file(s), +{changes.lines_added}/-{changes.lines_removed}" if changes else "no change"
    return f"{candidate.stop_reason} in {candidate.seconds:.1f} s; {files}"


def report(comparison: Comparison) -> str:
    """The table and each candidate's diff, as one Markdown message."""
    parts = ["\n\n**Comparison**\n\n" + comparison.table()]
    for candidate in comparison.candidates:
        diff = candidate.changes.diff if candidate.changes is not None else ""
        if len(diff) > MAX_DIFF_CHARS:
            diff = diff[:MAX_DIFF_CHARS] + "\n… (cut here; the whole change is applied if you keep it)"
        parts.append(f"**{candidate.agent}**\n\n```diff\n{diff.rstrip() or '(no change)'}\n```")
    if comparison.recommendation:
        parts.append(f"**The judge ({comparison.judge}) says:** {comparison.recommendation}")
    return "\n\n".join(parts) + "\n"


def pick_options(candidates: Sequence[Candidate]) -> list[PermissionOption]:
    """One option per candidate whose change can be kept, then "Keep none" (the default a client picks first is
    never a change: "Keep none" is the only reject option)."""
    options: list[PermissionOption] = []
    for candidate in candidates:
        if candidate.status == "failed" or candidate.changes is None or not candidate.changes.files:
            continue
        options.append(
            {"optionId": f"{_KEEP}{candidate.agent}", "name": f"Keep {candidate.agent}'s change", "kind": "allow_once"}
        )
    options.append({"optionId": KEEP_NONE, "name": "Keep none", "kind": "reject_once"})
    return options


def picked(outcome_: object) -> str | None:
    """The agent whose change the person kept, from the raw ``session/request_permission`` answer; None for
    "Keep none", a cancelled question or an answer of any other shape."""
    if not isinstance(outcome_, dict):
        return None
    inner = outcome_.get("outcome")
    if not isinstance(inner, dict) or inner.get("outcome") != "selected":
        return None
    option = inner.get("optionId")
    if isinstance(option, str) and option.startswith(_KEEP):
        return option[len(_KEEP) :]
    return None

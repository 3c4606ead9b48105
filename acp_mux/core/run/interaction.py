"""Pending approvals and questions of one run, and the answers that go back to the agent (spec 002 §4)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterator, Literal, Mapping, Protocol, TypeAlias

from acp_mux.core.events.errors import AgentMuxError
from acp_mux.core.events.codes import ErrorCode, now_ms

if TYPE_CHECKING:
    from acp_mux.core.events.union import ApprovalRequestEvent


class AnsweringRun(Protocol):
    """What the channel needs of its run (:class:`acp_mux.core.run.handle.RunHandle`), stated here so the run, which
    builds the channel, is never imported back."""

    def _require_active(self) -> None: ...
    async def _deliver_response(self, item: PendingInteraction, response: InteractionResponse) -> None: ...


@dataclass(frozen=True)
class Approve:
    detail: str | None = None
    always: bool = False
    updated_input: Any = None
    # The mode the agent goes on in when the question is leaving plan mode (one of the modes offered there), handed
    # over with the yes; ignored for any other question.
    mode: str | None = None
    type: Literal["approve"] = "approve"


@dataclass(frozen=True)
class Deny:
    reason: str | None = None
    always: bool = False
    type: Literal["deny"] = "deny"


InteractionResponse: TypeAlias = Approve | Deny


@dataclass(frozen=True)
class AgentEnd:
    """How the agent takes its answer to a question: its own request id, and what shapes the reply — the request it
    answers (an ACP method, or the agent's own kind of ask), the options it offered, the field that carries the answer
    (an approval form's property, or the question's id within a request that asks several). Adapters give it when
    they ask (:meth:`Questions.ask`) and read it back when they answer."""

    request_id: Any
    method: str = ""
    options: tuple[Mapping[str, object], ...] = ()  # as the agent offered them (ACP: PermissionOption)
    form_field: str | None = None


@dataclass(frozen=True)
class PendingInteraction:
    """One unanswered approval or question, from the agent's ask to the person's answer: what is asked, the tool call
    it is about (``tool_call_id``, ``tool_name``, ``input``: the editor links and rules on it), a multiple-choice
    question's ``choices``, and the agent's end (:class:`AgentEnd`; None once the agent no longer waits for it)."""

    id: str
    type: Literal["approval"]
    run_id: str
    description: str
    detail: dict[str, Any]
    created_at: int = field(default_factory=now_ms)
    tool_call_id: str | None = None
    tool_name: str | None = None
    input: Any = None
    choices: tuple[dict[str, str], ...] | None = None
    agent: AgentEnd | None = None


def approval_question(event: "ApprovalRequestEvent", run_id: str, agent: AgentEnd | None = None) -> PendingInteraction:
    """The question an ``approval_request`` event asks, as the one record of it."""
    return PendingInteraction(
        id=event.interaction_id,
        type="approval",
        run_id=run_id,
        description=event.action,
        detail={
            "kind": "approval",
            "action": event.detail,
            "tool_name": event.tool_name,
            "risk_level": event.risk_level,
        },
        tool_call_id=event.tool_call_id,
        tool_name=event.tool_name,
        input=event.input,
        choices=tuple(event.choices) if event.choices else None,
        agent=agent,
    )


class Questions:
    """The one owner of a run's open questions (permission, choice, approval form, text input), keyed by interaction
    id, from the agent's ask to the answer. The adapter registers each when it asks (:meth:`ask`) and takes it when
    it answers (:meth:`take`); the run's :class:`InteractionChannel` shows the same records to the person; the
    session that asks the editor reads them here. Nothing else keeps a question: the session keeps only its editor
    dialog, an adapter nothing (the agent's request id travels in :attr:`PendingInteraction.agent`)."""

    def __init__(self, run_id: str) -> None:
        self._run_id = run_id
        self._open: dict[str, PendingInteraction] = {}

    def ask(self, event: "ApprovalRequestEvent", agent: AgentEnd) -> "ApprovalRequestEvent":
        """Register the question ``event`` asks, answered through ``agent``; returns the event, for the adapter's
        list of events."""
        self._open[event.interaction_id] = approval_question(event, self._run_id, agent)
        return event

    def open(self, item: PendingInteraction) -> PendingInteraction:
        """Register ``item`` unless its question is already open; the open record."""
        return self._open.setdefault(item.id, item)

    def get(self, interaction_id: str) -> PendingInteraction | None:
        return self._open.get(interaction_id)

    def take(self, interaction_id: str) -> PendingInteraction | None:
        """The question, closed (answered or withdrawn); None when it is not open (answered once only)."""
        return self._open.pop(interaction_id, None)

    def take_all(self) -> list[PendingInteraction]:
        """Every open question, closed (cancel: each is answered "cancelled")."""
        taken, self._open = list(self._open.values()), {}
        return taken

    def release(self, interaction_id: str) -> PendingInteraction | None:
        """The open question, its agent end detached (cancel: the adapter answers the agent "cancelled" itself);
        the question stays open for the person, whose answer then goes nowhere. None when it is not open or has no
        agent end left."""
        item = self._open.get(interaction_id)
        if item is None or item.agent is None:
            return None
        self._open[interaction_id] = replace(item, agent=None)
        return item

    def forget_agent(self, request_id: Any) -> None:
        """The agent no longer waits for ``request_id`` (it cleared the request): the question stays open for the
        person, but its answer goes nowhere."""
        for key, item in list(self._open.items()):
            if item.agent is not None and item.agent.request_id == request_id:
                self._open[key] = replace(item, agent=None)

    def __iter__(self) -> Iterator[PendingInteraction]:
        return iter(list(self._open.values()))

    def __len__(self) -> int:
        return len(self._open)

    def __contains__(self, interaction_id: object) -> bool:
        return interaction_id in self._open


class InteractionChannel:
    """The person's view of the run's open questions (:class:`Questions`, the one record of each), with explicit
    answers (the run's owner gives them: the session, or the Python API's policy)."""

    def __init__(self, handle: AnsweringRun, questions: Questions) -> None:
        self._handle = handle
        self._questions = questions

    @property
    def pending(self) -> list[PendingInteraction]:
        return list(self._questions)

    def get(self, interaction_id: str) -> PendingInteraction | None:
        """The open question ``interaction_id``, or None once it is answered or withdrawn."""
        return self._questions.get(interaction_id)

    def _expire_all(self) -> None:
        self._questions.take_all()

    def _settled(self, interaction_id: str) -> None:
        """The approval was decided (by us, or withdrawn by the agent): it is no longer pending."""
        self._questions.take(interaction_id)

    async def respond(self, interaction_id: str, response: InteractionResponse) -> None:
        self._handle._require_active()
        item = self._questions.get(interaction_id)
        if item is None:
            raise AgentMuxError(ErrorCode.INTERACTION_NOT_FOUND, f"no pending interaction {interaction_id!r}")
        await self._handle._deliver_response(item, response)  # the adapter takes the question as it answers

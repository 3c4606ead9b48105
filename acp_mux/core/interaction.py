"""Pending approvals and questions of one run, and the answers that go back to the agent (spec 002 §4)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Literal, TypeAlias

from acp_mux.core.errors import AgentMuxError
from acp_mux.core.event_codes import ErrorCode, now_ms

if TYPE_CHECKING:
    from acp_mux.core.run import RunHandle

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Approve:
    detail: str | None = None
    always: bool = False
    updated_input: Any = None
    type: Literal["approve"] = "approve"


@dataclass(frozen=True)
class Deny:
    reason: str | None = None
    always: bool = False
    type: Literal["deny"] = "deny"


@dataclass(frozen=True)
class TextInput:
    text: str
    type: Literal["text"] = "text"


InteractionResponse: TypeAlias = Approve | Deny | TextInput


@dataclass(frozen=True)
class PendingInteraction:
    """One unanswered approval or question. ``tool_call_id`` and ``input`` let the editor link and rule on it."""

    id: str
    type: Literal["approval", "input"]
    run_id: str
    description: str
    detail: dict[str, Any]
    created_at: int = field(default_factory=now_ms)
    tool_call_id: str | None = None
    tool_name: str | None = None
    input: Any = None


class InteractionChannel:
    """Queue of pending interactions with explicit answers; approval modes answer automatically."""

    def __init__(self, handle: "RunHandle") -> None:
        self._handle = handle
        self._pending: dict[str, PendingInteraction] = {}
        self._handlers: list[Callable[[PendingInteraction], None]] = []

    @property
    def pending(self) -> list[PendingInteraction]:
        return list(self._pending.values())

    def on_pending(self, handler: Callable[[PendingInteraction], None]) -> Callable[[], None]:
        self._handlers.append(handler)

        def unsubscribe() -> None:
            if handler in self._handlers:
                self._handlers.remove(handler)

        return unsubscribe

    def _add(self, item: PendingInteraction) -> None:
        self._pending[item.id] = item
        for handler in list(self._handlers):
            try:
                handler(item)
            except Exception as exc:  # a broken UI callback must not stop the run
                log.warning("on_pending handler failed: %s", exc)
                self._handle._warn(f"on_pending handler error: {exc}")

    def _expire_all(self) -> None:
        self._pending.clear()

    def _settled(self, interaction_id: str) -> None:
        """The approval was decided (by us, or withdrawn by the agent): it is no longer pending."""
        self._pending.pop(interaction_id, None)

    async def respond(self, interaction_id: str, response: InteractionResponse) -> None:
        self._handle._require_active()
        item = self._pending.get(interaction_id)
        if item is None:
            raise AgentMuxError(ErrorCode.INTERACTION_NOT_FOUND, f"no pending interaction {interaction_id!r}")
        if item.type == "input" and not isinstance(response, TextInput):
            raise AgentMuxError(ErrorCode.INVALID_STATE_TRANSITION, "a question needs a text answer")
        del self._pending[interaction_id]
        await self._handle._deliver_response(item, response)

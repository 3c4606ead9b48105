"""Carrying on with another agent when one hits its usage limit: the setting, the question, and its answer.

When the active agent ends a turn at a usage limit it will not retry past (a ``quota``
:class:`~acp_mux.core.events.union.RateLimitErrorEvent`), the session asks the person in the editor whether to carry on
with another usable agent: a form (``elicitation/create``) when the editor declared form elicitation, else a
permission question with one option per agent ("Carry on with Codex") and "Stop", which every editor can show.
The question names the reset time when the agent gave one (its machine field, never its words). Nothing goes to
another agent without the person's choice, or the session's failover setting naming that agent.

The setting (``ACP_MUX_FAILOVER`` and the session's "When the agent hits its limit" option): ``ask`` (default),
``never``, or an agent's name (always carry on with it, no question). This module holds the pure parts: what is
asked, and what an answer means; :class:`~acp_mux.server.sessions.live_session.LiveSession` asks and switches.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp_mux.core.settings import SettingError, read_setting
from acp_mux.translation.stop_reasons import reset_time

if TYPE_CHECKING:
    from acp_mux.protocol import v1_dicts as acp
    from acp_mux.protocol.v1_dicts import JsonValue

log = logging.getLogger(__name__)

FAILOVER_OPTION = "failover"
ASK, NEVER = "ask", "never"
STOP = "stop"  # the answer that ends the prompt with the limit's error
_OPTION_PREFIX = "failover:"  # the permission options' ids: only the ones offered count


def session_default(environ: Mapping[str, str] | None = None) -> str:
    """The failover setting a new session starts with: ``ACP_MUX_FAILOVER``, else ``ask``. A value outside the
    grammar, or naming no agent acp-mux runs, is a :class:`~acp_mux.core.settings.SettingError` (which fails a
    new session, as every badly set setting does): never read as something else."""
    from acp_mux.adapters.registry import ENTRIES

    value = read_setting("ACP_MUX_FAILOVER", os.environ if environ is None else environ, ASK)
    if not isinstance(value, str):
        return ASK
    if value in (ASK, NEVER):
        return value
    if value not in ENTRIES:
        raise SettingError(
            f"ACP_MUX_FAILOVER={value!r} names no agent acp-mux runs: use ask, never, or one of "
            f"{', '.join(n for n in ENTRIES if n != 'demo')}. Change it in the editor's settings for acp-mux (its env) "
            "and start the agent again."
        )
    return value


def setting_problem(environ: Mapping[str, str] | None = None) -> str | None:
    """Why ``ACP_MUX_FAILOVER`` is badly set (its shape, or no agent's name), or None: what a new session fails
    with and ``doctor`` says."""
    try:
        session_default(environ)
    except SettingError as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class Offer:
    """One question: ``limited`` hit its limit (``resets_at`` epoch seconds when it said); ``agents`` are the usable
    others, in the order shown, with their labels."""

    limited: str
    limited_label: str
    agents: tuple[tuple[str, str], ...]  # (name, label)
    resets_at: int | None = None

    def text(self) -> str:
        """The question, as the person reads it."""
        shown = reset_time(self.resets_at) if self.resets_at else ""
        when = f" It resets at {shown}." if shown else ""
        return (
            f"{self.limited_label} hit its usage limit.{when} Carry on with another agent? The prompt that failed "
            "is sent again to the agent you choose, with the conversation so far."
        )

    def permission_options(self) -> list[acp.PermissionOption]:
        """ "Stop" first, then one option per agent, named ("Carry on with Codex"); none of an allow kind.

        An editor that approves permission questions by itself (Zed's "always allow tool actions", ``acpx
        --approve-all``) answers this one too, without the person: it takes the first allow option, or, with none,
        the first option (acpx), or asks the person. Carrying on approves nothing an agent asked, so no option is
        an allow, and the first is "Stop": such an editor stops, and only a person's pick carries a prompt to
        another agent."""
        options: list[acp.PermissionOption] = [
            {"optionId": f"{_OPTION_PREFIX}{STOP}", "name": "Stop", "kind": "reject_once"}
        ]
        options += [
            {"optionId": f"{_OPTION_PREFIX}{name}", "name": f"Carry on with {label}", "kind": "reject_once"}
            for name, label in self.agents
        ]
        return options

    def form(self, session_id: str) -> dict[str, JsonValue]:
        """``elicitation/create`` params: a form with one single-select field (``agent``), "Stop" included."""
        choices: list[JsonValue] = [{"const": name, "title": f"Carry on with {label}"} for name, label in self.agents]
        choices.append({"const": STOP, "title": "Stop"})
        field: dict[str, JsonValue] = {"type": "string", "title": "Carry on with", "oneOf": choices}
        schema: dict[str, JsonValue] = {"type": "object", "properties": {"agent": field}, "required": ["agent"]}
        return {"sessionId": session_id, "mode": "form", "message": self.text(), "requestedSchema": schema}

    def chosen(self, answer: object, via_form: bool) -> str | None:
        """The agent the person picked, or None (Stop, decline, cancel, an error, anything not offered)."""
        names = {name for name, _ in self.agents}
        picked: object = None
        if via_form:
            if isinstance(answer, dict) and answer.get("action") == "accept":
                content = answer.get("content")
                picked = content.get("agent") if isinstance(content, dict) else None
        elif isinstance(answer, dict):
            outcome = answer.get("outcome")
            if isinstance(outcome, dict) and outcome.get("outcome") == "selected":
                option = outcome.get("optionId")
                if isinstance(option, str) and option.startswith(_OPTION_PREFIX):
                    picked = option[len(_OPTION_PREFIX) :]
        return picked if isinstance(picked, str) and picked in names else None


async def ask(
    offer: Offer,
    session_id: str,
    by_form: bool,
    request: Callable[[str, Mapping[str, object]], Awaitable[object]],
    show: Callable[[acp.SessionUpdate], None],
    cancelled: asyncio.Event,
) -> str | None:
    """Ask the editor ``offer``: a form (``by_form``), else a permission question about a tool call shown for it
    (``show``), which ends completed when an agent was picked, failed otherwise. None unless the person picked one
    of the offered agents: Stop, a decline, an error or a cancel (which withdraws the question) all mean no."""
    from acp_mux.core.ids import new_ulid

    call: acp.ToolCallUpdate = {"toolCallId": f"failover-{new_ulid()}", "title": offer.text(), "kind": "other"}
    params: Mapping[str, object]
    if by_form:
        method, params = "elicitation/create", offer.form(session_id)
    else:
        shown: acp.SessionUpdate = {
            "sessionUpdate": "tool_call",
            "toolCallId": call["toolCallId"],
            "title": offer.text(),
            "kind": "other",
            "status": "pending",
        }
        show(shown)
        method = "session/request_permission"
        params = {
            "sessionId": session_id,
            "toolCall": {**call, "status": "pending"},
            "options": offer.permission_options(),
        }
    asked = asyncio.ensure_future(request(method, params))
    stop = asyncio.ensure_future(cancelled.wait())
    try:
        await asyncio.wait({asked, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    answer: object = None
    if not asked.done():
        asked.cancel()  # the editor's dialog is closed ($/cancel_request): nobody will answer it
    elif not asked.cancelled():
        try:
            answer = asked.result()
        except Exception as exc:  # the editor cannot answer: the limit's error, never another agent
            log.info("the failover question failed: %s", exc)
    picked = offer.chosen(answer, by_form)
    if not by_form:
        done: acp.SessionUpdate = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call["toolCallId"],
            "status": "completed" if picked else "failed",
        }
        show(done)
    return picked


def can_ask_by_form(client_capabilities: Mapping[str, object]) -> bool:
    """The editor declared form elicitation (``clientCapabilities.elicitation.form``)."""
    elicitation = client_capabilities.get("elicitation")
    return isinstance(elicitation, dict) and isinstance(elicitation.get("form"), dict)


def candidates(usable: Sequence[str], tried: set[str], setting: str) -> list[str]:
    """Whom to offer: the usable agents not tried in this prompt (the limited ones), in order; with an agent named
    by the setting, only it (when usable and untried); with ``never``, nobody."""
    left = [name for name in usable if name not in tried]
    if setting == NEVER:
        return []
    if setting != ASK:
        return [setting] if setting in left else []
    return left


def option(current: str, agents: Sequence[tuple[str, str]]) -> dict[str, object]:
    """The session's select option beside Agent/Mode/Model: ask, stop, or always carry on with one agent."""
    values = [{"value": ASK, "name": "Ask"}, {"value": NEVER, "name": "Stop"}]
    values += [{"value": name, "name": f"Carry on with {label}"} for name, label in agents]
    if current not in {v["value"] for v in values}:  # a named agent not usable here right now: still shown as set
        values.append({"value": current, "name": f"Carry on with {current}"})
    return {
        "id": FAILOVER_OPTION,
        "name": "When the agent hits its limit",
        "description": "Ask whether to carry on with another agent, stop, or always carry on with one agent",
        "type": "select",
        "currentValue": current,
        "options": values,
    }

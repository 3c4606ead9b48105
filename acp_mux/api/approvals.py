"""Who answers an agent's permission questions in a run started from Python: a callback, rules, or nobody (deny).

Why this shape: the editor path asks a person through ``session/request_permission``; a script has a callback, or
nobody at all. The policy a run follows is one value, built by :func:`ask`, :func:`allow`, :func:`deny` or
:func:`manual`, and the decision is made by :func:`decide` in the order the editor path makes it (read-only mode,
then remembered rules, then the person), with the rules of :mod:`acp_mux.translation.permissions`: a text rule
(:mod:`acp_mux.translation.rule_text`) and an "always" answer from the callback are the very scopes an editor's
"Always allow" remembers. Nothing is allowed without a rule or an answer: with no callback, what no rule allows is
denied.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Awaitable, Callable, TypeAlias

from acp_mux.core.run.interaction import Approve, Deny
from acp_mux.translation.permissions import MUTATING_KINDS, PermissionRules, Scope
from acp_mux.translation.rule_text import parse_rule

if TYPE_CHECKING:
    from acp_mux.protocol.v1_dicts import JsonValue


@dataclass(frozen=True)
class ApprovalRequest:
    """One question of the agent, as the callback sees it.

    ``kind`` is the ACP tool kind the editor would show (``edit``, ``execute``, ``read``, ``fetch`` ...), ``input``
    the tool's input, ``always_covers`` what an ``always=True`` answer would allow (or reject) from now on in this
    session — the label of the editor's "Always allow …" option. ``choices`` is set when the agent asks the person
    to pick an answer instead: answer ``Approve(updated_input={"choice": id})``, or ``Deny()`` to skip."""

    interaction_id: str
    tool_name: str | None
    kind: str
    title: str
    input: JsonValue
    always_covers: str
    choices: list[dict[str, str]] | None = None
    scope: Scope | None = field(default=None, repr=False, compare=False)


Answer: TypeAlias = Approve | Deny | bool
Callback: TypeAlias = Callable[[ApprovalRequest], "Awaitable[Answer] | Answer"]


@dataclass(frozen=True)
class Approvals:
    """An approval policy: rules first (a deny rule beats an allow rule), then the callback; ``manual``: what no
    rule decides stays pending for :meth:`acp_mux.Run.answer`; neither: denied."""

    allow_rules: tuple[str, ...] = ()
    deny_rules: tuple[str, ...] = ()
    callback: Callback | None = None
    manual: bool = False

    def rules(self, cwd: str) -> PermissionRules:
        """The run's rule set, seeded from the text rules (ValueError for a rule that names nothing)."""
        rules = PermissionRules(cwd=cwd)
        for text in self.allow_rules:
            rules.remember(parse_rule(text, cwd), "allow")
        for text in self.deny_rules:  # beats every allow: these, and any "always" answered later
            rules.forbid(parse_rule(text, cwd))
        return rules


def ask(
    callback: Callback, *, allow: tuple[str, ...] | list[str] = (), deny: tuple[str, ...] | list[str] = ()
) -> Approvals:
    """Ask ``callback`` (sync or async) for whatever the rules do not decide; it returns ``Approve(...)``,
    ``Deny(...)`` or a bool. An exception in it is a denial."""
    return Approvals(tuple(allow), tuple(deny), callback)


def allow(*rules: str, deny: tuple[str, ...] | list[str] = ()) -> Approvals:
    """Allow what these rules name (``execute:git status``, ``edit:notes.txt``, ``fetch:https://example.org``);
    deny everything else."""
    return Approvals(tuple(rules), tuple(deny))


def deny() -> Approvals:
    """Deny every question (the agent may still read, answer and think)."""
    return Approvals()


def manual(*, allow: tuple[str, ...] | list[str] = (), deny: tuple[str, ...] | list[str] = ()) -> Approvals:
    """Leave what the rules do not decide pending: the ``approval_request`` event arrives in the stream, and
    :meth:`acp_mux.Run.answer` answers it (the agent waits until then)."""
    return Approvals(tuple(allow), tuple(deny), manual=True)


@dataclass(frozen=True)
class Decision:
    """What :func:`decide` concluded: an answer for the agent (None: leave it pending), and who decided."""

    answer: Approve | Deny | None
    by: str


async def decide(
    policy: Approvals, rules: PermissionRules, request: ApprovalRequest, read_only_mode: str | None
) -> Decision:
    """The answer to one question, in the editor path's order; an "always" answer is remembered in ``rules``."""
    if request.choices:
        if policy.callback is None:
            return Decision(None if policy.manual else Deny(reason="Nobody here to answer the question."), "policy")
        return Decision(await callback_answer(policy.callback, request), "user")
    if read_only_mode is not None and request.kind in MUTATING_KINDS:
        reason = f"{read_only_mode} is read-only: switch modes to let the agent change files or run commands."
        return Decision(Deny(reason=reason), "mode")
    remembered = rules.match(request.tool_name, request.kind, request.input)
    if remembered is not None:
        answer: Approve | Deny = (
            Approve(always=True) if remembered == "allow" else Deny(reason="A rule rejects this.", always=True)
        )
        return Decision(answer, "rule")
    if policy.callback is None:
        if policy.manual:
            return Decision(None, "user")
        return Decision(Deny(reason="No rule allows this and nobody was asked (acp-mux approvals policy)."), "policy")
    answer = await callback_answer(policy.callback, request)
    if answer.always and request.scope is not None:
        rules.remember(request.scope, "allow" if isinstance(answer, Approve) else "reject")
    return Decision(answer, "user")


async def callback_answer(callback: Callback, request: ApprovalRequest) -> Approve | Deny:
    """The callback's answer as Approve/Deny; anything that is not an answer, or an exception, is a denial.

    Public because a policy that wraps the person's callback (a comparison's, :mod:`acp_mux.api.compare`, which
    allows a candidate's edits inside its own copy and asks the person the rest) must read the callback's answer
    exactly as :func:`decide` does: a callback that returns ``True``, an object, or raises means the same
    everywhere, and nothing is allowed by accident."""
    try:
        value: object = callback(request)
        if inspect.isawaitable(value):
            value = await value
    except Exception as exc:
        return Deny(reason=f"The approval callback failed: {type(exc).__name__}: {exc}")
    if isinstance(value, (Approve, Deny)):
        return value
    if value is True:
        return Approve()
    return Deny(reason="The user rejected this action.")

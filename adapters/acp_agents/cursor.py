"""Cursor's CLI agent (``cursor-agent acp``, also installed as ``agent``) through its own ACP mode, on the
ACP-client family.

UNTESTED AGAINST THE REAL CLI: cursor-agent cannot be installed here (its installer downloads from cursor.com, it
is not on npm) and talks only to Cursor's own backend. Everything below follows Cursor's documentation
(cursor.com/docs/cli/acp) and is tested against a fake executable replaying a transcript written from those
documented shapes (``tests/fakes/fake_cursor_agent.py``, ``tests/fixtures/cursor/README.md``).

What is only cursor's (everything else is the family's, ``acp_client.py``):
- the binary is ``cursor-agent``; the installer also links it as ``agent``, a name far too generic to trust. The
  bridge falls back to ``agent`` only when that file resolves to an executable named ``cursor-agent`` (the
  installer's layout: ``~/.local/bin/agent`` → ``~/.local/share/cursor-agent/versions/<v>/cursor-agent``), and
  never runs an unknown ``agent`` to ask what it is (see ``AgentEntry.alt_binary``);
- ``initialize`` advertises the auth method ``cursor_login``; the client sends ``authenticate`` with it before any
  session. It succeeds when the CLI is signed in (``cursor-agent login``) or finds ``CURSOR_API_KEY`` in its
  environment (passed through, never on a command line); otherwise its error becomes a typed auth error;
- blocking extension requests, each answered (an unanswered one stalls the agent):
  ``cursor/ask_question`` (questions with options) → one multiple-choice dialog per question through the
  permission path (the editor's answer or "skip" goes back as ``answered``/``skipped``; cancel → ``cancelled``);
  ``cursor/create_plan`` (a plan to approve) → the plan's todos as a plan event, the plan shown in a permission
  dialog (allow → ``accepted``, reject → ``rejected``); ``cursor/update_todos`` → a plan event (``merge``
  updates the todos by id); ``cursor/task`` (a subagent's task) → a tool call of kind ``think``. Each may also come
  as a notification: then it is shown and nothing is answered;
- permission options are ``allow-once`` / ``allow-always`` / ``reject-once`` (no "reject always"): the family
  answers by kind, the bridge keeps its own "always" rules;
- Cursor's default ``agent`` mode asks before edits and commands (the bridge never passes ``--force``); ``plan``
  and ``ask`` are read-only.
"""

from __future__ import annotations

import logging
import os
import shutil
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from acp_mux.adapters.acp_agents.acp_client import AcpClientAdapter, AcpRun, plan_entry
from acp_mux.adapters.base import AgentCapabilities
from acp_mux.adapters.json_rpc_peer import error_message
from acp_mux.adapters.registry import locate_binary
from acp_mux.core.run.contract import ApprovalDecision
from acp_mux.core.run.interaction import AgentEnd
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.text.shapes import as_dict, as_list, as_str

if TYPE_CHECKING:
    from acp_mux.adapters.acp_agents.acp_client import WireObject
    from acp_mux.protocol import v1_dicts as acp
    from acp_mux.protocol.v1_dicts import RequestId
    from acp_mux.core.events.union import BaseEvent

log = logging.getLogger(__name__)

AUTH_METHOD = "cursor_login"
_PLAN_STATUS = {"cancelled": "completed"}  # cursor's own status; the ACP ones are the family's


_ASK_QUESTION, _CREATE_PLAN = "cursor/ask_question", "cursor/create_plan"  # cursor's extension requests that ask


@dataclass
class CursorRun(AcpRun):
    """The family's run state, plus what cursor's extension requests need (``CursorRun.of(ctx)``)."""

    answers: dict[RequestId, dict[str, list[str]]] = field(
        default_factory=dict
    )  # ask_question rpc id → question → picked
    waiting_on: dict[RequestId, int] = field(default_factory=dict)  # ask_question rpc id → dialogs still open
    todos: dict[str, tuple[str, str]] = field(default_factory=dict)  # todo id → (content, status), in order
    tasks: int = 0
    picked: dict[RequestId, list[str]] = field(default_factory=dict)  # ask_question rpc id → the labels picked so far
    own_calls: set[str] = field(default_factory=set)  # question/plan calls the bridge announced (cursor had not)
    settled: list[tuple[str, bool, str]] = field(default_factory=list)  # answered own calls: (id, ok, what)


class CursorAdapter(AcpClientAdapter):
    name = "cursor"
    acp_args = ("acp",)
    run_type = CursorRun
    joins_text_chunks = False  # parse_line ends the answered question calls before each line cursor sends
    capabilities = AgentCapabilities(
        persistent_process=True, supports_images=True, supports_mcp_http=True, supports_mcp_sse=True
    )

    def resolve_binary(self, override: str | None = None, env: dict[str, str] | None = None) -> str:
        """``cursor-agent``, else the installer's ``agent`` link when it really is cursor-agent (registry)."""
        env = dict(os.environ) if env is None else env
        if override or env.get(self.bin_env_var()) or shutil.which(self.binary, path=env.get("PATH")):
            return super().resolve_binary(override, env)
        path, _ = locate_binary(self.entry, None, env)
        return path or self.binary

    # ── handshake: authenticate with cursor_login before any session ──────────────────────────────────────────
    def on_initialized(self, result: object, error: WireObject | None, ctx: ParseContext) -> list[BaseEvent]:
        methods = result.get("authMethods") if isinstance(result, dict) else None
        offered = [m.get("id") for m in methods or () if isinstance(m, dict)]
        if error is not None or AUTH_METHOD not in offered:
            return super().on_initialized(result, error, ctx)
        run = AcpRun.of(ctx)

        def authenticated(auth_result: object, auth_error: WireObject | None) -> list[BaseEvent]:
            if auth_error is not None:
                # Cursor answers "authentication required" when neither a login nor CURSOR_API_KEY is there.
                auth_error = {
                    **auth_error,
                    "code": -32000,
                    "message": f"Cursor sign-in needed: {error_message(auth_error)}",
                }
                return self.failure(auth_error, ctx, during="authenticate")
            return super(CursorAdapter, self).on_initialized(result, None, ctx)

        run.peer.request(ctx, "authenticate", {"methodId": AUTH_METHOD}, authenticated)
        return []

    # ── cursor's extension requests and notifications ──────────────────────────────────────────────────────────
    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        events = self._settle(ctx)  # answers given since the last line: their calls end before what cursor says next
        return events + list(super().parse_line(line, ctx))

    def _settle(self, ctx: ParseContext) -> list[BaseEvent]:
        """End the question and plan calls the bridge announced once they are answered (an answer cannot emit
        events itself): completed with the answer, or failed when skipped, rejected or cancelled."""
        run = CursorRun.find(ctx)
        if run is None or not run.settled:
            return []
        events: list[BaseEvent] = []
        for tool_id, ok, what in run.settled:
            if tool_id in ctx.tools:
                events += ctx.tool_result(tool_id, what) if ok else ctx.tool_error(tool_id, what)
        run.settled.clear()
        return events

    def on_extension_request(
        self, rpc_id: RequestId, method: str, params: WireObject, ctx: ParseContext
    ) -> list[BaseEvent] | None:
        return self._extension(rpc_id, method, params, ctx) if method.startswith("cursor/") else None

    def on_extension_notification(self, method: str, params: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        return self._extension(None, method, params, ctx) if method.startswith("cursor/") else []

    def _extension(self, rpc_id: RequestId, method: str, params: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        run = CursorRun.of(ctx)
        if method == "cursor/ask_question":
            return self._ask_questions(rpc_id, params, ctx)
        if method == "cursor/create_plan":
            return self._create_plan(rpc_id, params, ctx)
        if method == "cursor/update_todos":
            events = self._todos(params, ctx)
        elif method == "cursor/task":
            events = self._task(params, ctx)
        else:
            events = []
            if rpc_id is not None:
                run.peer.respond_error(ctx, rpc_id, -32601, f"acp-mux does not offer {method}")
                return events
        if rpc_id is not None:
            run.peer.respond(ctx, rpc_id, {})
        return events

    def _ask_questions(self, rpc_id: RequestId, params: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """One choice dialog per question, about the tool call cursor named (announced first when unseen)."""
        run = CursorRun.of(ctx)
        questions = [q for q in as_list(params.get("questions")) if isinstance(q, dict) and q.get("id") is not None]
        if rpc_id is None:
            return []
        if not questions:
            run.peer.respond(ctx, rpc_id, {"outcome": {"outcome": "skipped", "reason": "no questions"}})
            return []
        tool_id = as_str(params.get("toolCallId")) or f"cursor-question-{rpc_id}"
        title = as_str(params.get("title")) or "Cursor asks"
        events: list[BaseEvent] = []
        if tool_id not in ctx.tools:
            display = ev.ToolDisplay(kind="think", title=title)
            events += ctx.tool_start(tool_id, "ask_question", {"questions": questions}, display=display, ready=True)
            run.own_calls.add(tool_id)
        run.answers[rpc_id] = {}
        run.waiting_on[rpc_id] = len(questions)
        for n, question in enumerate(questions):
            choices = [
                {"id": str(o["id"]), "label": str(o.get("label") or o["id"])}
                for o in as_list(question.get("options"))
                if isinstance(o, dict) and o.get("id") is not None
            ]
            prompt = as_str(question.get("prompt")) or title
            asked = ev.ApprovalRequestEvent(
                interaction_id=f"cursor-question-{rpc_id}-{n}",
                action=prompt,
                tool_name="ask_question",
                tool_call_id=tool_id,
                risk_level="low",
                input={"question": prompt},
                choices=choices,
                detail="pick one answer"
                + (" (cursor allows several; the dialog offers one)" if question.get("allowMultiple") else ""),
            )
            events.append(ctx.questions.ask(asked, AgentEnd(rpc_id, _ASK_QUESTION, form_field=str(question["id"]))))
        return events

    def _create_plan(self, rpc_id: RequestId, params: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """The plan's todos become the plan; the plan itself is asked about (allow → accepted)."""
        events = self._todos({"todos": as_list(params.get("todos")), "merge": False}, ctx)
        if rpc_id is None:
            return events
        tool_id = as_str(params.get("toolCallId")) or f"cursor-plan-{rpc_id}"
        name = as_str(params.get("name")) or "Plan"
        text = "\n\n".join(t for t in (as_str(params.get("overview")), as_str(params.get("plan"))) if t)
        call: acp.ToolCallUpdate = {
            "toolCallId": tool_id,
            "title": f"Plan: {name}",
            "kind": "think",
            "content": [{"type": "content", "content": {"type": "text", "text": text}}] if text else [],
        }
        events += self._ask_about(f"cursor-plan-{rpc_id}", rpc_id, tool_id, call, ctx)
        return events

    def _ask_about(
        self, interaction_id: str, rpc_id: RequestId, tool_id: str, call: acp.ToolCallUpdate, ctx: ParseContext
    ) -> list[BaseEvent]:
        from acp_mux.adapters.acp_agents.acp_client import tool_display

        display = tool_display(call, ctx.cwd)
        events: list[BaseEvent] = []
        if tool_id not in ctx.tools:
            title = call.get("title") or ""
            events += ctx.tool_start(tool_id, "create_plan", {"plan": title}, display=display, ready=True)
            CursorRun.of(ctx).own_calls.add(tool_id)
        elif display is not None:
            events.append(ev.ToolUpdateEvent(tool_call_id=tool_id, display=display))
        asked = ev.ApprovalRequestEvent(
            interaction_id=interaction_id,
            action=as_str(call.get("title")),
            tool_name="create_plan",
            tool_call_id=tool_id,
            risk_level="low",
            input={"plan": as_str(call.get("title"))},
        )
        events.append(ctx.questions.ask(asked, AgentEnd(rpc_id, _CREATE_PLAN)))
        return events

    def _todos(self, params: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        run = CursorRun.of(ctx)
        if not params.get("merge"):
            run.todos.clear()
        for todo in as_list(params.get("todos")):
            if not isinstance(todo, dict):
                continue
            key = str(todo.get("id") if todo.get("id") is not None else len(run.todos))
            if key not in run.todos and not isinstance(todo.get("content"), str):
                continue  # an update of a todo never listed: nothing to show
            content, status = run.todos.get(key, ("", "pending"))
            content = todo["content"] if isinstance(todo.get("content"), str) else content
            status = todo["status"] if isinstance(todo.get("status"), str) else status
            run.todos[key] = (content, status)
        entries = [
            plan_entry(content + (" (cancelled)" if status == "cancelled" else ""), _PLAN_STATUS.get(status, status))
            for content, status in run.todos.values()
        ]
        return ctx.begin_turn() + [ev.PlanUpdateEvent(entries=entries)]

    def _task(self, params: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """A subagent's task: one tool call, ended at once when cursor reports it done (it carries a duration)."""
        run = CursorRun.of(ctx)
        run.tasks += 1
        tool_id = as_str(params.get("toolCallId")) or f"cursor-task-{run.tasks}"
        description = as_str(params.get("description")) or as_str(params.get("subagentType")) or "subagent task"
        raw = {k: params[k] for k in ("description", "prompt", "subagentType", "model") if k in params}
        events: list[BaseEvent] = []
        if tool_id not in ctx.tools:
            display = ev.ToolDisplay(kind="think", title=f"Task: {description}")
            events += ctx.tool_start(tool_id, "task", raw, display=display, ready=True)
        error = params.get("error")
        if isinstance(error, str) and error:
            events += ctx.tool_error(tool_id, error)
        elif "durationMs" in params or params.get("status") == "completed":
            events += ctx.tool_result(tool_id, params.get("result"))
        return events

    # ── answers ────────────────────────────────────────────────────────────────────────────────────────────────
    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        run = CursorRun.of(ctx)
        question = ctx.questions.get(interaction_id)
        asked = question.agent if question is not None else None
        if question is None or asked is None or asked.method not in (_ASK_QUESTION, _CREATE_PLAN):
            super().respond_approval(interaction_id, decision, ctx)
            return
        ctx.questions.take(interaction_id)
        tool_id = question.tool_call_id or ""
        outcome: dict[str, Any]
        if asked.method == _CREATE_PLAN:
            outcome = (
                {"outcome": "accepted"}
                if decision.approve
                else {"outcome": "rejected", "reason": decision.reason or "rejected"}
            )
            if run.cancelling and not decision.approve:
                outcome = {"outcome": "cancelled"}
            run.peer.respond(ctx, asked.request_id, {"outcome": outcome})
            self._answered(run, tool_id, decision.approve, f"plan {outcome['outcome']}")
            return
        rpc_id = asked.request_id
        picked = as_dict(decision.updated_input).get("choice") if decision.approve else None
        answers = run.answers.setdefault(rpc_id, {})
        if isinstance(picked, str):
            labels = {c.get("id"): c.get("label") for c in question.choices or ()}
            answers[asked.form_field or ""] = [picked]
            run.picked.setdefault(rpc_id, []).append(labels.get(picked) or picked)
        run.waiting_on[rpc_id] = run.waiting_on.get(rpc_id, 1) - 1
        if run.waiting_on[rpc_id] > 0:
            return
        del run.waiting_on[rpc_id]
        answers = run.answers.pop(rpc_id, {})
        if run.cancelling:
            outcome = {"outcome": "cancelled"}
        elif answers:
            outcome = {
                "outcome": "answered",
                "answers": [{"questionId": q, "selectedOptionIds": ids} for q, ids in answers.items()],
            }
        else:
            outcome = {"outcome": "skipped", "reason": "the user skipped the question"}
        run.peer.respond(ctx, rpc_id, {"outcome": outcome})
        picked_labels = run.picked.pop(rpc_id, [])
        answered = outcome["outcome"] == "answered"
        self._answered(
            run,
            tool_id,
            answered,
            f"answered: {', '.join(picked_labels)}" if answered else f"question {outcome['outcome']}",
        )

    def _answered(self, run: CursorRun, tool_id: str, ok: bool, what: str) -> None:
        if tool_id in run.own_calls:
            run.own_calls.discard(tool_id)
            run.settled.append((tool_id, ok, what))

    def interrupt(self, ctx: ParseContext) -> bool:
        run = CursorRun.find(ctx)
        if run is not None and run.session_id is not None:
            run.cancelling = True
            answered: set[Any] = set()
            for question in ctx.questions:  # open extension questions: "cancelled"
                asked = question.agent
                if asked is None or asked.method not in (_ASK_QUESTION, _CREATE_PLAN):
                    continue
                ctx.questions.release(question.id)
                if asked.request_id not in answered:
                    answered.add(asked.request_id)
                    run.answers.pop(asked.request_id, None)
                    run.waiting_on.pop(asked.request_id, None)
                    run.picked.pop(asked.request_id, None)
                    run.peer.respond(ctx, asked.request_id, {"outcome": {"outcome": "cancelled"}})
        return super().interrupt(ctx)

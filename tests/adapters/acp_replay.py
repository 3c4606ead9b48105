"""Replay a recorded ACP conversation (tests/fixtures/<cli>/*.jsonl, written by capture_acp) through an ACP-client
adapter, as the run runtime would drive it, without a process.

The adapter sends its own requests (ids of its own); each response the agent recorded is handed to the adapter's
pending request of the same method (session/new, load and resume count as one: the adapter picks which to send).
The agent's own requests are fed as recorded; when the adapter turns one into an ``approval_request`` it is answered
the way the recording's client answered (allow / reject by the chosen option's kind, or an elicitation's value),
and ``cancel`` in the recording becomes ``adapter.interrupt``. What the adapter sent is kept, so tests can check
its answers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.run.prompt import Prompt
from tests.fixtures.acp_transcripts import load, process_entries
from tests.adapters.helpers import assert_ordering

RECORDED_CWD = "/work/project"
_OPENING = {"session/new", "session/load", "session/resume"}


@dataclass
class Replay:
    events: list[Any] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    ctx: ParseContext | None = None

    def of_type(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.type == kind]

    def answers(self) -> dict[Any, dict[str, Any]]:
        """Our responses to the agent's requests, by the agent's request id."""
        return {m["id"]: m for m in self.sent if "method" not in m and "id" in m}

    def asked_tools(self) -> list[str]:
        """The tool call ids the bridge was asked to approve, in order."""
        return [e.tool_call_id for e in self.of_type("approval_request")]

    def endings(self) -> dict[str, Any]:
        """Each tool call's last ``tool_result`` / ``tool_error`` event, by tool call id."""
        return {e.tool_call_id: e for e in self.events if e.type in ("tool_result", "tool_error")}

    def ended(self) -> dict[str, str]:
        """How each tool call ended (``tool_result`` or ``tool_error``), by tool call id."""
        return {tool_id: e.type for tool_id, e in self.endings().items()}

    def text(self) -> str:
        return "".join(e.text for e in self.of_type("message_stop"))

    def thoughts(self) -> str:
        return "".join(e.thinking for e in self.of_type("thinking_stop"))

    def assert_contract(self) -> list[str]:
        """The ordering contract holds and every tool call that started ended; the started ids, in order."""
        assert_ordering(self.events)
        started = [e.tool_call_id for e in self.of_type("tool_call_start")]
        assert set(started) == set(self.endings()), "a tool call was left open"
        return started


def _rewrite(value: Any, cwd: str) -> Any:
    if cwd == RECORDED_CWD:
        return value
    return json.loads(json.dumps(value).replace(RECORDED_CWD, cwd))


def replay(
    adapter: Any,
    cli: str,
    name: str,
    *,
    process: int = 1,
    cwd: str = RECORDED_CWD,
    on_answer: Callable[[dict[str, Any], bool], None] | None = None,
) -> Replay:
    """Drive ``adapter`` through process ``process`` of fixture ``<cli>/<name>``; paths move to ``cwd``.

    ``on_answer(request, approved)`` runs after the adapter answered one of the agent's questions (tests use it to
    do what the agent did next, e.g. write the file it was allowed to write)."""
    entries = _rewrite(process_entries(load(cli, name), process), cwd)
    client = [e["msg"] for e in entries if e["from"] == "client" and "msg" in e]
    init = next(m for m in client if m.get("method") == "initialize")
    opening = next((m for m in client if m.get("method") in ("session/load", "session/resume")), None)
    caps = dict(init["params"].get("clientCapabilities") or {})
    caps.pop("elicitation", None)  # the adapter decides that itself
    ctx = ParseContext(run_id="replay", agent=adapter.name, cwd=cwd)
    options = RunOptions(
        agent=adapter.name,
        cwd=cwd,
        prompt=None,
        client_capabilities=caps,
        session_id=opening["params"]["sessionId"] if opening else None,
    )
    out = Replay(ctx=ctx)
    adapter.start(options, ctx)
    ours: dict[Any, str] = {}  # our pending request id → method
    recorded_methods = {m["id"]: m["method"] for m in client if "method" in m and "id" in m}
    questions: dict[Any, dict[str, Any]] = {}  # the agent's open requests, by its id
    prompts = 0

    def flush() -> None:
        for chunk in ctx.take_outbox():
            msg = json.loads(chunk)
            out.sent.append(msg)
            if "method" in msg and "id" in msg:
                ours[msg["id"]] = msg["method"]

    def feed(msg: dict[str, Any]) -> None:
        events = list(adapter.parse_line(json.dumps(msg), ctx))
        out.events.extend(events)
        flush()
        for event in events:
            if event.type == "approval_request":
                answer_question(event)

    def answer_question(event: Any) -> None:
        question = ctx.questions.get(event.interaction_id)
        rpc_id = question.agent.request_id if question is not None and question.agent is not None else None
        request = questions.get(rpc_id)
        recorded = next((m for m in client if m.get("id") == rpc_id and "method" not in m), None)
        if request is None or recorded is None:
            return
        result = recorded.get("result") or {}
        if request["method"] == "elicitation/create":
            value = str((result.get("content") or {}).get("value", ""))
            if result.get("action") != "accept":
                adapter.interrupt(ctx)
                flush()
                return
            approved = value.lower().startswith(("approve", "allow", "yes"))
        else:
            outcome = result.get("outcome") or {}
            if outcome.get("outcome") != "selected":
                adapter.interrupt(ctx)  # the recording cancelled while asking
                flush()
                return
            kinds = {o["optionId"]: o.get("kind", "") for o in request["params"].get("options", [])}
            approved = kinds.get(outcome.get("optionId"), "").startswith("allow")
        adapter.respond_approval(event.interaction_id, ApprovalDecision(approve=approved), ctx)
        flush()
        if on_answer is not None:
            on_answer(request, approved)

    flush()
    for entry in entries:
        msg = entry.get("msg")
        if msg is None:
            continue
        if entry["from"] == "client":
            method = msg.get("method")
            if method == "session/prompt":
                prompts += 1
                text = " ".join(b.get("text", "") for b in msg["params"]["prompt"])
                adapter.send_prompt(Prompt.of_text(text), ctx)
                flush()
            elif method == "session/cancel" and not getattr(ctx.state.get("acp_run"), "cancelling", False):
                adapter.interrupt(ctx)
                flush()
            elif method == "session/set_mode":
                adapter.set_mode(msg["params"]["modeId"], ctx)
                flush()
            elif method == "session/set_config_option":  # the mode as a config option (opencode): the bridge's set_mode
                params = msg["params"]
                if params["configId"] == "mode":
                    adapter.set_mode(params["value"], ctx)
                else:
                    adapter.set_config_option(params["configId"], params["value"], ctx)
                flush()
            continue
        if "method" in msg and "id" in msg:  # the agent asks
            questions[msg["id"]] = msg
            feed(msg)
        elif "method" in msg:
            feed(msg)
        else:  # a response to one of the recording client's requests: hand it to ours of the same method
            method = recorded_methods.get(msg.get("id"))
            wanted = _OPENING if method in _OPENING else {method}
            mine = next((i for i, m in ours.items() if m in wanted), None)
            if mine is None:
                continue
            del ours[mine]
            feed({**msg, "id": mine})
    return out


def fixture_path(cli: str, name: str) -> Path:
    return Path(__file__).resolve().parents[1] / "fixtures" / cli / f"{name}.jsonl"

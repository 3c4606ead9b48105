"""Every question an ACP agent asks is answered exactly once, whatever order the person's answers, a cancel and the
session's closing answers come in: the run's one record of the question (``ctx.questions``) is what the answer is
read from, so no second copy can answer it again or leave it unanswered."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.core.run.contract import ApprovalDecision
from tests.adapters.test_acp_client import GEMINI_OPTIONS, SID, Agent, line

ASKS = range(4)
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("ask"), st.sampled_from(ASKS)),
        st.tuples(st.sampled_from(["allow", "reject"]), st.sampled_from(ASKS)),
        st.tuples(st.just("cancel"), st.just(0)),
    ),
    max_size=25,
)


def _ask(agent: Agent, n: int) -> None:
    request = {
        "id": 100 + n,
        "method": "session/request_permission",
        "params": {"sessionId": SID, "options": GEMINI_OPTIONS, "toolCall": {"toolCallId": f"t{n}", "kind": "edit"}},
    }
    agent.feed(line(request))


@settings(max_examples=150, deadline=None)
@given(ops=OPS)
def test_each_ask_is_answered_exactly_once_and_never_allowed_unasked(ops: list[tuple[str, int]]) -> None:
    agent = Agent("/tmp")
    agent.open_session()
    agent.sent()
    asked: set[int] = set()
    answers: dict[int, list[Any]] = {}
    allowed_by_person: set[int] = set()
    cancelled = False

    def collect() -> None:
        for message in agent.sent():
            if "result" in message and isinstance(message.get("id"), int) and message["id"] >= 100:
                answers.setdefault(message["id"], []).append(message["result"]["outcome"])

    for op, n in ops:
        if op == "ask" and 100 + n not in asked:
            asked.add(100 + n)
            _ask(agent, n)
        elif op in ("allow", "reject"):
            approve = op == "allow"
            open_question = agent.ctx.questions.get(f"acp-permission-{100 + n}")
            if approve and open_question is not None and open_question.agent is not None:  # the agent still waits
                allowed_by_person.add(100 + n)
            agent.adapter.respond_approval(f"acp-permission-{100 + n}", ApprovalDecision(approve=approve), agent.ctx)
        elif op == "cancel" and not cancelled:
            cancelled = True
            agent.adapter.interrupt(agent.ctx)
        collect()
    for question in agent.ctx.questions:  # the session closes what is still open: "no"
        agent.adapter.respond_approval(question.id, ApprovalDecision(approve=False), agent.ctx)
    collect()

    assert len(agent.ctx.questions) == 0
    assert set(answers) == asked and all(len(given) == 1 for given in answers.values()), answers
    offered = {o["optionId"]: o["kind"] for o in GEMINI_OPTIONS}
    for rpc_id, (outcome,) in answers.items():
        if outcome["outcome"] == "selected":
            kind = offered[outcome["optionId"]]
            assert kind == ("allow_once" if rpc_id in allowed_by_person else "reject_once"), (rpc_id, outcome)
        else:
            assert outcome == {"outcome": "cancelled"} and rpc_id not in allowed_by_person

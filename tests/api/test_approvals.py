"""The approval policy never allows what neither a rule nor an answer allowed, and a deny rule always wins."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.api.approvals import ApprovalRequest, Approvals, decide
from acp_mux.core.run.interaction import Approve, Deny
from acp_mux.translation.rule_text import parse_rule

CWD = "/work/project"
COMMANDS = ["git status", "git push --force", "rm -rf build", "ls | wc -l", "pytest -q", "cat notes.txt"]
RULES = [f"execute:{c}" for c in COMMANDS] + ["execute:git", "execute:rm", "edit:notes.txt", "edit:src/a.py"]
CALLS = [("Bash", "execute", {"command": c}) for c in COMMANDS] + [
    ("Write", "edit", {"file_path": f"{CWD}/notes.txt"}),
    ("Edit", "edit", {"file_path": f"{CWD}/other.txt"}),
    ("Read", "read", {"file_path": f"{CWD}/notes.txt"}),
]


def request(call: tuple[str, str, dict[str, str]]) -> ApprovalRequest:
    tool, kind, tool_input = call
    return ApprovalRequest("q1", tool, kind, tool, tool_input, "-")


def covered(rules: list[str], call: tuple[str, str, dict[str, str]]) -> bool:
    """Whether one of ``rules`` alone covers ``call`` (the rule set's own matcher, rule by rule)."""
    for text in rules:
        if Approvals(allow_rules=(text,)).rules(CWD).match(call[0], call[1], call[2]) == "allow":
            return True
    return False


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(RULES), max_size=4),
    st.lists(st.sampled_from(RULES), max_size=3),
    st.sampled_from(["none", "manual", "yes", "no"]),
    st.sampled_from(CALLS),
    st.sampled_from([None, "Plan"]),
)
def test_nothing_is_allowed_without_a_rule_or_an_answer(allow, deny, who, call, read_only) -> None:
    answered: list[str] = []

    def callback(req: ApprovalRequest) -> bool:
        answered.append(req.interaction_id)
        return who == "yes"

    policy = Approvals(tuple(allow), tuple(deny), callback if who in ("yes", "no") else None, manual=who == "manual")
    decision = asyncio.run(decide(policy, policy.rules(CWD), request(call), read_only))
    if isinstance(decision.answer, Approve):
        assert read_only is None or call[1] not in ("edit", "execute")
        assert (covered(allow, call) and not covered(deny, call)) or (answered and who == "yes")
    if covered(deny, call) or (read_only and call[1] in ("edit", "execute")):
        assert isinstance(decision.answer, Deny)
    if who == "manual" and decision.answer is None:
        assert not covered(allow, call) and not covered(deny, call)
    assert all(parse_rule(r, CWD) is not None for r in allow + deny)

"""One owner for every open question: ``Questions`` (acp_mux/core/run/interaction.py) holds a permission or elicitation
question from the agent's ask to the person's answer; the interaction channel shows the same records, adapters
hold nothing of it, and the session keeps only the editor's end (its dialog request).

The structural half reads the source (every module of the import name ``acp_mux``: acp_mux/, adapters/,
translation/): no module but interaction.py builds a question record, none declares a container of question
records, and a store keyed by an interaction id happens only where the allow-list says why it holds no question.
The behavioural half drives ``Questions`` with hypothesis and checks the invariants the adapters rely on.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.annotation_names import annotation_names

from acp_mux.core.events import union as ev
from acp_mux.core.run.interaction import AgentEnd, PendingInteraction, Questions, approval_question

ROOT = Path(__file__).resolve().parents[2]
OWNER = "acp_mux/core/run/interaction.py"
SOURCES = sorted(
    path
    for folder in ("acp_mux", "adapters", "translation")
    for path in (ROOT / folder).rglob("*.py")
    if ".venv" not in path.parts
)
QUESTION_TYPES = {"PendingInteraction", "AgentEnd", "ApprovalRequestEvent", "InputRequiredEvent"}
# Stores keyed by an interaction id outside the owner, and why each holds no question.
KEYED_BY_QUESTION = {
    # The editor's end of a question: its session/request_permission request, nothing of the question.
    ("acp_mux/server/sessions/live_session.py", "self._dialogs"),
    # The tool call an answer moves on, rebuilt from the event stream: a stored session's replay has no run, so the
    # link cannot be read from a live question there.
    ("translation/updates.py", "self._approval_tools"),
}


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _parse_all() -> list[tuple[str, ast.Module]]:
    return [(_relative(p), ast.parse(p.read_text(encoding="utf-8"), str(p))) for p in SOURCES]


# Parsed once, at import: CPython 3.11's parser can fail with "AST constructor recursion depth mismatch" when called
# from deep inside a test run that changed the recursion limit (hypothesis does), never from a module's top level.
_TREES = _parse_all()


def _trees() -> list[tuple[str, ast.Module]]:
    return _TREES


_names = annotation_names


def _is_interaction_key(key: ast.AST) -> bool:
    """``[interaction_id]``, ``[event.interaction_id]``, ``[question.id]``: a question's id as a key."""
    if isinstance(key, ast.Name):
        return key.id == "interaction_id"
    if isinstance(key, ast.Attribute):
        return key.attr == "interaction_id" or (
            key.attr == "id" and isinstance(key.value, ast.Name) and key.value.id in ("question", "item")
        )
    return False


def test_only_the_owner_builds_question_records() -> None:
    builders = {"PendingInteraction", "approval_question", "input_question", "Questions"}
    found = [
        (name, node.lineno)
        for name, tree in _trees()
        if name != OWNER
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) in builders
        and not (
            name == "acp_mux/core/run/handle.py" and isinstance(node.func, ast.Name) and node.func.id != "Questions"
        )
        and not (name == "acp_mux/core/run/parse_context.py" and _call_name(node) == "Questions")
    ]
    assert found == [], f"question records built outside {OWNER} (and the run/context that hand them over): {found}"


def _call_name(node: ast.Call) -> str:
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")


def test_no_module_declares_a_container_of_questions() -> None:
    """An attribute or variable typed as a dict/list/set/tuple of question records is a second place to keep one."""
    containers = {"dict", "Dict", "list", "List", "set", "Set", "tuple", "Tuple", "Mapping", "Sequence"}
    found = []
    for name, tree in _trees():
        if name == OWNER:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.AnnAssign) and isinstance(node.annotation, ast.Subscript | ast.Constant):
                mentioned = _names(node.annotation)
                if mentioned & containers and mentioned & QUESTION_TYPES:
                    found.append((name, node.lineno, ast.unparse(node.annotation)))
    assert found == [], f"containers of question records outside {OWNER}: {found}"


def test_stores_keyed_by_an_interaction_id_hold_no_question() -> None:
    found = set()
    for name, tree in _trees():
        if name == OWNER:
            continue
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                if isinstance(target, ast.Subscript) and _is_interaction_key(target.slice):
                    found.add((name, ast.unparse(target.value)))
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("setdefault", "update")
                and node.args
                and _is_interaction_key(node.args[0])
            ):
                found.add((name, ast.unparse(node.func.value)))
    assert found <= KEYED_BY_QUESTION, f"unexplained stores keyed by an interaction id: {found - KEYED_BY_QUESTION}"


def test_the_former_copies_are_gone() -> None:
    """The places that used to hold a question beside the channel: the context's ``approvals``, the ACP run's
    ``asks``, cursor's ``asked``, pi's ``questions``, the session's ``_open_questions``."""
    from acp_mux.adapters.acp_agents.acp_client import AcpRun
    from acp_mux.adapters.acp_agents.cursor import CursorRun
    from acp_mux.adapters.rpc_agents.pi import PiRun
    from acp_mux.core.run.parse_context import ParseContext

    fields = {cls.__name__: set(getattr(cls, "__dataclass_fields__", {})) for cls in (AcpRun, CursorRun, PiRun)}
    assert "asks" not in fields["AcpRun"] and "asked" not in fields["CursorRun"] and "questions" not in fields["PiRun"]
    assert "approvals" not in ParseContext.__dataclass_fields__
    assert "_open_questions" not in (ROOT / "acp_mux/server/sessions/live_session.py").read_text()


# ── the owner's behaviour ─────────────────────────────────────────────────────────────────────────────────────
def _event(interaction_id: str, tool: str | None = None) -> Any:
    return ev.ApprovalRequestEvent(interaction_id=interaction_id, action="do it", tool_call_id=tool, input={"x": 1})


_OPS = st.lists(
    st.tuples(st.sampled_from(["ask", "take", "release", "forget", "open"]), st.integers(0, 4)), max_size=40
)


@settings(max_examples=200, deadline=None)
@given(ops=_OPS)
def test_every_question_reaches_its_agent_at_most_once(ops: list[tuple[str, int]]) -> None:
    """Whatever order asks, answers, cancels (release), agent withdrawals (forget) and the run's own registration
    (open) come in: an ask's agent end is handed out at most once, a question is open iff asked and not yet taken,
    and a record built by the run never replaces the adapter's (whose agent end it would lose)."""
    questions = Questions("run")
    handed: dict[int, int] = {}  # ask number → times its agent end was handed to an answer
    current: dict[str, int] = {}  # interaction id → its latest ask number
    asks = 0
    for op, n in ops:
        iid = f"q{n}"
        if op == "ask":
            asks += 1
            current[iid] = asks
            questions.ask(_event(iid, f"t{n}"), AgentEnd(("native", asks)))
        elif op == "open":
            kept = questions.open(approval_question(_event(iid), "run"))
            if iid in current:
                assert kept.agent is None or kept.agent.request_id == ("native", current[iid])
            else:
                current[iid] = 0  # the run's own record (an adapter that registered nothing): no agent end
        elif op in ("take", "release"):
            got = questions.take(iid) if op == "take" else questions.release(iid)
            if got is not None and got.agent is not None:
                number = got.agent.request_id[1]
                handed[number] = handed.get(number, 0) + 1
            if op == "take":
                current.pop(iid, None)
        else:
            questions.forget_agent(("native", current.get(iid, -1)))
        assert {q.id for q in questions} == set(current)
    assert all(count == 1 for count in handed.values())


class _Handle:
    """What the channel asks of its run: whether it is active, and delivering an answer (which, as in the run, the
    adapter gives the agent by taking the question)."""

    def __init__(self, questions: Questions) -> None:
        self.questions = questions
        self.delivered: list[tuple[PendingInteraction, Any]] = []

    def _require_active(self) -> None:
        return None

    def _warn(self, message: str) -> None:
        raise AssertionError(message)

    async def _deliver_response(self, item: PendingInteraction, response: Any) -> None:
        self.delivered.append((item, response))
        self.questions.take(item.id)


async def test_the_channel_shows_and_answers_the_owners_records() -> None:
    """The interaction channel lists the very records the adapter registered (no copy) and hands the record, agent
    end included, to the answer; a question closed by the agent (withdrawn) is gone from the person's list."""
    from acp_mux.core.run.interaction import Approve, InteractionChannel

    questions = Questions("run")
    handle = _Handle(questions)
    channel = InteractionChannel(handle, questions)  # type: ignore[arg-type]
    questions.ask(_event("a1", "t1"), AgentEnd("native-1"))
    questions.open(approval_question(_event("a1"), "run"))  # the run's own record does not replace the adapter's
    questions.ask(_event("a2", "t2"), AgentEnd("native-2"))
    (first, second) = channel.pending
    assert first is questions.get("a1") and first.agent == AgentEnd("native-1")
    assert first.tool_call_id == "t1" and first.input == {"x": 1}
    await channel.respond("a1", Approve())
    assert handle.delivered == [(first, Approve())]
    questions.take("a2")  # the agent withdrew it
    assert channel.pending == [] and channel.get("a2") is None and second.agent == AgentEnd("native-2")

"""The stop reason an ACP agent answers its prompt with reaches the editor unchanged, whatever came before it
(issue 26: copilot 1.0.102 answered ``cancelled`` midway through a long reply with no cancel from anyone, and the
editor was told ``end_turn``). The agent's answer goes through the family (``acp_client.on_prompt_done``) and the
translation (``updates_for_event``) exactly as a live turn's events do."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings, strategies as st

from acp_mux.adapters.stream_agents.scripted import TOOLS
from acp_mux.translation.conversation import updates_for_event
from acp_mux.translation.stop_reasons import TurnOutcome
from acp_mux.translation.updates import UpdateTranslator
from tests.adapters.test_acp_client import Agent, line, update

ACP_STOP_REASONS = ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled")


def editor_outcome(agent: Agent, stop: str, texts: list[str]) -> tuple[TurnOutcome | None, list[object]]:
    """Feed the agent's reply and its answer; the outcome the editor's turn ends with, and the updates it saw."""
    agent.open_session()
    events = agent.feed(*(update("agent_message_chunk", content={"type": "text", "text": t}) for t in texts))
    events += agent.feed(line({"id": 3, "result": {"stopReason": stop}}))
    translator = UpdateTranslator(TOOLS, agent.ctx.cwd)
    outcome, shown = None, []
    for event in events:
        updates, imposed = updates_for_event(translator, event, login_command=None, cancelled=False)
        shown += updates
        outcome = imposed or outcome
    return outcome, shown


@settings(max_examples=60, deadline=None)
@given(
    stop=st.sampled_from(ACP_STOP_REASONS),
    texts=st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1), max_size=4),
)
def test_the_agents_stop_reason_reaches_the_editor_unchanged(stop: str, texts: list[str]) -> None:
    agent = Agent(str(Path.cwd()))  # nothing is read or written there
    outcome, _ = editor_outcome(agent, stop, texts)
    said = outcome.stop_reason if outcome is not None else "end_turn"
    assert said == stop
    assert outcome is None or outcome.error_code is None


def test_a_turn_the_agent_cancelled_itself_is_cancelled_with_a_note_that_the_reply_is_cut_short(
    tmp_path: Path,
) -> None:
    outcome, shown = editor_outcome(Agent(str(tmp_path)), "cancelled", ["c0 ", "c1 "])
    assert outcome is not None and outcome.stop_reason == "cancelled"
    notes = [u for u in shown if isinstance(u, dict) and "incomplete" in str(u.get("content", ""))]
    assert len(notes) == 1

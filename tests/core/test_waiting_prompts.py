"""The run's one keeper of waiting prompts (``acp_mux.core.run.waiting_prompts``), tried by hypothesis with prompts held
for the agent's session, cancels, and the agent's session opening, in any order:

* a prompt goes to the agent at most once, only once the agent takes prompts, and never after a cancel withdrew it;
* the prompts released together go out in the order they came, and every prompt is accounted for exactly once
  (sent, ended as a withdrawn turn, or still waiting);
* a withdrawn prompt's turn ends (``turn_start`` then ``turn_end``) at the moment it would have gone out;
* what the adapter may ask (``ctx.prompt_waiting``) is true exactly while a prompt waits and is not withdrawn.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.run.prompt import Prompt
from acp_mux.core.run.waiting_prompts import WaitingPrompts


class Agent:
    """The adapter's side: takes prompts only once ``ready``; records what it was given."""

    def __init__(self) -> None:
        self.ready = False
        self.given: list[str] = []

    def accepts_prompts(self, ctx: ParseContext) -> bool:
        return self.ready

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        assert self.ready, "a prompt went out before the agent took prompts"
        self.given.append(prompt.as_text())


ops = st.lists(
    st.one_of(
        st.tuples(st.just("hold"), st.none()),
        st.tuples(st.just("cancel"), st.none()),
        st.tuples(st.just("ready"), st.none()),
        st.tuples(st.just("release"), st.none()),
    ),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(ops)
def test_every_prompt_goes_out_once_in_order_or_ends_withdrawn(sequence: list[tuple[str, Any]]) -> None:
    agent, ctx = Agent(), ParseContext(run_id="r", agent="a")
    waiting = WaitingPrompts(agent, ctx)  # type: ignore[arg-type]  # (the two methods the keeper calls)
    model: list[tuple[str, bool]] = []  # (text, withdrawn), in arrival order
    ended: list[str] = []
    for n, (op, _) in enumerate(sequence):
        if op == "hold":
            waiting.hold(Prompt.of_text(f"p{n}"))
            model.append((f"p{n}", False))
        elif op == "cancel":
            withdrew = waiting.withdraw()
            expected = not agent.ready and any(not x for _, x in model)
            assert withdrew == expected
            if expected:
                model = [(t, True) for t, _ in model]
        elif op == "ready":
            agent.ready = True
        else:
            before = len(agent.given)
            released = waiting.release()
            if agent.ready:
                due = model
                assert agent.given[before:] == [t for t, x in due if not x]  # the waiting ones, in the order they came
                assert released.sent == len([t for t, x in due if not x])
                types = [e.type for e in released.events]
                assert types == ["turn_start", "turn_end"] * len([t for t, x in due if x])
                ended += [t for t, x in due if x]
                model = []
            else:
                assert agent.given[before:] == [] and released.events == []
        assert ctx.prompt_waiting() == any(not x for _, x in model)
        assert len(waiting) == len(model)
    assert len(agent.given) == len(set(agent.given))  # at most once each
    assert not set(agent.given) & set(ended)  # a withdrawn prompt never went out
    held = [t for t, _ in model]
    texts = sorted(agent.given + ended + held, key=lambda t: int(t[1:]))
    assert texts == [f"p{n}" for n, (op, _) in enumerate(sequence) if op == "hold"]  # every prompt accounted for

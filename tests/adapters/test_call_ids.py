"""``CallIds``: one editor-side id per tool call across a session and its subagents, tried to break."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.adapters.subagent_links import CallIds

OWNERS = st.none() | st.sampled_from(["task1", "task2", "toolu_1"])
RAWS = st.sampled_from(["toolu_1", "toolu_1-2", "toolu_2", "call_0"])


@given(st.lists(st.tuples(OWNERS, RAWS), max_size=30))
def test_each_call_keeps_one_id_no_two_calls_share_one_and_only_the_first_owner_keeps_the_agents(
    names: list[tuple[str | None, str]],
) -> None:
    ids = CallIds()
    given_ids: dict[tuple[str | None, str], str] = {}
    first_owner: dict[str, str | None] = {}
    for owner, raw in names:
        ours = ids.name(owner, raw)
        assert given_ids.setdefault((owner, raw), ours) == ours  # the same call: the same id, every time
        first_owner.setdefault(raw, owner)
        assert ours != raw or first_owner[raw] == owner  # a later conversation never gets the agent's own id
    assert len(set(given_ids.values())) == len(given_ids)  # two calls never share an id
    for (owner, raw), ours in given_ids.items():
        assert ids.refer(owner, raw) == ours and ids.known(owner, raw) == ours


def test_a_repeated_id_is_suffixed_and_a_reference_without_owner_finds_the_only_call() -> None:
    ids = CallIds()
    assert ids.name(None, "toolu_0_1") == "toolu_0_1"  # the parent's Agent call
    assert ids.name("toolu_0_1", "toolu_0_1") == "toolu_0_1-2"  # the subagent's Write, same id from its model
    assert ids.name("toolu_0_1", "toolu_0_1") == "toolu_0_1-2"
    assert ids.refer(None, "toolu_0_1") == "toolu_0_1"  # the session's own call, by its owner
    assert ids.name("toolu_0_1", "toolu_1_1") == "toolu_1_1"
    assert ids.refer(None, "toolu_1_1") == "toolu_1_1"  # a result that does not say whose: the only call of that id
    assert ids.refer(None, "toolu_9") == "toolu_9"  # never named: as the agent said it
    assert ids.name(None, "") == ""

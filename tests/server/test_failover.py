"""Carrying on with another agent at a usage limit, through the real session (``LiveSession``: its gate, its run, its
switch and handover) with in-memory agents: an agent named in ``LIMITED`` ends every turn at a usage limit (a quota
:class:`RateLimitErrorEvent`), the others answer.

What must hold whatever the person answers (hypothesis generates the answers, the editor's kind and the setting):
nothing reaches another agent unless the person picked it among the offered ones (or the setting names it); the
prompt sent again is exactly the one that failed, once; the prompt ends with the new agent's stop reason, or with
the limit's typed error, never ``end_turn`` without an answer.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Iterable
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.core.events import union as ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.core.run.prompt import Prompt
from acp_mux.server.branches import failover as fo
from acp_mux.server.sessions.agent_choice import AgentChoices
from acp_mux.server.sessions.live_session import BridgeConfig, LiveSession
from acp_mux.server.wire.rpc import RpcError
from acp_mux.server.records.store import SessionRecord, SessionStore
from tests.faults.test_handover_forgery import read_back
from tests.server.client import RecordingClient
from tests.server.memory_agents import MemoryAdapter, MemoryProcess

RESETS = 1_900_000_000  # the limited agent's resetsAt (epoch seconds)


class InstantAgent(MemoryProcess):
    """An agent process in memory: its session opens at once and it answers each prompt at once."""

    def __init__(self, name: str, limited: set[str], transient: bool) -> None:
        super().__init__()
        self.name, self.limited, self.transient = name, limited, transient
        self.say("ready")

    async def write(self, data: str | bytes) -> None:
        message = json.loads(data)
        if "prompt" in message:
            if self.name in self.limited:
                self.say("rate" if self.transient else "limit")
            else:
                self.say(f"say:{self.name} answers")


class InstantAdapter(MemoryAdapter):
    def __init__(self, name: str, handed: list[tuple[str, str]]) -> None:
        super().__init__(name)
        self.handed = handed  # (agent, the whole prompt text it was given), in order

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        self.handed.append((self.name, prompt.as_text()))
        ctx.send({"prompt": prompt.as_text()})

    def parse_other(self, line: str, ctx: ParseContext) -> Iterable[ev.BaseEvent]:
        if line.startswith("say:"):
            return ctx.begin_turn() + ctx.text_delta(line[4:]) + ctx.end_text() + ctx.end_turn()
        kind = "rate" if line == "rate" else "quota"
        limit = ev.RateLimitErrorEvent(message=f"{self.name} is out of quota", kind=kind, resets_at=RESETS)
        return ctx.begin_turn() + [limit] + ctx.end_turn()


@dataclass
class Editor:
    """The editor's side: the questions it was asked, answered with ``answers`` in turn (an exception is raised)."""

    answers: list[object]
    asked: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)

    async def request(self, method: str, params: Any) -> object:
        self.asked.append((method, dict(params)))
        answer = self.answers.pop(0) if self.answers else None
        if isinstance(answer, Exception):
            raise answer
        return answer


@dataclass
class World:
    session: LiveSession
    editor: Editor
    handed: list[tuple[str, str]]
    spawned: list[str]


def make_world(
    root: Path,
    answers: list[object],
    *,
    agents: tuple[str, ...] = ("a", "b", "c"),
    every_agent: bool = True,
    form: bool = False,
    setting: str | None = None,
) -> World:
    handed: list[tuple[str, str]] = []
    editor = Editor(list(answers))
    record = SessionRecord(session_id="s1", agent="a", cwd=str(root), failover=setting)
    choices = AgentChoices(agents, root)
    session = LiveSession(
        record,
        InstantAdapter("a", handed),
        BridgeConfig(agent="a"),
        SessionStore(root),
        send_update=lambda _sid, payload: editor.updates.append(dict(payload)),
        request=editor.request,
        client_capabilities={"elicitation": {"form": {}}} if form else {},
        choices=choices if every_agent else None,
        adapter_for=lambda name: InstantAdapter(name, handed),
        usable_agents=None if every_agent else (lambda: choices),
    )
    return World(session, editor, handed, [])


@asynccontextmanager
async def live(world: World, limited: set[str], transient: bool = False) -> AsyncIterator[None]:
    """The session with its agents in memory (``limited``, changed by the test between prompts, is read at each
    prompt); closed at the end."""

    async def fake_spawn(spec: SpawnSpec) -> InstantAgent:
        world.spawned.append(spec.command)
        return InstantAgent(spec.command, limited, transient)

    with mock.patch("acp_mux.core.run.handle.spawn", fake_spawn):
        world.session.warm()
        try:
            yield
        finally:
            await world.session.close()


async def ask(world: World, text: str) -> object:
    """One prompt: its answer, or the RpcError it failed with."""
    try:
        return await world.session.prompt([{"type": "text", "text": text}])
    except RpcError as exc:
        return exc


async def run_prompts(world: World, texts: list[str], limited: set[str], transient: bool = False) -> list[object]:
    async with live(world, limited, transient):
        return [await ask(world, text) for text in texts]


def picked(option: str) -> dict[str, Any]:
    return {"outcome": {"outcome": "selected", "optionId": option}}


def message_of(text: str) -> str:
    """The person's message in a prompt an agent was given (after the handed-over turns, if any)."""
    return read_back(text)[1].strip() if text.startswith("<earlier-conversation") else text


# ── the question and its answers ───────────────────────────────────────────────────────────────────────────────
async def test_the_person_picks_codex_and_the_failed_prompt_is_answered_by_it(tmp_path: Path) -> None:
    world = make_world(tmp_path, [picked("failover:b")])
    [result] = await run_prompts(world, ["fix the bug"], limited={"a"})
    assert result == {"stopReason": "end_turn"}
    assert world.handed == [("a", "fix the bug"), ("b", "fix the bug")]  # the same prompt, once, no handover yet
    [(method, params)] = world.editor.asked
    assert method == "session/request_permission"
    assert [o["name"] for o in params["options"]] == ["Stop", "Carry on with b", "Carry on with c"]
    assert not [o for o in params["options"] if o["kind"].startswith("allow")]  # nothing for an auto-approver
    assert fo.reset_time(RESETS) in params["toolCall"]["title"]  # the reset time, from the agent's field
    assert world.session.adapter.name == "b" and world.session.record.agent == "b"
    assert world.session.record.turn_agents == ["b"]  # the turn is b's: a never saw how it ended
    assert world.session.record.seen_turns == {"a": 0, "b": 1}
    texts = [u["content"]["text"] for u in world.editor.updates if u.get("sessionUpdate") == "agent_message_chunk"]
    assert "b answers" in texts


async def test_the_next_prompt_hands_the_whole_turn_to_the_agent_that_missed_it(tmp_path: Path) -> None:
    """After carrying on, the person switches back: the limited agent gets the turn it could not finish, once."""
    world = make_world(tmp_path, [picked("failover:b")])
    limited = {"a"}
    async with live(world, limited):
        assert await ask(world, "first") == {"stopReason": "end_turn"}
        limited.clear()
        await world.session.switch_agent("a")
        assert await ask(world, "second") == {"stopReason": "end_turn"}
    agent, text = world.handed[-1]
    records, message = read_back(text)
    assert agent == "a" and message.strip() == "second"
    assert [(r["person"], r["agent"]) for r in records] == [("first", "b")] and "b answers" in records[0]["reply"]


@pytest.mark.parametrize(
    "answer",
    [picked("failover:stop"), {"outcome": {"outcome": "cancelled"}}, None, RpcError(-32603, "editor gone")],
)
async def test_stop_or_no_answer_ends_with_the_limits_typed_error_and_nothing_else_starts(
    tmp_path: Path, answer: object
) -> None:
    world = make_world(tmp_path, [answer])
    [result] = await run_prompts(world, ["fix the bug"], limited={"a"})
    assert isinstance(result, RpcError) and result.data is not None
    assert result.data["limit"] == "quota" and result.data["resetsAt"] == RESETS
    assert world.handed == [("a", "fix the bug")] and world.spawned == ["a"]


async def test_an_editor_with_forms_is_asked_by_a_form(tmp_path: Path) -> None:
    world = make_world(tmp_path, [{"action": "accept", "content": {"agent": "c"}}], form=True)
    [result] = await run_prompts(world, ["fix the bug"], limited={"a"})
    assert result == {"stopReason": "end_turn"}
    [(method, params)] = world.editor.asked
    assert method == "elicitation/create" and params["mode"] == "form"
    field_schema = params["requestedSchema"]["properties"]["agent"]
    assert [c["const"] for c in field_schema["oneOf"]] == ["b", "c", "stop"]
    assert world.handed[-1] == ("c", "fix the bug")


async def test_a_transient_rate_limit_is_not_offered(tmp_path: Path) -> None:
    world = make_world(tmp_path, [picked("failover:b")])
    [result] = await run_prompts(world, ["fix the bug"], limited={"a"}, transient=True)
    assert isinstance(result, RpcError) and result.data is not None and result.data["limit"] == "rate"
    assert world.editor.asked == [] and world.spawned == ["a"]


async def test_never_asks_nobody_and_a_named_agent_carries_on_without_a_question(tmp_path: Path) -> None:
    never = make_world(tmp_path / "n", [picked("failover:b")], setting=fo.NEVER)
    [result] = await run_prompts(never, ["x"], limited={"a"})
    assert isinstance(result, RpcError) and never.editor.asked == [] and never.spawned == ["a"]
    named = make_world(tmp_path / "c", [], setting="c")
    [result] = await run_prompts(named, ["x"], limited={"a"})
    assert result == {"stopReason": "end_turn"} and named.editor.asked == [] and named.handed[-1] == ("c", "x")


async def test_a_second_limit_offers_the_agents_left_then_ends_with_the_last_error(tmp_path: Path) -> None:
    world = make_world(tmp_path, [picked("failover:b"), picked("failover:c")])
    [result] = await run_prompts(world, ["x"], limited={"a", "b", "c"})
    assert isinstance(result, RpcError) and "c is out of quota" in result.message
    assert [[o["optionId"] for o in p["options"]] for _, p in world.editor.asked] == [
        ["failover:stop", "failover:b", "failover:c"],
        ["failover:stop", "failover:c"],
    ]
    assert world.handed == [("a", "x"), ("b", "x"), ("c", "x")]  # each agent once


async def test_a_single_agent_session_becomes_an_every_agent_one(tmp_path: Path) -> None:
    world = make_world(tmp_path, [picked("failover:b")], every_agent=False)
    assert world.session.config_options() == []  # the usable agents are not looked for before they are needed
    [result] = await run_prompts(world, ["x"], limited={"a"})
    assert result == {"stopReason": "end_turn"} and world.handed[-1] == ("b", "x")
    options = [u for u in world.editor.updates if u.get("sessionUpdate") == "config_option_update"]
    assert options and options[-1]["configOptions"][0]["id"] == "agent"
    assert options[-1]["configOptions"][0]["currentValue"] == "b"


async def test_a_cancel_while_asked_answers_cancelled_and_nothing_is_sent(tmp_path: Path) -> None:
    world = make_world(tmp_path, [])
    never_answered: asyncio.Future[object] = asyncio.get_running_loop().create_future()

    async def slow(method: str, params: Any) -> object:
        world.editor.asked.append((method, dict(params)))
        return await never_answered

    world.session._request = slow
    task = asyncio.ensure_future(run_prompts(world, ["x"], limited={"a"}))
    while not world.editor.asked:
        await asyncio.sleep(0.01)
    await world.session.cancel()
    [result] = await task
    assert result == {"stopReason": "cancelled"} and world.handed == [("a", "x")]


async def test_reopening_the_session_asks_the_failover_question_again(tmp_path: Path) -> None:
    """The editor reopens the session while the question is open (its dialog gone): asked again, and that answer
    counts, as for the agent's own questions."""
    world = make_world(tmp_path, [])
    never_answered: asyncio.Future[object] = asyncio.get_running_loop().create_future()

    async def editor(method: str, params: Any) -> object:
        world.editor.asked.append((method, dict(params)))
        return await never_answered if len(world.editor.asked) == 1 else picked("failover:b")

    world.session._request = editor
    task = asyncio.ensure_future(run_prompts(world, ["x"], limited={"a"}))
    while not world.editor.asked:
        await asyncio.sleep(0.01)
    assert world.session.reask_pending() == 1
    [result] = await task
    assert result == {"stopReason": "end_turn"} and world.handed == [("a", "x"), ("b", "x")]
    assert [p["options"] for _, p in world.editor.asked][0] == [p["options"] for _, p in world.editor.asked][1]


async def test_the_setting_is_checked_and_remembered(tmp_path: Path) -> None:
    world = make_world(tmp_path, [])
    world.session.set_failover("c")
    assert SessionStore(tmp_path).get("s1").failover == "c"  # type: ignore[union-attr]
    for bad in ("a", "z", 3, None, "ASK"):
        with pytest.raises(RpcError):
            world.session.set_failover(bad)
    option = next(o for o in world.session.config_options() if o["id"] == fo.FAILOVER_OPTION)
    assert option["currentValue"] == "c" and [v["value"] for v in option["options"]] == ["ask", "never", "b", "c"]


# ── whatever the answer: only a chosen agent, and the same prompt once ────────────────────────────────────────
ANSWERS = st.one_of(
    st.sampled_from(["failover:b", "failover:c", "failover:stop", "failover:a", "b", "allow", "failover:z"]).map(
        picked
    ),
    st.sampled_from(["b", "c", "a", "stop", None, 3]).map(lambda a: {"action": "accept", "content": {"agent": a}}),
    st.sampled_from(["decline", "cancel", "accept"]).map(lambda a: {"action": a}),
    st.recursive(
        st.none() | st.booleans() | st.text(max_size=8), lambda inner: st.dictionaries(st.text(max_size=8), inner)
    ),
)


@settings(max_examples=40, deadline=None)
@given(
    answers=st.lists(ANSWERS, min_size=1, max_size=3),
    form=st.booleans(),
    limited=st.sampled_from([{"a"}, {"a", "b"}, {"a", "b", "c"}]),
    setting=st.sampled_from([None, "ask", "never", "b", "c"]),
    earlier=st.booleans(),
)
def test_nothing_reaches_another_agent_unless_chosen_and_the_failed_prompt_is_resent_exactly_once(
    answers: list[object], form: bool, limited: set[str], setting: str | None, earlier: bool
) -> None:
    with tempfile.TemporaryDirectory() as root:
        world = make_world(Path(root), answers, form=form, setting=setting)
        texts = ["an earlier prompt\nwith two lines", "the one that fails"] if earlier else ["the one that fails"]
        results = asyncio.run(_earlier_then(world, texts, limited, setting))
    failed = texts[-1]
    chosen: list[str] = []
    for (_method, params), answer in zip(world.editor.asked, answers, strict=False):
        offered = (
            [c["const"] for c in params["requestedSchema"]["properties"]["agent"]["oneOf"]]
            if form
            else [o["optionId"].removeprefix("failover:") for o in params["options"]]
        )
        assert "a" not in offered and "stop" in offered  # never the limited agent; always Stop
        pick = person_picked(answer, form, [n for n in offered if n != "stop"])
        if pick is None:
            break
        chosen.append(pick)
    if setting in ("b", "c"):
        assert world.editor.asked == []
        chosen = [setting]
    if setting == "never":
        assert world.editor.asked == [] and not chosen
    resent = [(agent, message_of(text)) for agent, text in world.handed if message_of(text) == failed]
    assert resent == [("a", failed), *((n, failed) for n in chosen)]  # first a, then each chosen agent, once each
    assert all(agent == "a" for agent, text in world.handed if message_of(text) != failed)
    result = results[-1]
    answered = bool(chosen) and chosen[-1] not in limited
    assert (result == {"stopReason": "end_turn"}) == answered
    if not answered:
        assert isinstance(result, RpcError) and result.data is not None and result.data["limit"] == "quota"


def person_picked(answer: object, form: bool, agents: list[str]) -> str | None:
    """The test's own reading of an answer (not the bridge's): the agent picked, when it is one of those offered."""
    if not isinstance(answer, dict):
        return None
    if form:
        content = answer.get("content")
        name = content.get("agent") if answer.get("action") == "accept" and isinstance(content, dict) else None
    else:
        outcome = answer.get("outcome")
        selected = isinstance(outcome, dict) and outcome.get("outcome") == "selected"
        option = outcome.get("optionId") if selected and isinstance(outcome, dict) else None
        name = option[len("failover:") :] if isinstance(option, str) and option.startswith("failover:") else None
    return name if name in agents else None


async def _earlier_then(world: World, texts: list[str], limited: set[str], setting: str | None) -> list[object]:
    """The earlier prompt (if any) answered by ``a``, then the failing one with the setting under test."""
    now: set[str] = set()
    async with live(world, now):
        results = [await ask(world, text) for text in texts[:-1]]
        now.update(limited)
        world.session.record.failover = setting
        return [*results, await ask(world, texts[-1])]


# ── the option over the wire (the SDK client, the bridge with alpha, beta and gamma) ──────────────────────────
async def test_the_failover_option_is_offered_set_checked_and_kept_with_the_session(tmp_path: Path) -> None:
    import acp

    from tests.server.switching_client import switching_bridge

    async with switching_bridge(RecordingClient(), tmp_path, ACP_MUX_FAILOVER="gamma") as (conn, _, sid):
        answer = await conn.set_config_option(config_id=fo.FAILOVER_OPTION, session_id=sid, value="beta")
        option = next(o for o in answer.config_options if o.id == fo.FAILOVER_OPTION)
        assert option.current_value == "beta" and [c.value for c in option.options] == ["ask", "never", "beta", "gamma"]
        for bad in ("alpha", "delta", "ASK"):  # the limited agent itself, an unknown one, another case
            with pytest.raises(acp.RequestError, match="failover"):
                await conn.set_config_option(config_id=fo.FAILOVER_OPTION, session_id=sid, value=bad)
    record = json.loads((tmp_path / "state" / "sessions" / f"{sid}.json").read_text())
    assert record["failover"] == "beta"


# ── issue 39, class 2: failover from a single-agent entry at any moment ─────────────────────────────────────────
class StubConnection:
    """The editor connection an :class:`AcpServer` registers its methods on (called directly here, by ``call``)."""

    def __init__(self) -> None:
        self.notes: list[tuple[str, Any]] = []

    def method(self, name: str, handler: Any) -> None: ...

    def notification(self, name: str, handler: Any) -> None: ...

    def on_cancel_request(self, name: str, handler: Any) -> None: ...

    def notify(self, method: str, params: Any) -> None:
        self.notes.append((method, params))

    async def request(self, method: str, params: Any) -> Any:
        raise AssertionError(f"nothing is asked on load: {method}")

    async def writable(self) -> None: ...


async def _entry_after_restart(root: Path, handed: list[tuple[str, str]]) -> tuple[list[str], dict[str, Any]]:
    """A new ``--agent a`` server on the same store (the bridge restarted): the sessions it lists, and what loading
    ``s1`` answers."""
    from acp_mux.server.sessions.bridge import AcpServer

    choices = AgentChoices(("a", "b", "c"), root)
    server = AcpServer(
        StubConnection(),  # type: ignore[arg-type]
        InstantAdapter("a", handed),
        BridgeConfig(agent="a"),
        SessionStore(root),
        usable_agents=lambda: choices,
    )
    with mock.patch.object(AcpServer, "_adapter_of", lambda self, name: InstantAdapter(name, handed)):
        listed = await server.call("session/list", {"cwd": str(root)})
        loaded = await server.call("session/load", {"sessionId": "s1", "cwd": str(root), "mcpServers": []})
    for session in list(server.sessions.values()):
        await session.close()
    return [s["sessionId"] for s in listed["sessions"]], loaded.result


@settings(max_examples=25, deadline=None)
@given(before=st.integers(min_value=0, max_value=2), to=st.sampled_from(["b", "c"]), after=st.booleans())
def test_a_single_agent_session_that_carried_on_at_any_prompt_stays_listed_and_loadable_in_its_entry(
    before: int, to: str, after: bool
) -> None:
    """The limit hits the ``--agent a`` session's prompt number ``before + 1`` (the very first one included: a never
    answered anything, so no turn of the record is a's), the person carries on with ``to``; after a restart the
    ``--agent a`` entry lists the session and loads it, with ``to`` as its agent (before: "no a session")."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        world = make_world(root, [picked(f"failover:{to}")], every_agent=False)
        limited: set[str] = set()

        async def story() -> list[object]:
            results = []
            async with live(world, limited):
                for n in range(before):
                    results.append(await ask(world, f"earlier {n}"))
                limited.add("a")
                results.append(await ask(world, "the one that fails"))
                if after:
                    results.append(await ask(world, "and after"))
            return results

        results = asyncio.run(story())
        assert all(r == {"stopReason": "end_turn"} for r in results), results
        listed, loaded = asyncio.run(_entry_after_restart(root, world.handed))
    assert listed == ["s1"]
    assert {o["id"]: o["currentValue"] for o in loaded["configOptions"]}["agent"] == to


# ── issue 39, class 5: an editor that approves permission questions by itself ───────────────────────────────────
def auto_approver(rule: str) -> Any:
    """An editor's auto-approval, as real ones do it: acpx ``--approve-all`` (the first allow option, else the
    first option), Zed's "always allow tool actions" (the first allow option, else the person is asked: here,
    nobody answers), one that prefers "always", and one that takes the first option whatever it is."""

    def answer(options: list[dict[str, Any]]) -> object:
        allow = [o for o in options if o["kind"] in ("allow_once", "allow_always")]
        always = [o for o in options if o["kind"] == "allow_always"]
        match rule:
            case "acpx":
                pick = (allow or options)[0]
            case "zed":
                if not allow:
                    return None  # shown to the person, who does not answer here
                pick = allow[0]
            case "always":
                pick = (always or allow or options)[0]
            case _:
                pick = options[0]
        return picked(pick["optionId"])

    return answer


@settings(max_examples=40, deadline=None)
@given(
    rule=st.sampled_from(["acpx", "zed", "always", "first"]),
    every_agent=st.booleans(),
    earlier=st.booleans(),
)
def test_an_editor_that_approves_by_itself_carries_nothing_to_another_agent(
    rule: str, every_agent: bool, earlier: bool
) -> None:
    """The failover question reaches an auto-approving editor as a permission question: whatever it picks by
    itself, no other agent is started or given the prompt, and the prompt ends with the limit's typed error."""
    with tempfile.TemporaryDirectory() as root:
        world = make_world(Path(root), [], every_agent=every_agent)
        approve = auto_approver(rule)

        async def editor_request(method: str, params: Any) -> object:
            world.editor.asked.append((method, dict(params)))
            return approve(list(params["options"]))

        world.editor.request = editor_request  # type: ignore[method-assign]
        world.session._request = editor_request  # the session's own reference to the editor
        texts = ["an earlier prompt", "the one that fails"] if earlier else ["the one that fails"]
        limited = set() if earlier else {"a"}

        async def story() -> list[object]:
            results = []
            async with live(world, limited):
                for text in texts:
                    if text == "the one that fails":
                        limited.add("a")
                    results.append(await ask(world, text))
            return results

        results = asyncio.run(story())
    assert world.editor.asked, "the question was asked"
    assert {agent for agent, _ in world.handed} == {"a"}, world.handed  # nothing reached b or c
    assert set(world.spawned) <= {"a"}, world.spawned
    failed = results[-1]
    assert isinstance(failed, RpcError) and failed.data is not None and failed.data["limit"] == "quota"

"""``acp_mux.compare``: one prompt to several agents, each in its own copy, then a table and the chosen change.

The candidates are the bundled scripted agent under three names (tests/server/switching_agents.py), real
subprocesses doing real work in their folders; each one's start also leaves a file naming it, so the candidates'
changes differ. Everything is checked on disk: the person's folder untouched until the pick, exactly the chosen
change after it, no copy and no process left once the comparison is over.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
from pathlib import Path

import pytest

import acp_mux
from acp_mux.adapters import base, registry
from acp_mux.api.compare import Comparison
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.server.branches import compare_copies
from tests.procs import pid_alive, pids
from tests.server import switching_agents


class _Signing(switching_agents._Switchable):
    """The scripted agent, whose start first writes ``signature.txt`` with its name into its folder."""

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        return switching_agents.through_shell(
            super().build_spawn(options), f'echo {self.name} > signature.txt; exec "$0" "$@"'
        )


class Alpha(_Signing):
    name = "alpha"


class Beta(_Signing):
    name = "beta"


@pytest.fixture(autouse=True)
def signing_agents(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = dict(registry.ENTRIES)
    for cls in (Alpha, Beta):
        rows[cls.name] = dataclasses.replace(
            registry.ENTRIES["demo"],
            name=cls.name,
            display_name=f"Scripted {cls.name}",
            transports={"scripted": f"tests.api.test_compare:{cls.__name__}"},
        )
    monkeypatch.setattr(registry, "ENTRIES", rows)
    monkeypatch.setattr(base, "ENTRIES", rows)  # read by name there


@pytest.fixture
def person(tmp_path: Path) -> Path:
    """A git repository with a commit and some work in progress."""
    repo = tmp_path / "project"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "p", "GIT_AUTHOR_EMAIL": "p@x", "GIT_COMMITTER_NAME": "p"}
    env["GIT_COMMITTER_EMAIL"] = "p@x"
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env, capture_output=True)
    (repo / "mine.txt").write_text("the person's own work\n")
    return repo


def state(tmp_path: Path) -> str:
    return str(tmp_path / "state")


def in_copies(tmp_path: Path) -> list[int]:
    """Live processes whose working folder is inside the comparison folders."""
    root = str(tmp_path / "state" / "compare")
    found = []
    for pid in pids():
        try:
            if os.readlink(f"/proc/{pid}/cwd").startswith(root):
                found.append(pid)
        except OSError:
            continue
    return found


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


async def test_each_candidate_works_in_its_copy_and_only_the_chosen_change_reaches_the_folder(
    tmp_path: Path, person: Path
) -> None:
    before = snapshot(person)
    seen: dict[str, list[str]] = {}
    async with acp_mux.compare(
        ["alpha", "beta"], "write the notes", cwd=person, state_dir=state(tmp_path), check="grep -q alpha signature.txt"
    ) as comparison:
        async for agent, event in comparison:
            seen.setdefault(agent, []).append(event.type)
        assert snapshot(person) == before  # nothing of a candidate reached the person's folder
        candidates = await comparison.wait()
        assert [(c.agent, c.status, c.stop_reason) for c in candidates] == [
            ("alpha", "done", "end_turn"),
            ("beta", "done", "end_turn"),
        ]
        assert set(seen) == {"alpha", "beta"} and all("turn_end" in types for types in seen.values())
        for candidate in candidates:
            assert candidate.changes is not None
            assert {f.path for f in candidate.changes.files} == {"notes.txt", "signature.txt"}
            assert candidate.copy is not None and (candidate.copy.cwd / "mine.txt").exists()  # the person's work too
        assert [c.check_status == 0 for c in candidates] == [True, False]
        table = comparison.table()
        assert "| alpha | end_turn |" in table and "| beta | end_turn |" in table and "passed" in table
        assert snapshot(person) == before

        written = await comparison.apply("beta")
        assert sorted(written) == ["notes.txt", "signature.txt"]
        assert (person / "signature.txt").read_text() == "beta\n"
        assert (person / "notes.txt").read_text() == "alpha\ngamma\n"
        assert (person / "mine.txt").read_text() == "the person's own work\n"
    assert list((tmp_path / "state" / "compare").iterdir()) == []
    assert in_copies(tmp_path) == []


async def test_commands_ask_the_persons_policy_while_edits_in_the_copy_do_not(tmp_path: Path, person: Path) -> None:
    asked: list[tuple[str, str]] = []

    def policy(request: acp_mux.ApprovalRequest) -> bool:
        asked.append((request.kind, request.tool_name or ""))
        return False

    async with acp_mux.compare(
        ["alpha", "beta"], "write the notes", cwd=person, state_dir=state(tmp_path), approvals=acp_mux.ask(policy)
    ) as comparison:
        await comparison.wait()
    assert sorted(asked) == [("execute", "Bash"), ("execute", "Bash")]  # one shell command each; no edit asked


async def test_a_deny_rule_beats_the_comparisons_allowance_for_edits(tmp_path: Path, person: Path) -> None:
    async with acp_mux.compare(
        ["alpha", "beta"],
        "write the notes",
        cwd=person,
        state_dir=state(tmp_path),
        approvals=acp_mux.allow(deny=["edit:notes.txt"]),
    ) as comparison:
        for candidate in await comparison.wait():
            assert candidate.changes is not None
            assert {f.path for f in candidate.changes.files} == {"signature.txt"}


async def test_a_change_of_the_person_meanwhile_is_refused_clearly_never_overwritten(
    tmp_path: Path, person: Path
) -> None:
    async with acp_mux.compare(["alpha", "beta"], "write the notes", cwd=person, state_dir=state(tmp_path)) as cmp:
        await cmp.wait()
        (person / "notes.txt").write_text("the person wrote this meanwhile\n")
        with pytest.raises(compare_copies.ApplyConflict) as refused:
            await cmp.apply("alpha")
        assert refused.value.paths == ["notes.txt"]
    assert (person / "notes.txt").read_text() == "the person wrote this meanwhile\n"
    assert not (person / "signature.txt").exists()  # refused whole: not even the file that would merge


async def test_cancel_stops_every_candidate_and_nothing_is_left(tmp_path: Path, person: Path) -> None:
    async with acp_mux.compare(["alpha", "beta"], "hang", cwd=person, state_dir=state(tmp_path)) as comparison:
        await asyncio.sleep(1.0)
        assert len(in_copies(tmp_path)) >= 2
        await comparison.cancel()
        candidates = await asyncio.wait_for(comparison.wait(), 30)
        assert [c.stop_reason for c in candidates] == ["cancelled", "cancelled"]
    await asyncio.sleep(0.5)
    assert in_copies(tmp_path) == []
    assert list((tmp_path / "state" / "compare").iterdir()) == []


async def test_a_failing_candidate_is_marked_and_the_others_go_on(tmp_path: Path, person: Path) -> None:
    async with acp_mux.compare(["alpha", "beta"], "auth", cwd=person, state_dir=state(tmp_path)) as comparison:
        candidates = await comparison.wait()
    assert [c.status for c in candidates] == ["failed", "failed"]
    assert all(c.reason for c in candidates)
    assert "failed: " in comparison.table()


async def test_wrong_agent_lists_and_a_folder_over_the_cap_are_refused_before_anything_runs(
    tmp_path: Path, person: Path
) -> None:
    for agents in (["alpha"], ["alpha", "alpha"], ["alpha", "beta", "demo", "alpha", "beta"]):
        with pytest.raises(acp_mux.AgentMuxError, match="2 to 4 different agents"):
            Comparison(agents, "x", cwd=person, state_dir=state(tmp_path))
    with pytest.raises(acp_mux.AgentMuxError, match="unknown|not"):
        async with acp_mux.compare(["alpha", "nosuchagent"], "x", cwd=person, state_dir=state(tmp_path)):
            pass
    (person / "big.bin").write_bytes(b"x" * 10_000)
    with pytest.raises(acp_mux.AgentMuxError, match=compare_copies.MAX_BYTES_VARIABLE):
        async with acp_mux.compare(["alpha", "beta"], "x", cwd=person, state_dir=state(tmp_path), max_bytes=1000):
            pass
    assert list((tmp_path / "state" / "compare").iterdir()) == []


async def test_a_judge_reads_the_diffs_and_its_recommendation_is_kept(tmp_path: Path, person: Path) -> None:
    async with acp_mux.compare(
        ["alpha", "beta"], "write the notes", cwd=person, state_dir=state(tmp_path), judge="demo"
    ) as comparison:
        await comparison.wait()
    recommendation = comparison.recommendation
    assert recommendation is not None and not recommendation.startswith("The judge")  # it ran, rather than failing
    # the scripted judge takes the task in its prompt ("write the notes") for its own: it is allowed nothing
    assert "I will not write the file" in recommendation


async def test_what_a_check_command_starts_ends_with_it_also_what_left_its_group(tmp_path: Path, person: Path) -> None:
    """The check runs as an agent does (its own group under a supervisor): a child that left the group (``setsid``)
    is gone once the check is over, and the check's output is kept, its last part, stdout and stderr in order."""
    marks = tmp_path / "marks"
    marks.mkdir()
    check = (
        f"setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > {marks}/$(basename $PWD); "
        "echo out; echo err >&2; seq 1 3000"
    )
    async with acp_mux.compare(
        ["alpha", "beta"], "write the notes", cwd=person, state_dir=state(tmp_path), check=check
    ) as comparison:
        candidates = await comparison.wait()
        assert [c.check_status for c in candidates] == [0, 0]
        left = [int(p.read_text()) for p in marks.iterdir()]
        assert len(left) == 2
        for _ in range(40):
            if not any(pid_alive(pid) for pid in left):
                break
            await asyncio.sleep(0.05)
        assert not any(pid_alive(pid) for pid in left), "a process the check started outlived it"
        for candidate in candidates:
            output = candidate.check_output
            assert output.endswith("2999\n3000\n") and len(output) <= 2000, output

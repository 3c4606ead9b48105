"""The copies a comparison gives each candidate, and the way back from the chosen one (acp_mux.server.branches.compare_copies).

What a person relies on: their folder and repository are never written while candidates work; each copy holds
exactly what they see (the commit, their uncommitted and untracked work, not what they ignore); the chosen change
comes back exactly, merged with what they did meanwhile, or is refused whole, naming the files; a copy too large is
refused by name; the copies of a comparison cut short go away at the next start.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.server.branches import compare_copies as cc


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "p", "GIT_AUTHOR_EMAIL": "p@x", "GIT_COMMITTER_NAME": "p"}
    env["GIT_COMMITTER_EMAIL"] = "p@x"
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env).stdout


def person_repo(root: Path) -> Path:
    repo = root / "person"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
    (repo / "README").write_text("hello\n")
    (repo / ".gitignore").write_text("build/\n*.log\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    # the person's work in progress: a tracked change, an untracked file, ignored files
    (repo / "README").write_text("hello\nwork in progress\n")
    (repo / "notes.txt").write_text("untracked notes\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.bin").write_text("ignored\n")
    (repo / "debug.log").write_text("ignored\n")
    return repo


def repo_state(repo: Path) -> dict[str, object]:
    """Everything of the person's repository a copy could have written: refs, worktrees, objects, config, index."""
    dot = repo / ".git"
    return {
        "refs": git(repo, "for-each-ref"),
        "worktrees": git(repo, "worktree", "list", "--porcelain"),
        "objects": sorted(str(p.relative_to(dot)) for p in (dot / "objects").rglob("*")),
        "config": (dot / "config").read_text(),
        "index": (dot / "index").read_bytes(),
        "status": git(repo, "status", "--porcelain", "--ignored"),
    }


def test_a_git_copy_holds_the_commit_and_the_persons_work_and_writes_nothing_in_their_repository(
    tmp_path: Path,
) -> None:
    repo = person_repo(tmp_path)
    before = repo_state(repo)
    copy = cc.make_copy(repo / "src", tmp_path / "copies" / "claude")

    assert copy.kind == "git" and copy.cwd == copy.root / "src"
    assert (copy.root / "README").read_text() == "hello\nwork in progress\n"
    assert (copy.root / "notes.txt").read_text() == "untracked notes\n"
    assert (copy.root / "src" / "app.py").read_text().startswith("one\n")
    assert not (copy.root / "build").exists() and not (copy.root / "debug.log").exists()
    assert repo_state(repo) == before
    assert cc.changes(copy).files == ()  # the starting state is the base: nothing changed yet


def test_the_chosen_change_comes_back_exactly(tmp_path: Path) -> None:
    repo = person_repo(tmp_path)
    copy = cc.make_copy(repo, tmp_path / "copies" / "codex")
    (copy.root / "src" / "app.py").write_text("one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n")
    (copy.root / "new.py").write_text("print('new')\n")
    (copy.root / "notes.txt").unlink()

    found = cc.changes(copy)
    assert {f.path for f in found.files} == {"src/app.py", "new.py", "notes.txt"}
    assert (found.lines_added, found.lines_removed) == (2, 2)
    assert "+THREE" in found.diff and "-three" in found.diff

    written = cc.apply_changes(found, repo)
    assert sorted(written) == ["new.py", "notes.txt", "src/app.py"]
    assert (repo / "src" / "app.py").read_text() == "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n"
    assert (repo / "new.py").read_text() == "print('new')\n"
    assert not (repo / "notes.txt").exists()
    assert (repo / "README").read_text() == "hello\nwork in progress\n"  # the person's own change is kept


def test_what_the_person_did_meanwhile_is_merged_or_the_whole_change_is_refused(tmp_path: Path) -> None:
    repo = person_repo(tmp_path)
    copy = cc.make_copy(repo, tmp_path / "copies" / "claude")
    (copy.root / "src" / "app.py").write_text("one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n")
    (copy.root / "README").write_text("hello\nwork in progress\nby the agent\n")
    found = cc.changes(copy)

    # the person edits another part of app.py: merged
    (repo / "src" / "app.py").write_text("one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n")
    # and the same line of README the agent changed: a conflict, so nothing is written at all
    (repo / "README").write_text("hello\nmine now\n")
    with pytest.raises(cc.ApplyConflict) as refused:
        cc.apply_changes(found, repo)
    assert refused.value.paths == ["README"] and "README" in str(refused.value)
    assert (repo / "src" / "app.py").read_text() == "one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n"
    assert (repo / "README").read_text() == "hello\nmine now\n"

    (repo / "README").write_text("hello\nwork in progress\n")  # the person undoes theirs: it merges now
    cc.apply_changes(found, repo)
    assert (repo / "src" / "app.py").read_text() == "one\ntwo\nTHREE\nfour\nfive\nsix\nSEVEN\n"
    assert (repo / "README").read_text() == "hello\nwork in progress\nby the agent\n"


def test_outside_git_a_plain_copy_honours_gitignore_and_writes_nothing_in_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    (folder / "cache").mkdir(parents=True)
    (folder / "main.c").write_text("int main;\n")
    (folder / "cache" / "big.dat").write_text("x" * 100)
    (folder / ".gitignore").write_text("cache/\n")
    listing = sorted(p.relative_to(folder) for p in folder.rglob("*"))

    copy = cc.make_copy(folder, tmp_path / "copies" / "gemini")
    assert copy.kind == "folder" and copy.cwd == copy.root
    assert (copy.root / "main.c").read_text() == "int main;\n" and not (copy.root / "cache").exists()
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == listing  # no .git made in the folder

    (copy.root / "main.c").write_text("int main(void) { return 0; }\n")
    cc.apply_changes(cc.changes(copy), folder)
    assert (folder / "main.c").read_text() == "int main(void) { return 0; }\n"


def test_a_folder_over_the_cap_is_refused_naming_the_cap(tmp_path: Path) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "data").write_bytes(b"x" * 4096)
    with pytest.raises(cc.CopyTooLarge) as refused:
        cc.make_copy(folder, tmp_path / "copies" / "a", cap=1024)
    assert cc.MAX_BYTES_VARIABLE in str(refused.value) and "0.0 MiB" in str(refused.value)
    assert not (tmp_path / "copies" / "a").exists()
    assert cc.max_bytes({cc.MAX_BYTES_VARIABLE: "2048"}) == 2048
    assert cc.max_bytes({cc.MAX_BYTES_VARIABLE: "-1"}) == cc.max_bytes({}) == cc.DEFAULT_MAX_BYTES


def test_a_symlink_the_agent_made_or_a_linked_folder_never_carries_a_write_outside(tmp_path: Path) -> None:
    repo = person_repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    copy = cc.make_copy(repo, tmp_path / "copies" / "x")
    (copy.root / "escape").symlink_to(outside / "victim")
    with pytest.raises(cc.CompareError, match="symlink"):
        cc.apply_changes(cc.changes(copy), repo)
    assert not (repo / "escape").exists() and not (outside / "victim").exists()

    copy2 = cc.make_copy(repo, tmp_path / "copies" / "y")
    (copy2.root / "linked").mkdir()
    (copy2.root / "linked" / "f.txt").write_text("payload\n")
    (repo / "linked").symlink_to(outside)  # the person's tree holds a link where the agent wrote a folder
    with pytest.raises(cc.CompareError, match="not a plain path"):
        cc.apply_changes(cc.changes(copy2), repo)
    assert list(outside.iterdir()) == []


def test_the_copies_of_a_comparison_whose_owner_is_gone_are_removed_at_the_next_start(tmp_path: Path) -> None:
    state = tmp_path / "state"
    live = cc.new_compare_folder(state, "live")
    assert oct(live.path.stat().st_mode & 0o777) == "0o700"
    dead = cc.new_compare_folder(state, "dead")
    owner = json.loads((dead.path / cc.OWNER_FILE).read_text())
    (dead.path / cc.OWNER_FILE).write_text(json.dumps({**owner, "start": "0"}))  # this pid, another start: reused
    unowned = cc.compare_root(state) / "unowned"
    unowned.mkdir()

    removed = cc.sweep_orphans(state)
    assert sorted(p.name for p in removed) == ["dead", "unowned"]
    assert live.path.exists() and not dead.path.exists() and not unowned.exists()
    live.remove()
    assert not live.path.exists()
    with pytest.raises(ValueError):
        cc.new_compare_folder(state, "../escape")


lines = st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=6)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=lines, ours=lines, theirs=lines)
def test_applying_never_loses_the_persons_change_silently(
    tmp_path_factory: pytest.TempPathFactory, base: list[str], ours: list[str], theirs: list[str]
) -> None:
    """Whatever the person and the agent did to one file: either the person's tree is untouched (refused), or
    the result holds the agent's version where the person changed nothing, and the person's where the agent
    changed nothing."""
    root = tmp_path_factory.mktemp("prop")
    folder = root / "f"
    folder.mkdir()
    text = lambda ls: "".join(x + "\n" for x in ls)  # noqa: E731
    (folder / "file").write_text(text(base))
    copy = cc.make_copy(folder, root / "copy")
    (copy.root / "file").write_text(text(theirs))
    found = cc.changes(copy)
    (folder / "file").write_text(text(ours))
    try:
        cc.apply_changes(found, folder)
    except cc.ApplyConflict:
        assert (folder / "file").read_text() == text(ours)
        return
    result = (folder / "file").read_text()
    if ours == base:
        assert result == text(theirs)
    elif theirs == base:
        assert result == text(ours)


async def test_the_bridge_removes_the_copies_a_killed_comparison_left_when_it_next_starts(tmp_path: Path) -> None:
    """A comparison cut short by a SIGKILL leaves its copies; the next acp-mux (an editor's bridge) removes them
    after its first session/new, and leaves a live comparison's alone."""
    import asyncio

    from tests.server.client import RecordingClient, bridge

    state = tmp_path / "state"
    killed = subprocess.Popen(["sleep", "30"])  # stands for the acp-mux process that made the copies
    orphan = cc.new_compare_folder(state, "orphan")
    (orphan.path / OWNER).write_text(json.dumps({"pid": killed.pid, "start": cc._process_start(killed.pid)}))
    (orphan.path / "claude").mkdir()
    killed.kill()
    killed.wait()
    live = cc.new_compare_folder(state, "live")  # owned by this (live) test process
    project = tmp_path / "project"
    project.mkdir()
    async with bridge(RecordingClient(), "--agent", "demo", cwd=str(project), state_dir=str(state)) as (conn, _):
        await conn.initialize(protocol_version=1)
        await conn.new_session(cwd=str(project), mcp_servers=[])
        for _ in range(100):
            if not orphan.path.exists():
                break
            await asyncio.sleep(0.05)
    assert not orphan.path.exists() and live.path.exists()


OWNER = cc.OWNER_FILE

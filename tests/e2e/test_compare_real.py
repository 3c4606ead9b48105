"""Several agents on one task, on the real CLIs: claude and codex (pinned) get the same prompt through
``acp_mux.compare`` and ``acp-mux run --compare``, each against its own scripted model server, each in its own copy
of a git repository. Each writes a different answer to the same file; the person's folder is untouched until the
pick; the picked content (codex's) is exactly what lands; no copy and no process of either is left.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import acp_mux
from tests.e2e.clis import cli_env
from tests.e2e.harness import SCENARIOS, require_cli
from tests.fakes.model_server import ModelServer
from tests.procs import pids, read_proc

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

PROMPT = "Write your answer into answer.txt."
TIMEOUT = 120


def person_repository(root: Path) -> Path:
    project = root / "project"
    project.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "p", "GIT_AUTHOR_EMAIL": "p@x", "GIT_COMMITTER_NAME": "p"}
    env["GIT_COMMITTER_EMAIL"] = "p@x"
    (project / "README").write_text("the person's project\n")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *args], cwd=project, check=True, env=env, capture_output=True)
    return project


def environment(root: Path, project: Path, claude: ModelServer, codex: ModelServer) -> dict[str, str]:
    """One environment for both candidates: one private HOME holding both CLIs' configs, each CLI on its server."""
    home = root / "home"
    env = {**cli_env("claude", claude.url, home, cwd=project), **cli_env("codex", codex.url, home, cwd=project)}
    env["ACP_MUX_CLAUDE_BIN"] = str(require_cli("claude"))
    env["ACP_MUX_CODEX_BIN"] = str(require_cli("codex"))
    env["ACP_MUX_STATE_DIR"] = str(root / "state")
    return env


@contextmanager
def two_candidates(root: Path) -> Iterator[tuple[Path, dict[str, str], ModelServer, ModelServer]]:
    """The person's repository, and claude and codex each on its own scripted model server: (project, env, claude's
    server, codex's server)."""
    project = person_repository(root)
    with (
        ModelServer(SCENARIOS / "compare_claude.json", delta_delay=0) as claude,
        ModelServer(SCENARIOS / "compare_codex.json", delta_delay=0) as codex,
    ):
        yield project, environment(root, project, claude, codex), claude, codex


def ours(home: Path) -> list[int]:
    marker = f"HOME={home}".encode()
    return [pid for pid in pids() if marker in read_proc(pid, "environ").split(b"\0")]


async def nothing_left(root: Path) -> None:
    deadline = time.monotonic() + 2.0
    while ours(root / "home") and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert ours(root / "home") == []
    compare_root = root / "state" / "compare"
    assert not compare_root.exists() or list(compare_root.iterdir()) == []


async def test_claude_and_codex_each_answer_in_its_copy_and_the_pick_lands_exactly(tmp_path: Path) -> None:
    with two_candidates(tmp_path) as (project, env, _claude, _codex):
        asked: list[str] = []

        def allow_commands(request: acp_mux.ApprovalRequest) -> bool:
            asked.append(request.title)
            return request.kind == "execute"

        async with acp_mux.compare(
            ["claude", "codex"],
            PROMPT,
            cwd=project,
            env=env,
            state_dir=tmp_path / "state",
            approvals=acp_mux.ask(allow_commands),
            check="grep -q codex answer.txt",
        ) as comparison:
            candidates = await asyncio.wait_for(comparison.wait(), TIMEOUT)
            assert [(c.agent, c.stop_reason) for c in candidates] == [("claude", "end_turn"), ("codex", "end_turn")], [
                c.reason for c in candidates
            ]
            copies = {c.agent: c.copy for c in candidates}
            assert (copies["claude"].cwd / "answer.txt").read_text() == "from claude\n"  # type: ignore[union-attr]
            assert (copies["codex"].cwd / "answer.txt").read_text() == "from codex\n"  # type: ignore[union-attr]
            assert not (project / "answer.txt").exists()  # nothing reached the person's folder before the pick
            assert [c.check_status == 0 for c in candidates] == [False, True]
            assert any(title.startswith("[claude]") for title in asked)  # the command asked, naming its agent
            assert "| claude | end_turn |" in comparison.table()
            written = await comparison.apply("codex")
        assert written == ["answer.txt"]
        assert (project / "answer.txt").read_text() == "from codex\n"
        await nothing_left(tmp_path)


async def test_acp_mux_run_compare_applies_the_pick_on_the_real_clis(tmp_path: Path) -> None:
    with two_candidates(tmp_path) as (project, env, _claude, _codex):
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "acp_mux", "run", "--compare", "claude,codex", "--pick", "claude", PROMPT]
            + ["--allow", "execute:printf 'from claude\\n' > answer.txt"],  # exactly the command claude runs
            cwd=project,
            env=env,
            input="",
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "| claude | end_turn |" in done.stdout and "| codex | end_turn |" in done.stdout
    assert "+from codex" in done.stdout and "+from claude" in done.stdout  # each whole diff shown
    assert (project / "answer.txt").read_text() == "from claude\n"
    await nothing_left(tmp_path)

"""Verdicts kept for a day: reused only while the executable, PATH and its interpreters are unchanged; a planted or
damaged cache file is never trusted beyond entries of exactly the stored shape, and never fails a start."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.cli.health import CANNOT_RUN, NOT_VERIFIED, RUNS
from acp_mux.cli.health_cache import FILE, FRESH_S, cached_check_all, load, runnable_agents


def counting_cli(directory: Path, name: str, output: str, status: int = 0) -> Path:
    """A CLI that notes each time it is asked its version (one line in ``<name>.asked``)."""
    path = directory / name
    path.write_text(f"#!/bin/sh\necho x >> '{directory / (name + '.asked')}'\necho '{output}'\nexit {status}\n")
    path.chmod(0o755)
    return path


def asked(directory: Path, name: str) -> int:
    marks = directory / f"{name}.asked"
    return len(marks.read_text().splitlines()) if marks.exists() else 0


def test_a_verdict_is_reused_until_the_cli_changes_or_a_day_passes(tmp_path):
    cli = counting_cli(tmp_path, "claude", "2.1.197 (Claude Code)")
    env, state = {"PATH": "/nonexistent"}, tmp_path / "state"
    clock = [1_000_000.0]

    def check() -> str:
        return cached_check_all([str(cli)], env, state, now=lambda: clock[0])[0].state

    assert check() == RUNS and asked(tmp_path, "claude") == 1
    assert check() == RUNS and asked(tmp_path, "claude") == 1  # reused
    clock[0] += FRESH_S + 1
    assert check() == RUNS and asked(tmp_path, "claude") == 2  # a day later: asked again
    os.utime(cli, ns=(1, 1))  # an upgrade changes the file
    assert check() == RUNS and asked(tmp_path, "claude") == 3
    assert check() == RUNS and asked(tmp_path, "claude") == 3
    assert oct((state / FILE).stat().st_mode & 0o777) == "0o600"


def test_a_new_interpreter_on_path_asks_again(tmp_path):
    """openclaw's Node engine error goes away when a newer node is put first on PATH: the verdict is not kept."""
    cli = counting_cli(tmp_path, "openclaw", "openclaw: Node 20.20.2: node:sqlite is unavailable", status=1)
    state = tmp_path / "state"
    assert cached_check_all([str(cli)], {"PATH": "/nonexistent"}, state)[0].state == CANNOT_RUN
    newer = tmp_path / "node24"
    newer.mkdir()
    (newer / "node").write_text("#!/bin/sh\n")
    (newer / "node").chmod(0o755)
    cached_check_all([str(cli)], {"PATH": f"{newer}:/nonexistent"}, state)
    assert asked(tmp_path, "openclaw") == 2


def test_auto_uses_the_verdicts_doctor_stored(tmp_path):
    import subprocess
    import sys

    good = counting_cli(tmp_path, "claude", "2.1.197 (Claude Code)")
    bad = counting_cli(tmp_path, "codex", "node: engine error", status=1)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "ACP_MUX_STATE_DIR": str(tmp_path / "state"),
        "ACP_MUX_CLAUDE_BIN": str(good),
        "ACP_MUX_CODEX_BIN": str(bad),
    }
    done = subprocess.run(
        [sys.executable, "-m", "acp_mux", "doctor"], env=env, capture_output=True, text=True, timeout=60
    )
    assert "codex — Codex" in done.stdout and asked(tmp_path, "claude") == 1 and asked(tmp_path, "codex") == 1
    assert runnable_agents(["claude", "codex"], env, tmp_path / "state") == ("claude",)
    assert asked(tmp_path, "claude") == 1 and asked(tmp_path, "codex") == 1  # answered from doctor's verdicts


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
ENTRY = st.fixed_dictionaries(
    {},
    optional={
        "state": st.sampled_from([RUNS, CANNOT_RUN, NOT_VERIFIED, "ready", "", 1]),
        "detail": st.text(max_size=8) | st.integers(),
        "at": st.floats(allow_nan=True) | st.booleans() | st.integers() | st.text(max_size=3),
    },
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(st.one_of(JSON, st.dictionaries(st.text(max_size=64), ENTRY | JSON, max_size=4)) | st.binary(max_size=40))
def test_whatever_the_file_holds_only_well_formed_entries_are_read(tmp_path, planted):
    state = tmp_path / "hostile"
    state.mkdir(exist_ok=True)
    data = planted if isinstance(planted, bytes) else json.dumps(planted).encode()
    (state / FILE).write_bytes(data)
    entries = load(state)
    for entry in entries.values():
        assert entry["state"] in (RUNS, CANNOT_RUN, NOT_VERIFIED) and isinstance(entry["detail"], str)
        assert isinstance(entry["at"], (int, float)) and not isinstance(entry["at"], bool)
    cli = tmp_path / "hostile-cli"
    if not cli.exists():
        cli.write_text("#!/bin/sh\necho 1.0\n")
        cli.chmod(0o755)
    assert cached_check_all([str(cli)], {"PATH": "/nonexistent"}, state)[0].state == RUNS


def test_a_planted_fifo_or_symlink_is_not_read_and_does_not_hang(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / FILE)
    assert load(state) == {}
    os.unlink(state / FILE)
    (tmp_path / "secret").write_text(json.dumps({"k": {"state": RUNS, "detail": "x", "at": 1}}))
    (state / FILE).symlink_to(tmp_path / "secret")
    assert load(state) == {}


async def test_the_every_agent_entry_offers_no_agent_doctor_proved_unable_to_run(tmp_path):
    """``acp-mux --agent auto`` (what an editor starts) reads doctor's stored verdicts: the broken CLI is not in the
    session's Agent option; with no verdict stored the bridge runs no CLI and offers what it finds."""
    import subprocess
    import sys

    from tests.server.client import RecordingClient, bridge

    def version_cli(name: str, output: str, status: int) -> Path:
        """Notes each ``--version`` asked (the bridge may also start the agent itself: that is not a check)."""
        path = tmp_path / name
        marks = tmp_path / f"{name}.asked"
        path.write_text(
            f"#!/bin/sh\n[ \"$1\" = --version ] || exec sleep 30\necho x >> '{marks}'\necho '{output}'\nexit {status}\n"
        )
        path.chmod(0o755)
        return path

    good = version_cli("claude", "2.1.197 (Claude Code)", 0)
    bad = version_cli("codex", "node: engine error", 1)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "ACP_MUX_AGENTS": "claude,codex",
        "ACP_MUX_CLAUDE_BIN": str(good),
        "ACP_MUX_CODEX_BIN": str(bad),
    }
    cwd = tmp_path / "project"
    cwd.mkdir()

    async def offered(state: Path) -> list[str]:
        async with bridge(RecordingClient(), "--agent", "auto", cwd=str(cwd), state_dir=str(state), env=env) as (
            conn,
            _,
        ):
            await conn.initialize(protocol_version=1)
            session = await conn.new_session(cwd=str(cwd), mcp_servers=[])
            agent = next(o for o in session.config_options if o.id == "agent")
            return [choice.value for choice in agent.options]

    assert await offered(tmp_path / "fresh") == ["claude", "codex"]  # nothing stored: offered, nothing run
    assert asked(tmp_path, "claude") == 0 and asked(tmp_path, "codex") == 0
    state = tmp_path / "checked"
    subprocess.run(
        [sys.executable, "-m", "acp_mux", "doctor"],
        env={**env, "ACP_MUX_STATE_DIR": str(state)},
        capture_output=True,
        timeout=60,
    )
    assert await offered(state) == ["claude"]

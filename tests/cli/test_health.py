"""The one health check (``--version``) that ``doctor`` shows and ``--agent auto`` uses: a CLI proven unable to run
is never called ready nor offered; a slow one is "not verified", never "cannot run"."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.cli.health import CANNOT_RUN, NOT_VERIFIED, RUNS, check, judge
from acp_mux.cli.health_cache import runnable_agents

FAILURE_WORDS = re.compile(
    r"\b(error|unavailable|unsupported|not supported|no such file|not found|requires?|cannot|"
    r"please (upgrade|update|install)|traceback)\b",
    re.IGNORECASE,
)


def script(directory: Path, name: str, body: str) -> Path:
    path = directory / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def test_what_real_clis_print_is_judged_right():
    assert judge(0, "2.1.197 (Claude Code)\n") == judge(0, "2.1.197 (Claude Code)")
    assert judge(0, "2.1.197 (Claude Code)\n").state == RUNS
    assert judge(0, "GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n").state == RUNS
    assert judge(0, "Hermes Agent v0.19.0 (2026.7.20)").state == RUNS
    node20 = "openclaw: Node 20.20.2: node:sqlite is unavailable; use 24.16+/26.1+ or a build with the fix.\n"
    assert judge(0, node20).state == CANNOT_RUN and "node:sqlite" in judge(0, node20).detail
    assert judge(1, node20).detail.startswith("--version failed (exit 1): openclaw: Node 20.20.2")
    assert judge(127, "\n/usr/bin/env: 'bun': No such file or directory\n").state == CANNOT_RUN
    assert judge(0, "").state == NOT_VERIFIED and judge(0, "hello").state == NOT_VERIFIED


@given(st.integers(-255, 255), st.text(max_size=200))
def test_a_cli_is_called_runnable_only_on_a_clean_exit_with_a_version_and_no_error(code, output):
    """Whatever a CLI prints and however it exits (an attacker's script, a broken install): "runs" needs exit 0, a
    version number on its first line and no failure wording anywhere; a non-zero exit is always "cannot run"."""
    health = judge(code, output)
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if code != 0:
        assert health.state == CANNOT_RUN and not health.offered
    if health.state == RUNS:
        assert code == 0 and re.search(r"\d+\.\d+", lines[0])
        assert not any(FAILURE_WORDS.search(line) for line in lines)
    assert "\n" not in health.detail and len(health.detail) <= 200


def test_a_cli_that_does_not_answer_in_time_is_not_verified_not_broken(tmp_path):
    slow = script(tmp_path, "slow", "exec sleep 60")
    health = check(str(slow), timeout=0.5)
    assert health.state == NOT_VERIFIED and health.offered and "did not answer within 0.5 s" in health.detail


def test_auto_offers_what_runs_and_not_what_cannot(tmp_path):
    """The same check decides what ``--agent auto`` offers: a CLI whose --version fails is left out."""
    claude = script(tmp_path, "claude", "echo '2.1.197 (Claude Code)'")
    codex = script(tmp_path, "codex", "echo 'node: bad option' >&2; exit 9")
    env = {"PATH": "/nonexistent", "ACP_MUX_CLAUDE_BIN": str(claude), "ACP_MUX_CODEX_BIN": str(codex)}
    assert runnable_agents(["codex", "claude", "gemini"], env) == ("claude",)

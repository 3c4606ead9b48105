"""``acp-mux doctor`` says exactly what it checked, fits 100 columns, and lists every agent plus the demo."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from acp_mux.adapters.registry import AGENT_NAMES, DEMO_AGENT, ENTRIES


def doctor(*names: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_mux", "doctor", *names],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """No agent on PATH, no keys, an empty HOME: whatever doctor finds, the test put there."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ACP_MUX_") and not any(k == var for row in ENTRIES.values() for var in row.auth_env)
    }
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        env.pop(var, None)
    return {**env, "HOME": str(home), "PATH": "/nonexistent", **extra}


def fake_cli(directory: Path, name: str, version: str) -> Path:
    path = directory / name
    path.write_text(f"#!/bin/sh\necho '{version}'\n")
    path.chmod(0o755)
    return path


def block(output: str, name: str) -> str:
    """The agent's block, with wrapped lines joined again (the words are what is checked here)."""
    text = next(b for b in output.split("\n\n") if b.startswith(f"{name} — "))
    return "\n".join(" ".join(line.split()) for line in text.replace("\n            ", " ").splitlines())


def test_every_agent_and_the_demo_within_100_columns(tmp_path):
    out = doctor(env=clean_env(tmp_path))
    assert out.returncode == 0, out.stderr
    for name in (*AGENT_NAMES, DEMO_AGENT):
        assert block(out.stdout, name)
    long = [line for line in out.stdout.splitlines() if len(line) > 100]
    assert long == []
    assert block(out.stdout, DEMO_AGENT).startswith("demo — Scripted demo agent: ready")


def test_a_key_in_the_environment_is_set_not_verified(tmp_path):
    fake = fake_cli(tmp_path, "claude", "2.1.197 (Claude Code)")
    out = doctor("claude", env=clean_env(tmp_path, ACP_MUX_CLAUDE_BIN=str(fake), ANTHROPIC_API_KEY="sk-test"))
    text = block(out.stdout, "claude")
    assert out.returncode == 0
    assert "claude — Claude Code (tested with 2.1.197): ready" in text
    assert f"found: 2.1.197 (Claude Code) at {fake}" in text
    assert "key set: ANTHROPIC_API_KEY (not verified)" in text
    assert "sk-test" not in out.stdout


def test_a_login_file_is_found_not_verified(tmp_path):
    fake = fake_cli(tmp_path, "codex", "codex-cli 0.169.0")
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "auth.json").write_text("{}")
    out = doctor("codex", env=clean_env(tmp_path, ACP_MUX_CODEX_BIN=str(fake)))
    text = block(out.stdout, "codex")
    assert f"login found: {tmp_path}/.codex/auth.json (not verified)" in text and ": ready" in text.splitlines()[0]


def test_nothing_found_is_not_checked_and_never_ready(tmp_path):
    fake = fake_cli(tmp_path, "claude", "2.1.197 (Claude Code)")
    out = doctor("claude", env=clean_env(tmp_path, ACP_MUX_CLAUDE_BIN=str(fake)))
    text = block(out.stdout, "claude")
    assert "ready" not in text.splitlines()[0] and "installed; sign-in not checked" in text
    assert "not checked: no ANTHROPIC_API_KEY set" in text
    assert "acp-mux --agent claude --login" in text
    assert out.returncode == 0  # it can start; signing in is the user's next step


def test_a_missing_agent_says_how_to_install_it(tmp_path):
    out = doctor("claude", env=clean_env(tmp_path))
    text = block(out.stdout, "claude")
    assert out.returncode == 1
    assert "cannot start" in text and "claude not found on PATH" in text
    assert "npm install -g @anthropic-ai/claude-code" in text and "ACP_MUX_CLAUDE_BIN=/path/to/claude" in text


def test_a_set_but_wrong_bin_variable_is_called_wrong(tmp_path):
    out = doctor("codex", env=clean_env(tmp_path, ACP_MUX_CODEX_BIN=str(tmp_path / "nowhere")))
    text = block(out.stdout, "codex")
    assert out.returncode == 1
    assert f"ACP_MUX_CODEX_BIN is set to {tmp_path}/nowhere, which is not an executable file" in text
    assert "fix ACP_MUX_CODEX_BIN" in text


def test_unknown_names_are_refused(tmp_path):
    out = doctor("nosuch", env=clean_env(tmp_path))
    assert out.returncode == 2 and "unknown agent 'nosuch'" in out.stderr


def test_each_row_says_what_works_and_what_does_not(tmp_path):
    fake = fake_cli(tmp_path, "openclaw", "OpenClaw 2026.9.6")
    out = doctor("openclaw", env=clean_env(tmp_path, ACP_MUX_OPENCLAW_BIN=str(fake)))
    text = block(out.stdout, "openclaw")
    assert "status works through `openclaw acp` on one private gateway per user" in text
    assert "Lost by openclaw's bridge: the text before the first tool call and the thinking" in text
    assert "no streaming, no approvals" in text  # the limits, not only the wins


def test_cursor_says_it_is_untested_and_takes_agent_only_as_cursors_link(tmp_path):
    """cursor was never run for real here: doctor says so first. A bare ``agent`` on PATH is not taken for it;
    the installer's ``agent`` → …/cursor-agent link is (its version is asked from that file only)."""
    bare = tmp_path / "bare"
    bare.mkdir()
    fake_cli(bare, "agent", "some other agent 1.0")
    out = doctor("cursor", env=clean_env(tmp_path, PATH=str(bare)))
    text = block(out.stdout, "cursor")
    assert out.returncode == 1
    assert "tested untested against the real CLI: tested against a replayed transcript" in text
    assert "is not a link to cursor-agent" in text and "some other agent" not in text

    (tmp_path / "versions").mkdir()
    real = fake_cli(tmp_path / "versions", "cursor-agent", "2026.10.01-e373342")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "agent").symlink_to(real)
    out = doctor("cursor", env=clean_env(tmp_path, PATH=str(linked), CURSOR_API_KEY="key-test"))
    text = block(out.stdout, "cursor")
    assert out.returncode == 0, out.stdout
    assert f"found: 2026.10.01-e373342 at {linked / 'agent'}" in text and "key-test" not in out.stdout


def test_each_agent_says_what_it_asks_before_and_the_mode_that_asks_nothing(tmp_path):
    """What a new session asks the person before is on every agent's block, with the mode that turns it off."""
    out = doctor(env=clean_env(tmp_path))
    for name in (*AGENT_NAMES, DEMO_AGENT):
        asks = [line for line in block(out.stdout, name).splitlines() if line.startswith("asks ")]
        assert asks == [f"asks {ENTRIES[name].asking.text}"], (name, asks)
    assert "before writes, edits and commands in mode `ask`" in block(out.stdout, "codex")
    assert "without asking: `--mode full-access`" in block(out.stdout, "codex")
    assert "without asking: `--mode bypassPermissions`" in block(out.stdout, "claude")
    assert "no mode runs without asking" in block(out.stdout, "omp")

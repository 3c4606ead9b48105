"""``acp-mux doctor`` says exactly what it checked, fits the terminal (80 columns when unknown), starts with one
summary line, lists every agent plus the demo, and tells a CLI that cannot run from one that can."""

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
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COLUMNS", "XDG_STATE_HOME"):
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


def test_every_agent_and_the_demo_within_80_columns_after_one_summary_line(tmp_path):
    out = doctor(env=clean_env(tmp_path))
    assert out.returncode == 0, out.stderr
    for name in (*AGENT_NAMES, DEMO_AGENT):
        assert block(out.stdout, name)
    long = [line for line in out.stdout.splitlines() if len(line) >= 80 and " " in line.strip()]
    assert long == []  # not a terminal, no COLUMNS: 80 (a path longer than a line stays whole, alone on it)
    first, blank = out.stdout.splitlines()[:2]
    assert first == "acp-mux doctor: 1 ready, 10 not found" and blank == ""
    assert block(out.stdout, DEMO_AGENT).startswith("demo — Scripted demo agent: ready")
    assert f"The bridge's log: {tmp_path}/.local/state/acp-mux/logs/acp-mux.log" in " ".join(out.stdout.split())


def test_a_wide_terminal_gets_long_lines_and_a_narrow_one_short(tmp_path):
    wide = doctor("codex", env=clean_env(tmp_path, COLUMNS="150")).stdout.splitlines()
    narrow = doctor("codex", env=clean_env(tmp_path, COLUMNS="60")).stdout.splitlines()
    breakable = [line for line in narrow if " " in line.strip()]  # a long path stays whole, alone on its line
    assert max(map(len, wide)) > 100 and max(map(len, breakable)) < 60
    assert len(narrow) > len(wide)


def test_a_key_in_the_environment_is_set_not_verified(tmp_path):
    fake = fake_cli(tmp_path, "claude", "2.1.332 (Claude Code)")
    out = doctor("claude", env=clean_env(tmp_path, ACP_MUX_CLAUDE_BIN=str(fake), ANTHROPIC_API_KEY="sk-test"))
    text = block(out.stdout, "claude")
    assert out.returncode == 0
    assert "claude — Claude Code (tested with 2.1.332): ready" in text
    assert f"found: 2.1.332 (Claude Code) at {fake}" in text
    assert "key set: ANTHROPIC_API_KEY (not verified)" in text
    assert "sk-test" not in out.stdout


def test_a_login_file_is_found_not_verified(tmp_path):
    fake = fake_cli(tmp_path, "codex", "codex-cli 0.169.0")
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "auth.json").write_text("{}")
    out = doctor("codex", env=clean_env(tmp_path, ACP_MUX_CODEX_BIN=str(fake)))
    text = block(out.stdout, "codex")
    assert f"login found: {tmp_path}/.codex/auth.json (not verified)" in text and ": ready" in text.splitlines()[0]


def test_no_sign_in_found_is_said_so_and_never_ready(tmp_path):
    fake = fake_cli(tmp_path, "claude", "2.1.332 (Claude Code)")
    out = doctor("claude", env=clean_env(tmp_path, ACP_MUX_CLAUDE_BIN=str(fake)))
    text = block(out.stdout, "claude")
    assert "ready" not in text.splitlines()[0] and "installed; no sign-in found" in text
    assert "none found: no ANTHROPIC_API_KEY set" in text and "not checked" not in out.stdout
    assert "acp-mux --agent claude --login" in text
    assert out.returncode == 0  # it can start; signing in is the user's next step


def test_a_missing_agent_says_how_to_install_it(tmp_path):
    out = doctor("claude", env=clean_env(tmp_path))
    text = block(out.stdout, "claude")
    assert out.returncode == 1
    assert text.splitlines()[0].endswith(": not found") and "claude not found on PATH" in text
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


def broken_cli(directory: Path, name: str, script: str) -> Path:
    path = directory / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)
    return path


def test_a_cli_that_cannot_run_is_not_ready_and_says_why(tmp_path):
    """The complaint as filed: openclaw on Node 20 printed a Node error and exited 0, and showed as installed."""
    node_error = "openclaw: Node 20.20.2: node:sqlite is unavailable; use 24.16+/26.1+ or a build with the fix."
    fake = broken_cli(tmp_path, "openclaw", f"echo '{node_error}'; exit 0")
    out = doctor("openclaw", env=clean_env(tmp_path, ACP_MUX_OPENCLAW_BIN=str(fake), OPENAI_API_KEY="k"))
    text = block(out.stdout, "openclaw")
    assert out.returncode == 1
    assert text.splitlines()[0].endswith(": cannot run") and "node:sqlite is unavailable; use 24.16+" in text
    assert "repair the install so `openclaw --version` runs" in text
    assert out.stdout.startswith("acp-mux doctor: 1 cannot run\n")


def test_a_failing_version_is_cannot_run_with_its_exit_code(tmp_path):
    fake = broken_cli(tmp_path, "omp", "echo \"/usr/bin/env: 'bun': No such file or directory\" >&2; exit 127")
    out = doctor("omp", env=clean_env(tmp_path, ACP_MUX_OMP_BIN=str(fake)))
    text = block(out.stdout, "omp")
    assert out.returncode == 1
    assert "--version failed (exit 127): /usr/bin/env: 'bun': No such file or directory" in text


def test_help_is_help(tmp_path):
    out = doctor("--help", env=clean_env(tmp_path))
    assert out.returncode == 0 and out.stdout.startswith("usage: acp-mux doctor") and "unknown agent" not in out.stderr

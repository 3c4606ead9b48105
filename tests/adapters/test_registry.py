"""The agent table: one row per agent, the only copy of what is known before a run, and consistent with the pins."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from acp_mux.adapters.base import AgentAdapter, get_adapter
from acp_mux.adapters.registry import (
    AGENT_NAMES,
    DEMO_AGENT,
    ENTRIES,
    AgentNotAvailable,
    UnknownAgent,
    entry,
    expand_path,
    locate_binary,
    missing_binary_help,
)
from tests.e2e.clis import PINS

# What the row owns; an adapter class that sets one of these again would be a second copy that can drift.
ROW_FIELDS = {"display_name", "binary", "package", "install_hint", "login_args", "auth_hint", "auth_env", "transport"}


def test_ten_agents_and_the_demo_each_with_one_row():
    assert len(AGENT_NAMES) == 10 and len(set(AGENT_NAMES)) == 10
    assert set(ENTRIES) == {*AGENT_NAMES, DEMO_AGENT}
    for name, row in ENTRIES.items():
        assert row.name == name and row.display_name and row.binary and row.install_text


@pytest.mark.parametrize("name", [n for n, row in ENTRIES.items() if row.supported])
def test_every_transport_is_an_adapter_that_reads_its_row(name):
    row = ENTRIES[name]
    for transport, target in row.transports.items():
        module, _, cls_name = target.partition(":")
        cls = getattr(importlib.import_module(module), cls_name)
        assert issubclass(cls, AgentAdapter) and cls.name == name, target
        duplicated = {
            attr for klass in cls.__mro__ if klass is not AgentAdapter and klass is not object for attr in vars(klass)
        } & ROW_FIELDS
        assert duplicated == set(), f"{target} repeats {sorted(duplicated)} from the registry row"
        adapter = get_adapter(name, transport)
        assert (adapter.entry, adapter.binary, adapter.login_args) == (row, row.binary, row.login_args)
    assert type(get_adapter(name)) is type(get_adapter(name, row.default_transport))


def test_rows_agree_with_the_pinned_clis_the_tests_drive():
    for name, (package, version) in PINS.items():
        row = ENTRIES.get(name)
        if row is None or not (row.supported or row.tested_version):
            continue  # pinned for a test that does not go through acp-mux yet
        assert row.tested_version == version, name
        assert row.package == package.split("[")[0], name


def test_unknown_and_unsupported_are_told_apart():
    with pytest.raises(UnknownAgent, match="unknown agent 'nosuch'"):
        get_adapter("nosuch")
    with pytest.raises(UnknownAgent):
        entry("nosuch")
    with pytest.raises(AgentNotAvailable, match="codex has no transport 'x' \\(choose: app-server, exec\\)"):
        get_adapter("codex", "x")
    unsupported = [n for n in AGENT_NAMES if not ENTRIES[n].supported]
    for name in unsupported:
        with pytest.raises(AgentNotAvailable, match=f"does not support {name} yet"):
            get_adapter(name)


def test_login_command_and_override_variable_come_from_the_name():
    row = ENTRIES["codex"]
    assert row.login_command == "acp-mux --agent codex --login" and row.bin_env_var == "ACP_MUX_CODEX_BIN"
    assert ENTRIES[DEMO_AGENT].login_command is None


def _exe(path: Path) -> Path:
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_locate_binary_in_the_order_the_run_uses(tmp_path):
    row = ENTRIES["claude"]
    on_path = _exe(tmp_path / "claude")
    chosen = _exe(tmp_path / "chosen")
    env = {"PATH": str(tmp_path)}
    assert locate_binary(row, None, env) == (str(on_path), None)
    assert locate_binary(row, None, {**env, "ACP_MUX_CLAUDE_BIN": str(chosen)}) == (str(chosen), None)
    assert locate_binary(row, str(chosen), {**env, "ACP_MUX_CLAUDE_BIN": "/nowhere"}) == (str(chosen), None)
    assert locate_binary(row, None, {**env, "ACP_MUX_CLAUDE_BIN": "/nowhere"}) == (
        None,
        "ACP_MUX_CLAUDE_BIN is set to /nowhere, which is not an executable file",
    )
    assert locate_binary(row, "/nowhere", env) == (None, "--agent-bin /nowhere is not an executable file")
    path, problem = locate_binary(row, None, {"PATH": "/nonexistent"})
    assert path is None and problem == "claude not found on PATH"
    help_text = missing_binary_help(row, problem)
    assert "npm install -g @anthropic-ai/claude-code" in help_text and "acp-mux doctor claude" in help_text


def test_login_files_expand_from_the_agents_own_variables(tmp_path):
    assert expand_path("${CODEX_HOME:-~/.codex}/auth.json", {"HOME": "/h"}) == "/h/.codex/auth.json"
    assert expand_path("${CODEX_HOME:-~/.codex}/auth.json", {"HOME": "/h", "CODEX_HOME": "/c"}) == "/c/auth.json"
    row = ENTRIES["claude"]
    assert row.existing_login_file({"HOME": str(tmp_path)}) is None
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / ".credentials.json").write_text("{}")
    assert row.existing_login_file({"HOME": "/h", "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}) == str(
        tmp_path / "cfg" / ".credentials.json"
    )

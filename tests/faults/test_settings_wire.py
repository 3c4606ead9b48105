"""A badly set ACP_MUX_* setting through the real stdio (issue 21, class 4): refused at start with a message that
names the variable and what it accepts, shown where editors show it (session/new), and never acted on: a
retention setting of -1 deletes no session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.faults.raw import RawBridge
from tests.faults.test_jsonrpc_wire import error_of
from tests.faults.test_store_wire import _one_session

BAD = [
    ("ACP_MUX_SESSION_MAX_AGE_DAYS", "-1", "whole number of days"),
    ("ACP_MUX_SESSION_MAX_AGE_DAYS", "", "whole number of days"),
    ("ACP_MUX_SESSION_MAX_COUNT", "1e9", "whole number from 0"),
    ("ACP_MUX_SESSION_MAX_COUNT", "-5", "whole number from 0"),
    ("ACP_MUX_LOG_LEVEL", "loud", "DEBUG, INFO, WARNING, ERROR, CRITICAL"),
    ("ACP_MUX_CLAUDE_PREWARM", "yes", "0 (off) or 1 (on)"),
    ("ACP_MUX_FAILOVER", "maybe", "names no agent acp-mux runs"),
    ("ACP_MUX_FAILOVER", "Codex", "never, or an agent's name"),
    ("ACP_MUX_FAILOVER", "codx", "names no agent acp-mux runs"),
]


@pytest.mark.parametrize(("name", "value", "allowed"), BAD)
def test_a_bad_setting_is_refused_at_start_and_never_acted_on(
    tmp_path: Path, name: str, value: str, allowed: str
) -> None:
    sid = _one_session(tmp_path)
    bridge = RawBridge(tmp_path, env={name: value})
    assert "agentCapabilities" in bridge.initialize()  # the editor still gets an answer it can show an error under
    error = error_of(bridge.call("session/new", {"cwd": str(bridge.cwd), "mcpServers": []}, 15))
    assert name in error["message"] and allowed in error["message"], error
    assert error["code"] == -32602  # an invalid parameter the editor shows, not an internal error (-32603)
    error = error_of(bridge.call("session/load", {"sessionId": sid, "cwd": str(bridge.cwd), "mcpServers": []}, 15))
    assert name in error["message"]
    assert bridge.close() == 0
    assert (tmp_path / "state" / "sessions" / f"{sid}.json").exists()  # nothing pruned on a bad value


def test_good_settings_serve_as_before(tmp_path: Path) -> None:
    env = {
        "ACP_MUX_SESSION_MAX_AGE_DAYS": "off",
        "ACP_MUX_SESSION_MAX_COUNT": " 5 ",
        "ACP_MUX_LOG_LEVEL": "info",
        "ACP_MUX_CLAUDE_PREWARM": "0",
        "ACP_MUX_FAILOVER": "never",
    }
    bridge = RawBridge(tmp_path, env=env)
    bridge.initialize()
    sid = bridge.new_session()
    answer = bridge.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}, 30)
    assert answer["stopReason"] == "end_turn"
    assert bridge.close() == 0


def test_doctor_names_a_bad_setting_and_fails() -> None:
    env = {**os.environ, "ACP_MUX_SESSION_MAX_COUNT": "-3"}
    done = subprocess.run(
        [sys.executable, "-m", "acp_mux", "doctor", "demo"], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 1 and "ACP_MUX_SESSION_MAX_COUNT='-3'" in done.stdout and "whole number" in done.stdout
    env.pop("ACP_MUX_SESSION_MAX_COUNT")
    ok = subprocess.run(
        [sys.executable, "-m", "acp_mux", "doctor", "demo"], capture_output=True, text=True, env=env, timeout=60
    )
    assert ok.returncode == 0 and "settings:" not in ok.stdout

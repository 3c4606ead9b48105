"""``acp-mux --agent NAME`` typed at a shell: a hint on stderr at once, a typed line answered in words too, and the
default log file private in a private folder. Driven through a real PTY (pexpect), as a person meets it."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pexpect
from hypothesis import given
from hypothesis import strategies as st

from acp_mux.cli.by_hand import looks_typed

REPO = Path(__file__).resolve().parents[2]


def spawn_bridge(state: Path, *args: str) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_MUX_")}
    env["ACP_MUX_STATE_DIR"] = str(state)
    return pexpect.spawn(
        sys.executable,
        ["-m", "acp_mux", "--agent", "demo", *args],
        env=env,
        cwd=str(REPO),
        encoding="utf-8",
        timeout=60,
        dimensions=(30, 100),
    )


def wait_for_all(child: pexpect.spawn, texts: list[str]) -> str:
    """Everything the child printed until each of ``texts`` has appeared (in any order), with line breaks made by
    the terminal's width undone."""
    seen = ""
    while not all(text in " ".join(seen.split()) for text in texts):
        child.expect(r"\S+")
        seen += child.before + child.after
    return " ".join(seen.split())


def test_started_by_hand_it_says_what_it_is_and_answers_a_typed_line_in_words(tmp_path):
    bridge = spawn_bridge(tmp_path / "state")
    bridge.expect("serving demo over ACP")
    bridge.expect("acp-mux demo")
    bridge.expect("acp-mux doctor")
    bridge.expect(f"its log: {tmp_path / 'state' / 'logs' / 'acp-mux.log'}")
    bridge.expect("Ctrl-C or Ctrl-D")
    bridge.sendline("hello")
    # The protocol's answer (stdout, from the writer thread) and the words (stderr) come in either order.
    seen = wait_for_all(bridge, ['"code":-32700', "not JSON-RPC", "shows it at work. Ctrl-C or Ctrl-D quits."])
    assert "acp-mux demo" in seen
    bridge.sendline(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}))
    bridge.expect('"id":1,"result"')  # a real message is still served
    bridge.sendeof()
    bridge.expect(pexpect.EOF)
    bridge.close()
    assert bridge.exitstatus == 0
    assert bridge.before.count("not JSON-RPC") == 0  # nothing more said after the initialize


def test_an_editor_gets_no_hint_and_the_default_log_is_private(tmp_path):
    """Over pipes (as an editor starts it): stdout is JSON-RPC only and stderr has no hint; the log is 0600 in a
    0700 folder, and with DEBUG it holds the protocol messages."""
    state = tmp_path / "state"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_MUX_")}
    env.update(ACP_MUX_STATE_DIR=str(state), ACP_MUX_LOG_LEVEL="DEBUG")
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    out = subprocess.run(
        [sys.executable, "-m", "acp_mux", "--agent", "demo"],
        input=json.dumps(request) + "\nhello\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert [json.loads(line)["id"] for line in out.stdout.splitlines()] == [1, None]
    assert "serving demo" not in out.stderr and "not JSON-RPC" not in out.stderr
    log = state / "logs" / "acp-mux.log"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    assert '"method": "initialize"' in log.read_text() or "'method': 'initialize'" in log.read_text()


def test_log_file_off_writes_no_file(tmp_path):
    state = tmp_path / "state"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_MUX_")}
    env.update(ACP_MUX_STATE_DIR=str(state), ACP_MUX_LOG="off")
    subprocess.run(
        [sys.executable, "-m", "acp_mux", "--agent", "demo"], input="", env=env, capture_output=True, timeout=60
    )
    assert not (state / "logs").exists() and not (REPO / "off").exists()


@given(st.binary(max_size=40))
def test_only_lines_no_client_sends_are_called_typed(line):
    """Every JSON-RPC message is an object or a batch: such a line is never answered with the typed-line hint,
    whatever surrounds it; a line of only white space is no line at all."""
    typed = looks_typed(line)
    if line.strip()[:1] in (b"{", b"[") or not line.strip():
        assert not typed
    else:
        assert typed

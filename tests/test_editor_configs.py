"""The shipped editor configs: every entry launches ``acp-mux`` with arguments the CLI accepts, for every agent.

The Zed and JetBrains files are parsed as JSON; the CodeCompanion (Lua) and agent-shell (Emacs Lisp) files are
read with regexes for their string-list commands. One test runs the Zed demo entry for real and speaks ACP to it.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from acp_mux.cli.main import build_parser
from acp_mux.adapters.registry import AGENT_NAMES, DEMO_AGENT

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "editor-configs"
ZED = CONFIGS / "zed" / "settings.json"
JETBRAINS = CONFIGS / "jetbrains" / "acp.json"
NEOVIM = CONFIGS / "neovim" / "codecompanion.lua"
EMACS = CONFIGS / "emacs" / "acp-mux-agent-shell.el"
ALL_AGENTS = {*AGENT_NAMES, DEMO_AGENT, "auto"}  # "auto": the one entry in which the person picks the agent

# A double-quoted string literal (Lua and Emacs Lisp both escape with a backslash).
_STR = r'"(?:[^"\\\n]|\\.)*"'


def _unquote(literal: str) -> str:
    return json.loads(literal)  # the literals used here are plain ASCII with JSON-compatible escapes


def _drop_comment_lines(text: str, marker: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(marker))


def json_commands(path: Path) -> list[tuple[str, list[str]]]:
    data = json.loads(path.read_text())
    servers = data["agent_servers"]
    assert isinstance(servers, dict) and servers
    out = []
    for name, entry in servers.items():
        assert set(entry) >= {"command", "args"}, name
        assert isinstance(entry["args"], list) and all(isinstance(a, str) for a in entry["args"]), name
        assert isinstance(entry.get("env", {}), dict), name
        out.append((entry["command"], entry["args"]))
    return out


def _string_lists(text: str, pattern: re.Pattern[str]) -> list[tuple[str, list[str]]]:
    """(command, args) for every match of ``pattern``, whose first group is a run of string literals."""
    out = []
    for match in pattern.finditer(text):
        items = [_unquote(s) for s in re.findall(_STR, match.group(1))]
        out.append((items[0], items[1:]))
    return out


def lua_commands(path: Path) -> list[tuple[str, list[str]]]:
    """``key = { "acp-mux", "--agent", "claude" },`` entries (full-line ``--`` comments ignored)."""
    text = _drop_comment_lines(path.read_text(), "--")
    return _string_lists(
        text, re.compile(r"\b[A-Za-z_]\w*\s*=\s*\{\s*(" + _STR + r"(?:\s*,\s*" + _STR + r")*)\s*,?\s*\}")
    )


def elisp_commands(path: Path) -> list[tuple[str, list[str]]]:
    """Every parenthesised list made only of string literals, e.g. ``("acp-mux" "--agent" "claude")``."""
    text = _drop_comment_lines(path.read_text(), ";")
    return _string_lists(text, re.compile(r"\(\s*(" + _STR + r"(?:\s+" + _STR + r")+)\s*\)"))


FILES = {
    "zed": (ZED, json_commands),
    "jetbrains": (JETBRAINS, json_commands),
    "neovim": (NEOVIM, lua_commands),
    "emacs": (EMACS, elisp_commands),
}


def agent_of(args: list[str]) -> str:
    """Parse ``args`` exactly as ``acp-mux`` would (``--`` starts the agent's own arguments)."""
    own = args[: args.index("--")] if "--" in args else args
    try:
        parsed = build_parser().parse_args(own)
    except SystemExit as exc:  # pragma: no cover - the failure message is the point
        pytest.fail(f"acp-mux rejects the arguments {args!r} (exit {exc.code})")
    assert parsed.agent, f"no --agent in {args!r}"
    return parsed.agent


@pytest.mark.parametrize("editor", sorted(FILES))
def test_every_entry_runs_acp_mux_with_valid_arguments(editor):
    path, extract = FILES[editor]
    commands = extract(path)
    assert commands, f"found no command in {path}: the extraction pattern no longer matches the file"
    for command, args in commands:
        if editor == "jetbrains":  # the IDE runs it without a shell or the user's PATH: an absolute path
            assert os.path.isabs(command) and os.path.basename(command) == "acp-mux", command
        else:
            assert command == "acp-mux", (editor, command, args)
        assert agent_of(args) in ALL_AGENTS, (editor, args)


@pytest.mark.parametrize("editor", sorted(FILES))
def test_every_agent_is_covered(editor):
    path, extract = FILES[editor]
    covered = {agent_of(args) for _, args in extract(path)}
    assert set(AGENT_NAMES) <= covered, f"{editor} lacks {sorted(set(AGENT_NAMES) - covered)}"
    assert covered <= ALL_AGENTS
    assert covered == ALL_AGENTS  # every file also carries the demo entry, for checking the setup


def test_json_entry_names_match_their_agent():
    for path in (ZED, JETBRAINS):
        servers = json.loads(path.read_text())["agent_servers"]
        label = lambda agent: "acp-mux" if agent == "auto" else f"acp-mux: {agent}"  # noqa: E731
        assert set(servers) == {label(a) for a in ALL_AGENTS}
        for name, entry in servers.items():
            assert name == label(agent_of(entry["args"]))
    for entry in json.loads(ZED.read_text())["agent_servers"].values():
        assert entry["type"] == "custom"


def test_emacs_commands_match_their_agent_symbol():
    text = _drop_comment_lines(EMACS.read_text(), ";")
    rows = re.findall(r"\((\w+)\s+" + _STR + r"\s+\((" + _STR + r"(?:\s+" + _STR + r")*)\)\)", text)
    assert rows, "found no (AGENT NAME (COMMAND ARG...)) rows"
    for symbol, argv in rows:
        items = [_unquote(s) for s in re.findall(_STR, argv)]
        assert agent_of(items[1:]) == symbol


def _balanced(text: str, open_ch: str, close_ch: str, comment: str) -> bool:
    """Bracket balance outside string literals and line comments (enough to catch a broken edit)."""
    depth, i, n = 0, 0, len(text)
    while i < n:
        if text.startswith(comment, i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text[i] == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif text[i] == open_ch:
            depth += 1
        elif text[i] == close_ch:
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


def test_lisp_and_lua_brackets_balance():
    assert _balanced(EMACS.read_text(), "(", ")", ";")
    lua = NEOVIM.read_text()
    assert _balanced(lua, "{", "}", "--") and _balanced(lua, "(", ")", "--")


def test_emacs_file_provides_its_own_feature_not_agent_shells():
    # Providing `agent-shell' would make Emacs think the real package is loaded.
    text = EMACS.read_text()
    assert "(provide 'acp-mux-agent-shell)" in text and "(provide 'agent-shell)" not in text


def test_zed_demo_entry_answers_initialize_and_exits_on_eof(tmp_path):
    entry = json.loads(ZED.read_text())["agent_servers"][f"acp-mux: {DEMO_AGENT}"]
    assert entry["command"] == "acp-mux"
    argv = [sys.executable, "-m", "acp_mux", *entry["args"]]
    env = dict(os.environ, **entry.get("env", {}), ACP_MUX_STATE_DIR=str(tmp_path / "state"))
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=env
    )
    lines: queue.Queue[bytes] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True)
    reader.start()
    try:
        request = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": 1, "clientCapabilities": {}},
        }
        proc.stdin.write((json.dumps(request) + "\n").encode())
        proc.stdin.flush()
        response = None
        while response is None:
            try:
                line = lines.get(timeout=10)
            except queue.Empty:
                pytest.fail("no initialize response within 10 s")
            message = json.loads(line)
            if message.get("id") == 1:
                response = message
        assert "error" not in response, response
        assert response["result"]["protocolVersion"] == 1
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def test_no_name_says_acp_mux_twice():
    """agent-shell shows "<label> Agent @ project", the label being "acp-mux <display name>": the every-agent entry's
    display name is empty (plain "acp-mux"), none repeats "acp-mux"."""
    text = _drop_comment_lines(EMACS.read_text(), ";")
    rows = re.findall(r"\((\w+)\s+(" + _STR + r")\s+\((" + _STR + r"(?:\s+" + _STR + r")*)\)\)", text)
    names = {symbol: _unquote(name) for symbol, name, _ in rows}
    assert names["auto"] == "" and '(equal display-name "") "acp-mux"' in text
    assert not [n for n in names.values() if "acp-mux" in n.lower()]


def test_codecompanion_config_needs_interactions_and_respects_declined_images():
    """CodeCompanion 18 renamed ``strategies`` to ``interactions``; the opencode preset it extends says vision=true,
    so images are left out for an agent whose session declines them (else their base64 went as text)."""
    text = NEOVIM.read_text()
    assert "strategies" not in _drop_comment_lines(text, "--") and "CodeCompanion.nvim 18 or later" in text
    assert "form_messages" in text and "promptCapabilities" in text and "offered.image" in text

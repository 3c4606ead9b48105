"""Fault class 1 of issue 21 on the real CLIs: an "always allow" for a command covers that program's plain uses and
nothing an adversary dresses up as it.

The scripted model has the real agent run, in one turn: ``mkdir -p out1`` (the person answers "always allow"), ``mkdir
-p out2`` (answered by the bridge), then commands that look like ``mkdir`` but run other code: a wrapper and a shell
named by a path in the project, a shell told to read start-up code from a file, an embedded newline, an assignment
the shell reads; then ``sort words.txt`` (always allowed) and ``sort -o FILE`` (writes a file). Each of those must
reach the person again (who rejects), and none of their files may exist afterwards.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

GRANTED = ["mkdir -p out1", "sort words.txt"]
COVERED = ["mkdir -p out2", "sort -r words.txt"]
ADVERSARIAL = [
    "./bin/env mkdir -p out3",  # a wrapper named by a path: bin/env runs, not mkdir
    "./bin/bash -c 'mkdir -p out4'",  # a "shell" named by a path
    "bash --rcfile ./evil.sh -ic 'mkdir -p out5'",  # start-up code from elsewhere
    "BASH_ENV=./evil.sh bash -c 'mkdir -p out6'",
    "mkdir -p out7\ntouch pwned-newline",  # a second command behind a newline
    "sort -o pwned-sort words.txt",  # an option that writes a file
    "sort --outp=pwned-sort2 words.txt",  # the same, abbreviated
]
SCRIPT = '#!/bin/sh\ntouch "$(dirname "$0")/../pwned-$(basename "$0")"\n'
TOOL = {"codex": ("exec_command", "cmd"), "claude": ("Bash", "command")}


def scenario(agent: str) -> dict[str, Any]:
    name, key = TOOL[agent]
    commands = [GRANTED[0], COVERED[0], *ADVERSARIAL[:5], GRANTED[1], COVERED[1], *ADVERSARIAL[5:]]
    steps = [
        {
            "blocks": [
                {"tool_use": {"name": name, "input": {key: c, **({"description": "run"} if agent == "claude" else {})}}}
            ]
        }
        for c in commands
    ]
    return {"steps": [*steps, {"blocks": [{"text": "All commands tried."}]}], "done_text": "Nothing left."}


def asked_command(call: Any) -> str:
    """The command a permission request is about, from its raw input (codex: a string or argv through bash -lc)."""
    raw = call.raw_input if isinstance(call.raw_input, dict) else {}
    command = raw.get("command", raw.get("cmd", call.title or ""))
    if isinstance(command, str) and command.startswith("/bin/bash -lc "):
        command = shlex.split(command)
    if isinstance(command, list):
        command = command[-1] if len(command) >= 3 and command[1] in ("-lc", "-c") else shlex.join(command)
    return str(command)


@pytest.mark.parametrize("name", ["codex", "claude"])
async def test_an_always_rule_never_covers_a_command_dressed_as_it(name: str, tmp_path: Path) -> None:
    agent = RealAgent(name, require_cli(name), tmp_path)
    try:
        (agent.cwd / "bin").mkdir()
        for script in ("env", "bash"):
            (agent.cwd / "bin" / script).write_text(SCRIPT)
            (agent.cwd / "bin" / script).chmod(0o755)
        (agent.cwd / "evil.sh").write_text("touch pwned-startup\n")
        (agent.cwd / "words.txt").write_text("b\na\n")
        agent.server = ModelServer(scenario(name), delta_delay=0).start()
        asked: list[str] = []

        def choose(options: list[Any], call: Any) -> str:
            command = asked_command(call)
            asked.append(command)
            labels = {o.option_id: o.name for o in options}
            if command in GRANTED:
                assert labels["allow_always"] == f"Always allow `{command.split()[0]}` commands (this session)", labels
                return "allow_always"
            return "reject_once"

        client = RecordingClient(choose=choose)
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Run them.")]), 180)
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        assert "All commands tried." in client.text(), agent.log()[-3000:]
        assert (agent.cwd / "out1").is_dir() and (agent.cwd / "out2").is_dir()
        for command in ADVERSARIAL:
            assert any(command.split("\n")[0] in a for a in asked), (command, asked)
        assert not any(c in a for c in COVERED for a in asked), asked
        assert sorted(p.name for p in agent.cwd.iterdir() if p.name.startswith(("pwned", "out"))) == ["out1", "out2"]
        replies = json.dumps([r["body"] for r in agent.server.requests if r["kind"] == "step"])
        assert "b\\na" in replies or "a\\nb" in replies or "b\\\\na" in replies, "the allowed sort did not run"
    finally:
        agent.close()


async def test_a_path_rule_names_the_real_file_and_covers_nothing_else(tmp_path: Path) -> None:
    """Real claude writes link/notes.txt, where link/ is a symlinked folder outside the project: the "always" option
    names the real file outside (where the write lands), not project/link/notes.txt. That rule then covers neither
    the project's own notes.txt nor link/../notes.txt (claude folds ``..`` itself and writes project/notes.txt):
    both are asked again (rejected here) and nothing but the allowed file is written."""
    agent = RealAgent("claude", require_cli("claude"), tmp_path)
    try:
        outside = tmp_path / "elsewhere" / "outside"
        outside.mkdir(parents=True)
        (agent.cwd / "link").symlink_to(outside)
        cwd = str(agent.cwd)
        paths = [f"{cwd}/link/notes.txt", f"{cwd}/notes.txt", f"{cwd}/link/../notes.txt"]
        steps = [
            {"blocks": [{"tool_use": {"name": "Write", "input": {"file_path": p, "content": "x\n"}}}]} for p in paths
        ]
        done = {"blocks": [{"text": "All changes tried."}]}
        agent.server = ModelServer({"steps": [*steps, done], "done_text": "Nothing left."}, delta_delay=0).start()
        asked: list[tuple[str, str]] = []

        def choose(options: list[Any], call: Any) -> str:
            inputs = [
                u.raw_input
                for u in client.updates
                if getattr(u, "tool_call_id", None) == call.tool_call_id
                and isinstance(getattr(u, "raw_input", None), dict)
            ]
            path = str(inputs[-1].get("file_path", "")) if inputs else ""
            asked.append((path, next(o.name for o in options if o.option_id == "allow_always")))
            return "allow_always" if path == paths[0] else "reject_once"

        client = RecordingClient(choose=choose)
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Write them.")]), 120)
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        assert "All changes tried." in client.text(), agent.log()[-3000:]
        assert (outside / "notes.txt").read_text() == "x\n"
        assert not (agent.cwd / "notes.txt").exists() and not (outside.parent / "notes.txt").exists()
        assert [p for p, _ in asked] == paths, asked
        assert asked[0][1] == f"Always allow changes to {outside.resolve() / 'notes.txt'} (this session)", asked
    finally:
        agent.close()

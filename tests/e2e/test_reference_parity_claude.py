"""Parity with the reference adapter: the editor is shown no less through ``acp-mux --agent claude`` than through
claude-agent-acp 0.101, both driving the same pinned Claude CLI (2.1.332) against the same scripted model.

One scenario (thinking, text, a shell command, a plan, a write, an edit, a subagent that reads) runs once through each, each driven by the
SDK's client declaring ``_meta.terminal_output``, every JSON-RPC line each side wrote recorded raw (the SDK's models
drop fields they do not know, and a newer reference may add exactly such fields). What each side showed the editor
is reduced to a set of feature keys: agentCapabilities key paths, config options by id and category, modes, models,
session update kinds, ``messageId`` on message and thought chunks, ``usage`` on the prompt answer, commands, and the
``_meta`` keys (``claudeCode`` ones by name) on tool calls. Every key of the reference must be one of acp-mux's,
except the few in :data:`DELIBERATE`, each with its reason: a new reference release that shows something more
fails this test until acp-mux shows it too or the difference is decided and written down here.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.clis import cli_env, runtime_bin_dir
from tests.e2e.harness import RealAgent, require_cli
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

RECORDER = Path(__file__).with_name("line_recorder.py")
PROMPT = "Run a command, plan, then create notes.txt with alpha and beta and change beta to gamma."
TIMEOUT = 120
CLIENT = acp.schema.ClientCapabilities(field_meta={"terminal_output": True})
SUBAGENT = {
    "description": "Check notes",
    "prompt": "[[subagent:check]] Read notes.txt and say what it holds.",
    "subagent_type": "general-purpose",
}


def scenario(cwd: Path) -> dict[str, Any]:
    """Each step answers the request that carries that many tool results."""
    notes = str(cwd / "notes.txt")
    todos = [
        {"content": "Create notes.txt", "status": "in_progress", "activeForm": "Creating notes.txt"},
        {"content": "Change beta to gamma", "status": "pending", "activeForm": "Changing beta"},
    ]
    return {
        "description": "parity: think, say, run a command, plan, write, edit, finish",
        "delta_delay": 0,
        "steps": [
            {
                "blocks": [
                    {"thinking": "First a command, then the plan and the file.", "deltas": 3},
                    {"text": "Let me run a command.", "deltas": 2},
                    {"tool_use": {"name": "Bash", "input": {"command": "echo parity", "description": "Say parity"}}},
                ]
            },
            {"blocks": [{"tool_use": {"name": "TodoWrite", "input": {"todos": todos}}}]},
            {
                "blocks": [
                    {"text": "Writing the file."},
                    {"tool_use": {"name": "Write", "input": {"file_path": notes, "content": "alpha\nbeta\n"}}},
                ]
            },
            {
                "blocks": [
                    {
                        "tool_use": {
                            "name": "Edit",
                            "input": {"file_path": notes, "old_string": "beta", "new_string": "gamma"},
                        }
                    }
                ]
            },
            {"blocks": [{"tool_use": {"name": "Agent", "input": SUBAGENT}}]},
            {"blocks": [{"text": "Done: notes.txt holds alpha and gamma.", "deltas": 2}]},
        ],
        "done_text": "Nothing left to do.",
        "scripts": {
            "[[subagent:check]]": {
                "steps": [
                    {
                        "blocks": [
                            {"text": "Subagent here, reading the notes."},
                            {"tool_use": {"name": "Read", "input": {"file_path": notes}}},
                        ]
                    },
                    {"blocks": [{"text": "The notes hold alpha and gamma."}]},
                ]
            }
        },
    }


# Reference features acp-mux deliberately does not show, each with its reason. (Not here, on purpose: messageId and
# usage, promptQueueing, which other work adds to every agent.)
DELIBERATE: dict[str, str] = {
    "agentCapabilities._meta.authStatus": "claude-agent-acp's own auth-status extension; acp-mux signs in by ACP auth",
    "agentCapabilities.providers": "ACP providers/* (newer than the v1.21 schema acp-mux pins): Claude's API gateway",
    "agentCapabilities.sessionCapabilities.systemPrompt.mode.override": "newer than v1.21; no agent's prompt replaced",
    "command:remote-control": "claude.ai Remote Control needs a claude.ai login and Anthropic's relay, not an editor's",
}


def allow_once(options: list[Any], call: Any) -> str:
    return next(o.option_id for o in options if o.kind == "allow_once")


async def drive(command: list[str], env: dict[str, str], cwd: Path, log: Path) -> None:
    """One side: initialize, a new session, the prompt, every line recorded in ``log``."""
    client = RecordingClient(choose=allow_once)
    recorded = [sys.executable, str(RECORDER), str(log), *command]
    async with acp.spawn_agent_process(
        client, recorded[0], *recorded[1:], env=env, cwd=str(cwd), transport_kwargs={"stderr": None}
    ) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=CLIENT)
        session = await conn.new_session(cwd=str(cwd), mcp_servers=[])
        # claude-agent-acp starts in auto where the model allows it, acp-mux in default (ask): the same mode for both,
        # so the same calls run (auto's safety check has no model here: it would deny the subagent)
        await conn.set_session_mode(session_id=session.session_id, mode_id="default")
        for _ in range(100):  # the commands come after the session (both sides), before the prompt
            if client.of("available_commands_update"):
                break
            await asyncio.sleep(0.1)
        result = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[acp.text_block(PROMPT)]), TIMEOUT
        )
        assert result.stop_reason == "end_turn"
        await asyncio.sleep(1.0)  # updates sent after the answer (usage, titles)
    assert (cwd / "notes.txt").read_text() == "alpha\ngamma\n"


def wire(log: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The answers to the client's requests (by method) and the notifications, as the agent side wrote them."""
    records = [json.loads(line) for line in log.read_text().splitlines()]
    sent = [json.loads(r["line"]) for r in records if r["dir"] == "in" and r["line"].startswith("{")]
    said = [json.loads(r["line"]) for r in records if r["dir"] == "out" and r["line"].startswith("{")]
    methods = {m["id"]: m["method"] for m in sent if "method" in m and "id" in m}
    answers = {methods[m["id"]]: m.get("result") for m in said if "method" not in m and m.get("id") in methods}
    notes = [m["params"] for m in said if m.get("method") == "session/update"]
    return answers, notes


def key_paths(value: Any, prefix: str) -> set[str]:
    """The key paths of what is offered: a true flag, a present object (``{}`` means offered), a non-empty value."""
    if isinstance(value, dict):
        inner = {p for k, v in value.items() for p in key_paths(v, f"{prefix}.{k}")}
        return inner or ({prefix} if value == {} else set())
    return {prefix} if value not in (None, False, "", []) else set()


def features(log: Path) -> set[str]:
    answers, notes = wire(log)
    found = key_paths((answers.get("initialize") or {}).get("agentCapabilities"), "agentCapabilities")
    new = answers.get("session/new") or {}
    options = list(new.get("configOptions") or [])
    updates = [n["update"] for n in notes]
    for update in updates:
        kind = update.get("sessionUpdate")
        found.add(f"update:{kind}")
        if kind in ("agent_message_chunk", "agent_thought_chunk") and update.get("messageId"):
            found.add(f"messageId:{kind}")
        if kind == "config_option_update":
            options += update.get("configOptions") or []
        if kind == "available_commands_update":
            found |= {f"command:{c['name']}" for c in update.get("availableCommands") or []}
        if kind in ("tool_call", "tool_call_update"):
            meta = update.get("_meta") or {}
            found |= {f"toolMeta:{key}" for key in meta}
            found |= {f"claudeCode:{key}" for key in meta.get("claudeCode") or {}}
    for option in options:
        found.add(f"configOption:{option['id']}:{option.get('category')}")
        if option["id"] in ("mode", "model"):
            found |= {f"{option['id']}:{choice['value']}" for choice in option.get("options") or []}
    found |= {f"mode:{m['id']}" for m in (new.get("modes") or {}).get("availableModes") or []}
    found |= {f"model:{m['modelId']}" for m in (new.get("models") or {}).get("availableModels") or []}
    prompt = answers.get("session/prompt") or {}
    found |= {f"promptResponse.usage.{key}" for key in prompt.get("usage") or {}}
    return found


async def test_acp_mux_shows_the_editor_everything_claude_agent_acp_shows(tmp_path: Path) -> None:
    claude = require_cli("claude")
    reference = require_cli("claude-agent-acp")
    node = runtime_bin_dir("claude-agent-acp")
    ref_root, mux_root = tmp_path / "reference", tmp_path / "mux"
    for root in (ref_root, mux_root):
        (root / "project").mkdir(parents=True)

    with ModelServer(scenario(ref_root / "project")) as srv:
        env = cli_env("claude", srv.url, ref_root / "home", cwd=ref_root / "project")
        env["PATH"] = f"{node}{os.pathsep}{env['PATH']}"
        env["CLAUDE_CODE_EXECUTABLE"] = str(claude)
        env["CLAUDE_CODE_DISABLE_BACKGROUND_TASKS"] = "1"  # the subagent inside the turn, as acp-mux runs Claude
        await drive([str(reference)], env, ref_root / "project", ref_root / "lines.jsonl")

    agent = RealAgent("claude", claude, mux_root)
    agent.server = ModelServer(scenario(agent.cwd)).start()
    try:
        mux = [sys.executable, "-m", "acp_mux", "--agent", "claude", "--log-file", str(mux_root / "acp-mux.log")]
        await drive(mux, agent.env(), agent.cwd, mux_root / "lines.jsonl")
    finally:
        agent.close()

    theirs, ours = features(ref_root / "lines.jsonl"), features(mux_root / "lines.jsonl")
    assert {"update:tool_call", "update:plan", "claudeCode:toolName", "mode:auto"} <= theirs  # the scenario ran
    missing = sorted(theirs - ours - set(DELIBERATE))
    assert missing == [], f"claude-agent-acp shows the editor what acp-mux does not: {missing}"
    stale = sorted(set(DELIBERATE) - (theirs - ours))
    assert stale == [], f"no longer a difference (drop from DELIBERATE): {stale}"

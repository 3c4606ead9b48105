"""Side-by-side parity with codex's own reference adapter: what codex-acp 2.6.0 shows an editor, acp-mux shows too.

ONE test runs both against the same pinned codex 0.169.0 and the same scripted model scenario (thinking, text, a
shell command, a write and an edit; then, in codex's plan mode, a proposed plan), each driven by the SDK client: codex-acp (``CODEX_PATH`` points it at
the pinned codex; it signs in with the ``api-key`` method, the key in its environment), and ``acp-mux --agent
codex``. Every line each one writes is recorded raw (``line_recorder.py``: the SDK's models drop fields they do not
know, which is exactly what a new reference release would add). Each side's wire becomes a set of feature keys:
capability key paths, config options by id and category, modes, models, session update kinds, ``messageId`` on
chunks, ``usage`` on the prompt response, commands. The reference's keys must all be acp-mux's, except the small
allow-list below of deliberate differences, each with its reason; so a reference release that adds something
fails here until acp-mux has it or a reason is written down.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import acp
import pytest

from tests.e2e.clis import cli_env
from tests.e2e.harness import RealAgent, require_cli
from tests.fakes.model_server import ModelServer, load_scenario
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

RECORDER = Path(__file__).with_name("line_recorder.py")
PROMPT = "Check the shell, then create notes.txt with alpha and beta, then change beta to gamma."
TIMEOUT = 180
# The plan: codex 0.169 offers no update_plan tool by default; its plan is plan mode's proposed plan (a ``plan``
# item), asked for in a second turn after the editor turned codex's collaboration mode to plan.
PLAN_TEXT = "# Notes plan\n1. Keep alpha\n2. Add delta\n"
PLAN_SCENARIO = {"steps": [{"blocks": [{"text": "Here is the plan."}]}], "done_text": f"Here is the plan.\n<proposed_plan>\n{PLAN_TEXT}</proposed_plan>\n"}  # fmt: skip
SCENARIO = {
    "steps": [
        {
            "blocks": [
                {"thinking": "First look around with a harmless command.", "deltas": 3},
                {"text": "Let me check the shell works.", "deltas": 3},
                {"tool_use": {"name": "exec_command", "input": {"cmd": "echo hello-from-codex"}}},
            ]
        },
        {
            "blocks": [
                {"text": "Creating notes.txt."},
                {
                    "tool_use": {
                        "name": "apply_patch",
                        "custom": True,
                        "input": "*** Begin Patch\n*** Add File: notes.txt\n+alpha\n+beta\n*** End Patch\n",
                    }
                },
            ]
        },
        {
            "blocks": [
                {
                    "tool_use": {
                        "name": "apply_patch",
                        "custom": True,
                        "input": "*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+gamma\n*** End Patch\n",
                    }
                }
            ]
        },
        {"blocks": [{"text": "Done: notes.txt now contains alpha and gamma.", "deltas": 4}]},
    ],
    "done_text": "Nothing left to do.",
}

# Reference features acp-mux deliberately does not show, each with its reason (keep it short and honest).
ALLOWED: dict[str, str] = {
    "cap:agentCapabilities.providers": "ACP's unstable providers/* set codex-acp's own gateway routing (base URL "
    "and key); acp-mux leaves codex's provider to codex's config.toml",
    "cap:agentCapabilities.sessionCapabilities.subagents": "draft capability; acp-mux shows codex's subagents its "
    "own way (branch subagent-calls)",
    "cap:agentCapabilities.sessionCapabilities.systemPrompt": "draft capability; acp-mux takes no system prompt",
    "cap:agentCapabilities.sessionCapabilities.title": "draft capability; acp-mux titles sessions itself "
    "(session_info_update) and /rename renames codex's thread",
    "command:goal": "codex's goal turns go on after the prompt ends: no ACP turn carries them",
    "command:logout": "acp-mux signs out through ACP's own logout method (agentCapabilities.auth.logout)",
    "mode:workspace-write": "acp-mux's `auto` is this preset (on-request, workspace-write)",
    "mode:agent": "codex-acp's `Auto review` routes approvals to codex's guardian reviewer; acp-mux asks the person",
    "mode:agent-full-access": "acp-mux's `full-access` is this preset",
}


def walk(prefix: str, value: Any) -> set[str]:
    """Key paths of a JSON object (``_meta`` left out: extension data, not ACP features)."""
    paths = {prefix} if value is not False else set()  # a capability said false is no feature
    if isinstance(value, dict):
        for key, inner in value.items():
            if key != "_meta":
                paths |= walk(f"{prefix}.{key}", inner)
    return paths


def wire(log: Path) -> list[dict[str, Any]]:
    """What the agent side wrote (JSON-RPC messages), in order."""
    out = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record["dir"] == "out" and record["line"].startswith("{"):
            out.append(json.loads(record["line"]))
    return out


def features(messages: list[dict[str, Any]], ids: dict[str, int]) -> set[str]:
    """The feature keys of one side's wire; ``ids``: the request ids of initialize, session/new and the prompt."""
    by_id = {m.get("id"): m for m in messages if "result" in m}
    init = by_id[ids["initialize"]]["result"]
    session = by_id[ids["session/new"]]["result"]
    answer = by_id[ids["prompt"]]["result"]
    keys = {f"cap:{p}" for p in walk("agentCapabilities", init.get("agentCapabilities") or {})}
    updates = [m["params"]["update"] for m in messages if m.get("method") == "session/update"]
    options = list(session.get("configOptions") or [])
    for update in updates:
        if update["sessionUpdate"] == "config_option_update":
            options += update["configOptions"]
    keys |= {f"option:{o['id']}/{o.get('category')}" for o in options}
    keys |= {f"mode:{m['id']}" for m in (session.get("modes") or {}).get("availableModes") or []}
    keys |= {"modes"} if session.get("modes") else set()
    keys |= {f"update:{u['sessionUpdate']}" for u in updates}
    chunks = [u for u in updates if u["sessionUpdate"].endswith("_chunk")]
    keys |= {f"chunk:{u['sessionUpdate']}.messageId" for u in chunks if u.get("messageId")}
    keys |= {f"prompt:{k}" for k in answer if k != "_meta"}
    for update in updates:
        if update["sessionUpdate"] == "available_commands_update":
            keys |= {f"command:{c['name']}" for c in update["availableCommands"] if not c["name"].startswith("$")}
    return keys


def models(messages: list[dict[str, Any]]) -> set[str]:
    """The model ids offered (the ``model`` config option, as its last update had it)."""
    found: set[str] = set()
    for message in messages:
        update = (message.get("params") or {}).get("update") or {}
        carried = update.get("configOptions") or (message.get("result") or {}).get("configOptions") or []
        for option in carried if isinstance(carried, list) else []:
            if option.get("id") == "model":
                found = {o["value"] for o in option.get("options") or []}
    return found


async def drive(
    command: list[str], env: dict[str, str], cwd: Path, log: Path, auth: str | None, server: ModelServer
) -> dict[str, int]:
    """One side through the SDK client: initialize, (authenticate), session/new, the prompt (every approval allowed
    once), then plan mode and a second prompt. Returns the JSON-RPC ids of the requests whose answers are compared
    (initialize, session/new, the first prompt)."""
    client = RecordingClient(choose=lambda options, call: next(o.option_id for o in options if o.kind == "allow_once"))
    async with acp.spawn_agent_process(
        client,
        sys.executable,
        str(RECORDER),
        str(log),
        *command,
        env=env,
        cwd=str(cwd),
        transport_kwargs={"stderr": None},
    ) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=None)
        if auth:
            await conn.authenticate(method_id=auth)
        session = await conn.new_session(cwd=str(cwd), mcp_servers=[])
        result = await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=[acp.text_block(PROMPT)]), TIMEOUT)  # fmt: skip
        assert result.stop_reason == "end_turn"
        server.scenario = load_scenario(PLAN_SCENARIO)
        await conn.set_config_option(session_id=session.session_id, config_id="collaboration_mode", value="plan")
        result = await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Plan the next change.")]), TIMEOUT)  # fmt: skip
        assert result.stop_reason == "end_turn"
        await asyncio.sleep(1.0)  # commands and options that trail the answer
    assert (cwd / "notes.txt").read_text() == "alpha\ngamma\n"
    assert PLAN_TEXT in client.text(), client.text()
    ids: dict[str, int] = {}
    for record in map(json.loads, log.read_text().splitlines()):
        message = json.loads(record["line"]) if record["dir"] == "in" and record["line"].startswith("{") else {}
        method = message.get("method")
        if method in ("initialize", "session/new", "session/prompt") and "id" in message and "prompt" not in ids:
            ids["prompt" if method == "session/prompt" else method] = message["id"]
    return ids


async def test_acp_mux_shows_codex_no_less_than_codex_acp(tmp_path: Path) -> None:
    codex = require_cli("codex")
    reference = require_cli("codex-acp")
    ref_root, mux_root = tmp_path / "reference", tmp_path / "mux"
    (ref_root / "project").mkdir(parents=True)

    with ModelServer(SCENARIO, delta_delay=0) as srv:
        env = {**cli_env("codex", srv.url, ref_root / "home", cwd=ref_root / "project"), "CODEX_PATH": str(codex)}
        ref_ids = await drive([str(reference)], env, ref_root / "project", ref_root / "wire.jsonl", "api-key", srv)

    agent = RealAgent("codex", codex, mux_root)
    agent.server = ModelServer(SCENARIO, delta_delay=0).start()
    try:
        command = ["-m", "acp_mux", "--agent", "codex", "--log-file", str(mux_root / "acp-mux.log")]
        mux_ids = await drive(
            [sys.executable, *command], agent.env(), agent.cwd, mux_root / "wire.jsonl", None, agent.server
        )
    finally:
        agent.close()

    ref_wire, mux_wire = wire(ref_root / "wire.jsonl"), wire(mux_root / "wire.jsonl")
    ref, mux = features(ref_wire, ref_ids), features(mux_wire, mux_ids)
    missing = sorted(k for k in ref - mux - set(ALLOWED))
    assert not missing, f"codex-acp shows what acp-mux does not: {missing}\nreference: {sorted(ref)}\nacp-mux: {sorted(mux)}"  # fmt: skip
    stale = sorted(k for k in ALLOWED if k not in ref or k in mux)
    assert not stale, f"allow-list entries the reference no longer shows or acp-mux now shows: {stale}"
    # models: both lists come from codex's model/list
    assert models(ref_wire) and models(ref_wire) <= models(mux_wire), (models(ref_wire), models(mux_wire))

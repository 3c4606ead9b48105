"""acp-mux driven by a third-party ACP client: acpx (npm ``acpx``, pinned), running on a pinned Node 22.

acpx launches ``<python> -m acp_mux --agent demo`` (the bundled scripted agent) through ``--agent "<command line>"``
and runs one ``exec`` turn (initialize -> session/new -> session/prompt). With ``--format json`` its stdout is the
raw JSON-RPC traffic in both directions, one message per line, including acpx's answers to
``session/request_permission``; the tests check the traffic, the files on disk, acpx's exit code, and that nothing
of the run is still alive shortly after acpx exits. They skip only when acpx cannot be installed here.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.node_clients import EXIT_CODES, acpx_env, acpx_unavailable_reason, ensure_acpx
from tests.procs import pids, read_proc

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_S = 120  # hard limit for one acpx run (a normal one takes about 1.5 s)
GONE_WITHIN_S = 2.0  # everything started for a run must be gone this long after acpx exits
WRITE_PROMPT = "Please write the demo notes file, then fix its second line."


@pytest.fixture(scope="module")
def acpx() -> list[str]:
    argv = ensure_acpx()
    if argv is None:
        reason = f"acpx unavailable: {acpx_unavailable_reason()}"
        if os.environ.get("ACP_MUX_REQUIRE_CLIS") == "1":  # CI reaches npm: there a skip would hide a broken install
            pytest.fail(reason)
        pytest.skip(reason)
    return argv


@dataclass
class Run:
    """One finished acpx run: exit code, parsed stdout (JSON-RPC messages), stderr, wall time."""

    cmd: list[str]
    returncode: int
    messages: list[dict[str, Any]]
    stderr: str
    elapsed: float
    log: str = ""
    leftovers: list[str] = field(default_factory=list)

    def describe(self) -> str:
        tail = "\n".join(json.dumps(m)[:300] for m in self.messages[-15:])
        return (
            f"cmd: {shlex.join(self.cmd)}\nrc={self.returncode} in {self.elapsed:.1f}s\n"
            f"stderr:\n{self.stderr[-3000:]}\nlast messages:\n{tail}\nacp-mux log:\n{self.log[-3000:]}"
        )

    def updates(self, kind: str) -> list[dict[str, Any]]:
        return [
            m["params"]["update"]
            for m in self.messages
            if m.get("method") == "session/update" and m["params"]["update"].get("sessionUpdate") == kind
        ]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u["content"]["text"] for u in self.updates(kind) if u["content"].get("type") == "text")

    def permission_requests(self) -> list[dict[str, Any]]:
        return [m["params"] for m in self.messages if m.get("method") == "session/request_permission"]

    def permission_answers(self) -> list[dict[str, Any]]:
        """acpx's results for the permission requests (the only results carrying an ``outcome``)."""
        return [
            m["result"]["outcome"]
            for m in self.messages
            if isinstance(m.get("result"), dict) and "outcome" in m["result"]
        ]

    def stop_reasons(self) -> list[str]:
        return [
            m["result"]["stopReason"]
            for m in self.messages
            if isinstance(m.get("result"), dict) and "stopReason" in m["result"]
        ]

    def final_statuses(self) -> dict[str, str]:
        status: dict[str, str] = {}
        for u in self.updates("tool_call") + self.updates("tool_call_update"):
            if u.get("status"):
                status[u["toolCallId"]] = u["status"]
        return status

    def diffs(self) -> list[dict[str, Any]]:
        return [
            c
            for u in self.updates("tool_call") + self.updates("tool_call_update")
            for c in u.get("content") or []
            if c.get("type") == "diff"
        ]


class Workspace:
    """A private project dir, HOME and session store under one unique path, which marks every process of a run."""

    def __init__(
        self, root: Path, agent_args: tuple[str, ...] = ("--agent", "demo"), agent_env: dict[str, str] | None = None
    ) -> None:
        self.root = root
        self.agent_args = agent_args
        self.agent_env = agent_env or {}
        self.project = root / "project"
        self.home = root / "home"
        self.state = root / "state"
        self.log_file = root / "acp-mux.log"
        self.project.mkdir(parents=True)

    def agent_command(self) -> str:
        """The ``--agent`` command line; the log file puts this run's unique path into acp-mux's own cmdline."""
        return shlex.join(
            [
                sys.executable,
                "-m",
                "acp_mux",
                *self.agent_args,
                "--log-level",
                "debug",
                "--log-file",
                str(self.log_file),
            ]
        )

    def env(self) -> dict[str, str]:
        return acpx_env(self.home, ACP_MUX_STATE_DIR=str(self.state), PYTHONPATH=str(REPO), **self.agent_env)

    def start(self, acpx: list[str], prompt: str, *flags: str) -> tuple[list[str], subprocess.Popen]:
        cmd = [
            *acpx,
            "--format",
            "json",
            *flags,
            "--cwd",
            str(self.project),
            "--agent",
            self.agent_command(),
            "exec",
            prompt,
        ]
        # Own session, so a run that overstays its timeout can be killed with everything it started.
        proc = subprocess.Popen(
            cmd,
            cwd=self.project,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        return cmd, proc

    def finish(self, cmd: list[str], proc: subprocess.Popen, started: float) -> Run:
        try:
            out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            pytest.fail(
                f"acpx did not finish within {RUN_TIMEOUT_S}s\ncmd: {shlex.join(cmd)}\n"
                f"stdout tail:\n{out[-3000:]}\nstderr:\n{err[-3000:]}"
            )
        elapsed = time.monotonic() - started
        messages = []
        for line in out.splitlines():
            if line.strip():
                try:
                    messages.append(json.loads(line))
                except ValueError:
                    pytest.fail(
                        f"acpx --format json printed a non-JSON stdout line: {line[:300]!r}\nstderr:\n{err[-3000:]}"
                    )
        run = Run(cmd, proc.returncode, messages, err, elapsed)
        run.leftovers = self.wait_until_gone(GONE_WITHIN_S)
        run.log = self.log_file.read_text(errors="replace") if self.log_file.exists() else ""
        return run

    def run(self, acpx: list[str], prompt: str, *flags: str) -> Run:
        started = time.monotonic()
        cmd, proc = self.start(acpx, prompt, *flags)
        return self.finish(cmd, proc, started)

    def processes(self) -> list[str]:
        """Live processes (not zombies) whose cmdline or environment mentions this workspace: ``pid cmdline``."""
        marker = str(self.root).encode()
        found = []
        for pid in pids():
            cmdline = read_proc(pid, "cmdline")
            if marker in cmdline or marker in read_proc(pid, "environ"):
                args = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
                found.append(f"{pid} {args}")
        return found

    def wait_until_gone(self, seconds: float) -> list[str]:
        deadline = time.monotonic() + seconds
        while True:
            left = self.processes()
            if not left or time.monotonic() >= deadline:
                return left
            time.sleep(0.05)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


def test_approve_all_writes_then_edits_the_file(acpx, ws):
    run = ws.run(acpx, WRITE_PROMPT, "--approve-all")
    assert run.returncode == EXIT_CODES["ok"], run.describe()
    assert (ws.project / "notes.txt").read_text() == "alpha\ngamma\n", run.describe()

    # the ACP traffic acpx saw: handshake, three tool calls (write, edit, the shell check) with diffs
    methods = [m["method"] for m in run.messages if "method" in m and "id" in m]
    assert methods[:3] == ["initialize", "session/new", "session/prompt"], methods
    infos = [m["result"]["agentInfo"] for m in run.messages if "agentInfo" in (m.get("result") or {})]
    assert [i["name"] for i in infos] == ["acp-mux"], infos
    calls = run.updates("tool_call")
    assert [c["kind"] for c in calls] == ["edit", "edit", "execute"], run.describe()
    diffs = run.diffs()
    assert any(
        d["path"] == str(ws.project / "notes.txt") and d.get("oldText") is None and d["newText"] == "alpha\nbeta\n"
        for d in diffs
    ), diffs
    assert any(d.get("oldText") == "alpha\nbeta\n" and d["newText"] == "alpha\ngamma\n" for d in diffs), diffs
    assert set(run.final_statuses().values()) == {"completed"}, run.final_statuses()
    assert set(run.final_statuses()) == {c["toolCallId"] for c in calls}

    # each permission was about a tool call already shown, and acpx allowed it
    shown = {c["toolCallId"] for c in calls}
    requests = run.permission_requests()
    assert len(requests) == 3 and all(r["toolCall"]["toolCallId"] in shown for r in requests), requests
    assert run.permission_answers() == [{"outcome": "selected", "optionId": "allow_once"}] * 3

    assert "notes file" in run.text("agent_thought_chunk")
    assert "Done: notes.txt now reads alpha, gamma." in run.text(), run.text()
    assert run.stop_reasons() == ["end_turn"]
    assert not run.leftovers, f"still running {GONE_WITHIN_S}s after acpx exited: {run.leftovers}"


def test_deny_all_writes_nothing_and_acpx_exits_permission_denied(acpx, ws):
    run = ws.run(acpx, WRITE_PROMPT, "--deny-all")
    # acp-mux ends the turn normally (the agent gave up on the rejected write); acpx reports the denial itself
    assert run.returncode == EXIT_CODES["permission_denied"], run.describe()
    assert not (ws.project / "notes.txt").exists()
    requests = run.permission_requests()
    assert len(requests) == 1 and requests[0]["toolCall"]["kind"] == "edit", requests
    assert {o["kind"] for o in requests[0]["options"]} == {"allow_once", "allow_always", "reject_once", "reject_always"}
    assert run.permission_answers() == [{"outcome": "selected", "optionId": "reject_once"}]
    calls = run.updates("tool_call")
    assert [c["kind"] for c in calls] == ["edit"]
    assert run.final_statuses() == {calls[0]["toolCallId"]: "failed"}
    assert "will not write" in run.text(), run.text()
    assert run.stop_reasons() == ["end_turn"]
    assert not run.leftovers, f"still running {GONE_WITHIN_S}s after acpx exited: {run.leftovers}"


def test_acpx_timeout_cancels_the_turn_and_leaves_no_process(acpx, ws):
    """``--timeout``: acpx cancels the hung turn (acp-mux answers ``cancelled``), exits 3, and everything stops."""
    run = ws.run(acpx, "hang", "--approve-all", "--timeout", "3")
    assert run.returncode == EXIT_CODES["timeout"], run.describe()
    assert run.elapsed < 20, run.describe()
    assert "Thinking very hard" in run.text()
    assert run.stop_reasons() == ["cancelled"], run.describe()
    errors = [m["error"] for m in run.messages if "error" in m]
    assert errors and errors[-1]["data"]["acpxCode"] == "TIMEOUT", errors
    assert not run.leftovers, f"still running {GONE_WITHIN_S}s after acpx exited: {run.leftovers}"


def test_acpx_killed_mid_turn_leaves_no_process(acpx, ws):
    """acpx SIGKILLed mid-turn cannot clean up: acp-mux must notice stdin EOF and stop itself and its agent."""
    started = time.monotonic()
    cmd, proc = ws.start(acpx, "hang", "--approve-all")
    deadline = started + 60
    while not any("acp_mux" in p for p in ws.processes()) or not any("scripted_agent" in p for p in ws.processes()):
        assert proc.poll() is None and time.monotonic() < deadline, (
            f"the turn never got going (rc={proc.poll()}): {ws.processes()}"
        )
        time.sleep(0.05)
    time.sleep(0.5)  # let the turn start streaming
    proc.kill()  # acpx only; acp-mux and the agent are left to notice on their own
    proc.communicate(timeout=RUN_TIMEOUT_S)
    leftovers = ws.wait_until_gone(GONE_WITHIN_S)
    assert not leftovers, f"still running {GONE_WITHIN_S}s after acpx was killed: {leftovers}"
    assert time.monotonic() - started < RUN_TIMEOUT_S


@pytest.mark.parametrize("name", ["claude", "codex", "gemini", "omp", "hermes", "opencode", "copilot"])
def test_approve_all_drives_a_real_agent_through_write_then_edit(acpx, tmp_path, name):
    """acpx → acp-mux → the real CLI (pinned npm install) → the scripted model server on 127.0.0.1."""
    from tests.e2e.clis import cli_env, opencode_config, opencode_config_file
    from tests.e2e.harness import SCENARIOS, require_cli
    from tests.fakes.model_server import ModelServer

    binary = require_cli(name)
    project = tmp_path / "project"
    # the modes in which it asks first
    mode = {
        "claude": "default",
        "codex": "read-only",
        "gemini": "default",
        "omp": "default",
        "hermes": "default",
        "opencode": "build",
        "copilot": "agent",
    }[name]
    with ModelServer(SCENARIOS / f"{name}_write_edit.json", variables={"cwd": str(project)}, delta_delay=0) as srv:
        env = cli_env(name, srv.url, tmp_path / "home", cwd=project)
        if name == "opencode":  # opencode's own defaults ask nothing: the questions come from acp-mux's rules
            opencode_config_file(tmp_path / "home").write_text(json.dumps(opencode_config(srv.url, permission=None)))
        env[f"ACP_MUX_{name.upper()}_BIN"] = str(binary)
        ws = Workspace(tmp_path, ("--agent", name, "--mode", mode), env)
        run = ws.run(acpx, "Create notes.txt with alpha and beta, then change beta to gamma.", "--approve-all")
    assert run.returncode == EXIT_CODES["ok"], run.describe()
    assert (project / "notes.txt").read_text() == "alpha\ngamma\n", run.describe()
    assert run.stop_reasons() == ["end_turn"]
    edits = [c for c in run.updates("tool_call") if c["kind"] == "edit"]
    assert len(edits) == 2 and all(run.final_statuses()[c["toolCallId"]] == "completed" for c in edits)
    shown = {c["toolCallId"] for c in run.updates("tool_call")}
    requests = run.permission_requests()
    assert requests and all(r["toolCall"]["toolCallId"] in shown for r in requests), run.describe()
    assert all(a == {"outcome": "selected", "optionId": "allow_once"} for a in run.permission_answers())
    assert "notes.txt now contains alpha and gamma" in run.text()
    assert run.leftovers == [], run.leftovers

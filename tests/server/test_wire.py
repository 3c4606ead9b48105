"""Wire-level behaviour no SDK client shows: raw JSON-RPC lines in and out of ``acp-mux``."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator


class Wire:
    """acp-mux --agent demo as a child, spoken to line by line.

    Lines are read on a thread, so a missing message fails instead of hanging; ``stalled()`` stops that reading,
    to act like an editor that is busy and reads nothing.
    """

    def __init__(self, tmp_path: Any, **env: str) -> None:
        env = {"ACP_MUX_STATE_DIR": str(tmp_path / "state"), "PATH": "/usr/bin:/bin", "SCRIPTED_AGENT_ECHO": "1", **env}
        self.cwd = tmp_path
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "acp_mux", "--agent", "demo"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self._reading = threading.Event()
        self._reading.set()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
            self._reading.wait()

    @contextmanager
    def stalled(self) -> Iterator[None]:
        """Read nothing while inside (at most the line already being handed over)."""
        self._reading.clear()
        try:
            yield
        finally:
            self._reading.set()

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.proc.stdin.flush()

    def next(self, predicate: Any, timeout: float = 10.0) -> dict[str, Any]:
        while True:
            try:
                message = json.loads(self.lines.get(timeout=timeout))
            except queue.Empty:
                raise AssertionError("expected message did not arrive") from None
            self.seen.append(message)
            if predicate(message):
                return message

    def open_session(self) -> str:
        """initialize + session/new; the new session's id."""
        self.send({"id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        self.next(lambda m: m.get("id") == 1)
        self.send({"id": 2, "method": "session/new", "params": {"cwd": str(self.cwd), "mcpServers": []}})
        return self.next(lambda m: m.get("id") == 2)["result"]["sessionId"]

    def prompt(self, request_id: int, session_id: str, text: str) -> None:
        params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
        self.send({"id": request_id, "method": "session/prompt", "params": params})

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


def agent_text(messages: list[dict[str, Any]]) -> str:
    updates = [(m.get("params") or {}).get("update") or {} for m in messages]
    return "".join(u["content"]["text"] for u in updates if u.get("sessionUpdate") == "agent_message_chunk")


def test_cancel_withdraws_the_open_permission_dialog(tmp_path) -> None:
    wire = Wire(tmp_path)
    try:
        sid = wire.open_session()
        wire.prompt(3, sid, "write")
        asked = wire.next(lambda m: m.get("method") == "session/request_permission")
        wire.send({"method": "session/cancel", "params": {"sessionId": sid}})  # the dialog stays unanswered
        withdrawn = wire.next(lambda m: m.get("method") == "$/cancel_request")
        assert withdrawn["params"] == {"requestId": asked["id"]}
        assert wire.next(lambda m: m.get("id") == 3)["result"]["stopReason"] == "cancelled"
    finally:
        wire.close()
    assert not (tmp_path / "notes.txt").exists()


def test_a_question_the_agent_withdraws_closes_the_dialog_and_the_turn_goes_on(tmp_path) -> None:
    wire = Wire(tmp_path)
    try:
        sid = wire.open_session()
        wire.prompt(3, sid, "withdraw")
        asked = wire.next(lambda m: m.get("method") == "session/request_permission")
        withdrawn = wire.next(
            lambda m: m.get("method") == "$/cancel_request"
        )  # nobody answered: the agent took it back
        assert withdrawn["params"] == {"requestId": asked["id"]}
        assert wire.next(lambda m: m.get("id") == 3)["result"]["stopReason"] == "end_turn"
        assert "Never mind, I found another way." in agent_text(wire.seen)
        # a late answer to the withdrawn question is harmless
        wire.send({"id": asked["id"], "result": {"outcome": {"outcome": "selected", "optionId": "allow_once"}}})
        wire.prompt(4, sid, "hi")
        assert wire.next(lambda m: m.get("id") == 4)["result"]["stopReason"] == "end_turn"
    finally:
        wire.close()


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS"))


def test_an_editor_that_stops_reading_pauses_the_agent_instead_of_filling_memory(tmp_path) -> None:
    """64 MB of agent text while the client reads nothing: the bridge holds a few MB, then delivers every byte."""
    wire = Wire(tmp_path, ACP_MUX_DEMO_FLOOD_MB="64")
    try:
        sid = wire.open_session()
        idle = _rss_kib(wire.proc.pid)
        with wire.stalled():
            wire.prompt(3, sid, "flood")
            time.sleep(3)  # the editor is busy: nothing is read for a while
            stalled = _rss_kib(wire.proc.pid)
        done = wire.next(lambda m: m.get("id") == 3, timeout=60)
        assert done["result"]["stopReason"] == "end_turn"
        assert len(agent_text(wire.seen)) == 64 * 1024 * 1024  # every byte arrived, late
        assert stalled - idle < 80 * 1024, (idle, stalled)  # without backpressure: +160 MB and growing
    finally:
        wire.close()

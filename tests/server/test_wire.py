"""Wire-level behaviour no SDK client shows: raw JSON-RPC lines in and out of ``acp-mux``."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from typing import Any


class Wire:
    """acp-mux --agent demo as a child, spoken to line by line."""

    def __init__(self, tmp_path: Any) -> None:
        env = {"ACP_MUX_STATE_DIR": str(tmp_path / "state"), "PATH": "/usr/bin:/bin"}
        self.cwd = tmp_path
        self.proc = subprocess.Popen([sys.executable, "-m", "acp_mux", "--agent", "demo"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        self.lines: queue.Queue[str] = queue.Queue()  # read on a thread, so a missing message fails, not hangs
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stdout], daemon=True).start()

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

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


def test_cancel_withdraws_the_open_permission_dialog(tmp_path) -> None:
    wire = Wire(tmp_path)
    try:
        wire.send({"id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        wire.next(lambda m: m.get("id") == 1)
        wire.send({"id": 2, "method": "session/new", "params": {"cwd": str(tmp_path), "mcpServers": []}})
        sid = wire.next(lambda m: m.get("id") == 2)["result"]["sessionId"]
        wire.send({"id": 3, "method": "session/prompt", "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "write"}]}})
        asked = wire.next(lambda m: m.get("method") == "session/request_permission")
        wire.send({"method": "session/cancel", "params": {"sessionId": sid}})  # the dialog stays unanswered
        withdrawn = wire.next(lambda m: m.get("method") == "$/cancel_request")
        assert withdrawn["params"] == {"requestId": asked["id"]}
        assert wire.next(lambda m: m.get("id") == 3)["result"] == {"stopReason": "cancelled"}
    finally:
        wire.close()
    assert not (tmp_path / "notes.txt").exists()


def test_a_question_the_agent_withdraws_closes_the_dialog_and_the_turn_goes_on(tmp_path) -> None:
    wire = Wire(tmp_path)
    try:
        wire.send({"id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        wire.next(lambda m: m.get("id") == 1)
        wire.send({"id": 2, "method": "session/new", "params": {"cwd": str(tmp_path), "mcpServers": []}})
        sid = wire.next(lambda m: m.get("id") == 2)["result"]["sessionId"]
        wire.send({"id": 3, "method": "session/prompt", "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "withdraw"}]}})
        asked = wire.next(lambda m: m.get("method") == "session/request_permission")
        withdrawn = wire.next(lambda m: m.get("method") == "$/cancel_request")  # nobody answered: the agent took it back
        assert withdrawn["params"] == {"requestId": asked["id"]}
        assert wire.next(lambda m: m.get("id") == 3)["result"] == {"stopReason": "end_turn"}
        updates = [(m.get("params") or {}).get("update") or {} for m in wire.seen]
        said = "".join(u["content"]["text"] for u in updates if u.get("sessionUpdate") == "agent_message_chunk")
        assert "Never mind, I found another way." in said
        # a late answer to the withdrawn question is harmless
        wire.send({"id": asked["id"], "result": {"outcome": {"outcome": "selected", "optionId": "allow_once"}}})
        wire.send({"id": 4, "method": "session/prompt", "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}})
        assert wire.next(lambda m: m.get("id") == 4)["result"] == {"stopReason": "end_turn"}
    finally:
        wire.close()


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS"))


def test_an_editor_that_stops_reading_pauses_the_agent_instead_of_filling_memory(tmp_path) -> None:
    """64 MB of agent text while the client reads nothing: the bridge holds a few MB, then delivers every byte."""
    env = {"ACP_MUX_STATE_DIR": str(tmp_path / "state"), "PATH": "/usr/bin:/bin", "ACP_MUX_DEMO_FLOOD_MB": "64"}
    proc = subprocess.Popen([sys.executable, "-m", "acp_mux", "--agent", "demo"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, Any]) -> None:
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        proc.stdin.flush()

    def read_until(predicate: Any) -> dict[str, Any]:
        while True:
            message = json.loads(proc.stdout.readline())
            if predicate(message):
                return message

    def chunk_of(message: dict[str, Any]) -> str:
        update = (message.get("params") or {}).get("update") or {}
        return update["content"]["text"] if update.get("sessionUpdate") == "agent_message_chunk" else ""

    try:
        send({"id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        read_until(lambda m: m.get("id") == 1)
        send({"id": 2, "method": "session/new", "params": {"cwd": str(tmp_path), "mcpServers": []}})
        sid = read_until(lambda m: m.get("id") == 2)["result"]["sessionId"]
        idle = _rss_kib(proc.pid)
        send({"id": 3, "method": "session/prompt", "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "flood"}]}})
        received = len(chunk_of(read_until(lambda m: bool(chunk_of(m)))))
        time.sleep(3)  # the editor is busy: nothing is read for a while
        stalled = _rss_kib(proc.pid)
        while True:
            message = json.loads(proc.stdout.readline())
            received += len(chunk_of(message))
            if message.get("id") == 3:
                break
        assert message["result"] == {"stopReason": "end_turn"}
        assert received == 64 * 1024 * 1024  # every byte arrived, late
        assert stalled - idle < 80 * 1024, (idle, stalled)  # without backpressure: +160 MB and growing
    finally:
        proc.stdin.close()
        proc.wait(10)

"""A raw, hostile-capable ACP client: ``acp-mux`` as a child process, spoken to in bytes.

Unlike the SDK client it can send anything (broken JSON, wrong types, lone surrogates, batches, strange ids) and
answer the bridge's own requests with any shape. Every line the bridge writes is checked on arrival: it must be
strict JSON (no NaN/Infinity), carry ``"jsonrpc": "2.0"`` and encode as UTF-8; a violation is recorded in
``problems`` and fails :meth:`RawBridge.close`.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

Answer = Callable[[dict[str, Any]], Any]  # a bridge→client request → the raw "result" value to send back


def _strict(line: bytes) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"non-JSON constant {name}")

    return json.loads(line.decode("utf-8"), parse_constant=refuse)


class RawBridge:
    def __init__(
        self,
        root: Path,
        *args: str,
        agent: str = "demo",
        env: dict[str, str] | None = None,
        answer: Answer | None = None,
    ) -> None:
        self.root = root
        self.cwd = root / "project"
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.log_file = root / "acp-mux.log"
        self.stderr_file = root / "stderr.txt"
        full_env = {
            **os.environ,
            "ACP_MUX_STATE_DIR": str(root / "state"),
            **(env or {}),
        }
        command = [sys.executable, "-m", "acp_mux", "--agent", agent, "--log-file", str(self.log_file), *args]
        self._stderr = open(self.stderr_file, "wb")
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, cwd=self.cwd, env=full_env
        )
        self.answer = answer
        self.problems: list[str] = []
        self.notifications: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []  # bridge → client requests (permission dialogs)
        self.lines: list[Any] = []
        self._responses: dict[Any, "queue.Queue[dict[str, Any]]"] = {}
        self._other: "queue.Queue[Any]" = queue.Queue()  # responses with ids nobody waits for, batches, ...
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # ── reading ───────────────────────────────────────────────────────────────────────────────────────────────
    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                message = _strict(line)
            except (ValueError, UnicodeDecodeError) as exc:
                self.problems.append(f"invalid JSON from the bridge ({exc}): {line[:200]!r}")
                continue
            self.lines.append(message)
            for item in message if isinstance(message, list) else [message]:
                if not isinstance(item, dict) or item.get("jsonrpc") != "2.0":
                    self.problems.append(f"not a JSON-RPC 2.0 message: {item!r:.200}")
            if isinstance(message, dict) and "method" in message and "id" in message:
                self.requests.append(message)
                self._answer_request(message)
            elif isinstance(message, dict) and "method" in message:
                self.notifications.append(message)
            elif isinstance(message, dict) and "id" in message:
                with self._lock:
                    waiting = self._responses.get(_key(message["id"]))
                (waiting or self._other).put(message)
            else:
                self._other.put(message)

    def _answer_request(self, message: dict[str, Any]) -> None:
        if self.answer is None:
            return
        try:
            result = self.answer(message)
        except Exception as exc:  # the test's policy failed: answer with an error rather than hang
            self.write({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": str(exc)}})
            return
        if result is _NO_ANSWER:
            return
        self.write({"jsonrpc": "2.0", "id": message["id"], "result": result})

    # ── writing ───────────────────────────────────────────────────────────────────────────────────────────────
    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        with self._write_lock:
            self.proc.stdin.write(data if data.endswith(b"\n") else data + b"\n")
            self.proc.stdin.flush()

    def write(self, message: Any) -> None:
        self.send_bytes(json.dumps(message).encode())

    def expect(self, request_id: Any) -> "queue.Queue[dict[str, Any]]":
        """Register interest in the response to ``request_id`` before sending it."""
        waiting: "queue.Queue[dict[str, Any]]" = queue.Queue()
        with self._lock:
            self._responses[_key(request_id)] = waiting
        return waiting

    def call_raw(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send a request as given (its own id) and wait for the response with that id."""
        waiting = self.expect(message["id"])
        self.write(message)
        try:
            return waiting.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer to {json.dumps(message)[:200]} within {timeout}s") from None

    def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 10.0) -> dict[str, Any]:
        request_id = f"t-{next(self._ids)}"
        return self.call_raw({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}, timeout)

    def result(self, method: str, params: dict[str, Any] | None = None, timeout: float = 10.0) -> Any:
        response = self.call(method, params, timeout)
        assert "result" in response, f"{method} failed: {response}"
        return response["result"]

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.write({"jsonrpc": "2.0", "method": method, "params": params})

    def other(self, timeout: float = 5.0) -> Any:
        return self._other.get(timeout=timeout)

    # ── ACP shortcuts ─────────────────────────────────────────────────────────────────────────────────────────
    def initialize(self) -> dict[str, Any]:
        return self.result("initialize", {"protocolVersion": 1, "clientCapabilities": {}})

    def new_session(self, **params: Any) -> str:
        return self.result("session/new", {"cwd": str(self.cwd), "mcpServers": [], **params})["sessionId"]

    def serves(self) -> bool:
        """The bridge still answers (a request anybody may send: an unknown method is -32601)."""
        response = self.call("acp-mux/ping-that-does-not-exist", {}, timeout=10.0)
        return response.get("error", {}).get("code") == -32601 and self.proc.poll() is None

    def updates(self, session_id: str | None = None) -> list[dict[str, Any]]:
        return [
            n["params"]["update"]
            for n in list(self.notifications)
            if n.get("method") == "session/update"
            and (session_id is None or n["params"].get("sessionId") == session_id)
        ]

    def text(self, session_id: str | None = None) -> str:
        return "".join(
            u["content"].get("text", "")
            for u in self.updates(session_id)
            if u.get("sessionUpdate") == "agent_message_chunk"
        )

    # ── ending ────────────────────────────────────────────────────────────────────────────────────────────────
    def close(self, timeout: float = 5.0) -> int:
        """Close stdin (the editor leaves) and wait; returns the exit status. Fails on any protocol violation."""
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("the bridge did not exit after its stdin closed") from None
        self._reader.join(2)
        self._stderr.close()
        assert not self.problems, self.problems
        return self.proc.returncode

    def kill(self) -> None:
        """SIGKILL the bridge, as an editor that quits hard does."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(5)
        self._stderr.close()

    def stderr(self) -> str:
        return self.stderr_file.read_text(errors="replace")

    def log(self) -> str:
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else ""


_NO_ANSWER = object()


def no_answer(_message: dict[str, Any]) -> Any:
    """An answer policy that never answers (a dialog left open)."""
    return _NO_ANSWER


def _key(request_id: Any) -> Any:
    return json.dumps(request_id)


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")

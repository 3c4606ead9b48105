"""Fault class 2 through the real stdio: a prompt holding a lone UTF-16 surrogate (a JS editor's truncated emoji).

Before: writing it to the agent and to the transcript failed, nothing answered until the watchdog, and cancel
answered -32603. Now the surrogate becomes U+FFFD where the line is read, so the turn runs like any other.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.faults.raw import RawBridge, wait_until

TRUNCATED = '{"jsonrpc":"2.0","id":"%s","method":"session/prompt","params":{"sessionId":"%s","prompt":[{"type":"text","text":"%s"}]}}'


def prompt_raw(bridge: RawBridge, sid: str, escaped_text: str, request_id: str, timeout: float = 20) -> dict:
    waiting = bridge.expect(request_id)
    bridge.send_bytes((TRUNCATED % (request_id, sid, escaped_text)).encode())
    return waiting.get(timeout=timeout)


def test_a_lone_surrogate_in_a_prompt_ends_the_turn_and_the_session_goes_on(tmp_path: Path) -> None:
    bridge = RawBridge(tmp_path)
    bridge.initialize()
    sid = bridge.new_session()
    answer = prompt_raw(bridge, sid, "smile \\ud83d and \\udc00 done", "p1")
    assert answer.get("result", {}).get("stopReason") == "end_turn", answer
    assert "smile \ufffd and \ufffd done" in bridge.text(sid)  # the demo echoes the prompt: replaced, not lost
    # the session log was written (a load replays it) and the next turn works
    assert (
        bridge.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "again"}]}, 20)[
            "stopReason"
        ]
        == "end_turn"
    )
    log = (tmp_path / "state" / "sessions" / f"{sid}.events.jsonl").read_text(encoding="utf-8")
    prompts = [e["data"] for e in map(json.loads, log.splitlines()) if e["type"] == "user.message"]
    assert "smile \ufffd and" in prompts[0]["content"][0]["text"]
    # a cancel during a turn that carries a surrogate answers cancelled, not -32603
    waiting = bridge.expect("p3")
    bridge.send_bytes((TRUNCATED % ("p3", sid, "hang \\ud800")).encode())
    wait_until(lambda: "Thinking very hard" in bridge.text(sid), what="the hang scenario to start")
    bridge.notify("session/cancel", {"sessionId": sid})
    assert waiting.get(timeout=10).get("result", {}).get("stopReason") == "cancelled"
    assert bridge.serves()
    assert bridge.close() == 0
    # the session record was written: a new bridge replays the turn, replaced character and all
    again = RawBridge(tmp_path)
    again.initialize()
    again.result("session/load", {"sessionId": sid, "cwd": str(again.cwd), "mcpServers": []}, 20)
    replayed = json.dumps(again.updates(sid), ensure_ascii=False)
    assert "smile \ufffd and \ufffd done" in replayed
    assert again.close() == 0


def test_surrogates_in_every_string_field_are_harmless(tmp_path: Path) -> None:
    bridge = RawBridge(tmp_path)
    bridge.send_bytes(
        b'{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":1,'
        b'"clientCapabilities":{"_meta":{"\\ud800":"\\udfff"}},"clientInfo":{"name":"\\ud83d"}}}'
    )
    assert "result" in bridge.other(10)
    bridge.send_bytes(
        (
            '{"jsonrpc":"2.0","id":"n","method":"session/new","params":{"cwd":"%s\\ud800","mcpServers":[]}}'
            % bridge.cwd
        ).encode()
    )
    answer = bridge.other(10)
    assert answer["error"]["code"] == -32602  # no such directory, said readably
    bridge.send_bytes(b'{"jsonrpc":"2.0","id":"m","method":"\\udc80","params":{}}')
    assert bridge.other(10)["error"]["code"] == -32601
    assert bridge.serves()
    assert bridge.close() == 0

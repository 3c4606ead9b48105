"""Unit tests for the scripted fake model server (tests/fakes/model_server.py), over real HTTP with urllib."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import (
    SCENARIO_DIR,
    ModelServer,
    load_scenario,
    parse_sse,
    split_json,
    text_deltas,
)

REPO = Path(__file__).resolve().parents[2]

SCENARIO: dict[str, Any] = {
    "delta_delay": 0,
    "helper_text": "A title",
    "done_text": "Finished.",
    "steps": [
        {
            "blocks": [
                {"thinking": "Plan it."},
                {"text": "Writing the file.", "deltas": 3},
                {"tool_use": {"name": "Write", "input": {"file_path": "{cwd}/notes.txt", "content": "alpha\nbeta\n"}}},
            ]
        },
        {"blocks": [{"tool_use": {"name": "Edit", "input": {"old_string": "beta", "new_string": "gamma"}}}]},
        {"blocks": [{"text": ["Done", " editing."]}]},
    ],
}
TOOLS_ANTHROPIC = [{"name": "Write", "input_schema": {}}, {"name": "Edit", "input_schema": {}}]
TOOLS_OPENAI = [{"type": "function", "name": "exec_command", "parameters": {}}]


# ------------------------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------------------------


def post(url: str, path: str, body: dict[str, Any], timeout: float = 10) -> tuple[int, dict[str, str], bytes]:
    """POST JSON; returns (status, lower-cased headers, body) for successes and HTTP errors alike."""
    request = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


def anthropic_body(n_results: int = 0, tools: list | None = TOOLS_ANTHROPIC, stream: bool = True) -> dict:
    """A Messages request carrying ``n_results`` tool results, as claude would resend its history."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    for i in range(n_results):
        messages.append(
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "Write", "input": {}}]}
        )
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}]})
    body: dict[str, Any] = {"model": "claude-test", "stream": stream, "messages": messages, "max_tokens": 100}
    if tools:
        body["tools"] = tools
    return body


def responses_body(n_results: int = 0, tools: list | None = TOOLS_OPENAI) -> dict:
    items: list[dict[str, Any]] = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    ]
    for i in range(n_results):
        items.append({"type": "function_call", "call_id": f"c{i}", "name": "exec_command", "arguments": "{}"})
        items.append({"type": "function_call_output", "call_id": f"c{i}", "output": "ok"})
    body: dict[str, Any] = {"model": "gpt-test", "stream": True, "input": items}
    if tools:
        body["tools"] = tools
    return body


TOOLS_GEMINI = [{"functionDeclarations": [{"name": "Write", "parameters": {}}, {"name": "Edit", "parameters": {}}]}]
GEMINI_STREAM = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"


def gemini_body(n_results: int = 0, tools: list | None = TOOLS_GEMINI) -> dict:
    """A generateContent request carrying ``n_results`` functionResponse parts, as gemini resends its history."""
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": "hi"}]}]
    for i in range(n_results):
        contents.append({"role": "model", "parts": [{"functionCall": {"id": f"c{i}", "name": "Write", "args": {}}}]})
        contents.append(
            {
                "role": "user",
                "parts": [{"functionResponse": {"id": f"c{i}", "name": "Write", "response": {"output": "ok"}}}],
            }
        )
    body: dict[str, Any] = {"contents": contents, "generationConfig": {"temperature": 1}}
    if tools:
        body["tools"] = tools
    return body


def gemini_parts(events: list[tuple[str | None, Any]]) -> list[dict[str, Any]]:
    return [part for _, chunk in events for part in chunk["candidates"][0]["content"]["parts"]]


def types(events: list[tuple[str | None, Any]]) -> list[str]:
    return [data["type"] for _, data in events if isinstance(data, dict) and "type" in data]


@pytest.fixture
def server():
    with ModelServer(SCENARIO, variables={"cwd": "/proj"}) as srv:
        yield srv


# ------------------------------------------------------------------------------------------------------------------
# scenario loading and pure helpers
# ------------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SCENARIO_DIR.glob("*.json")), ids=lambda p: p.stem)
def test_shipped_scenarios_load(path: Path) -> None:
    scenario = load_scenario(path.stem, {"cwd": "/proj"})
    assert "{cwd}" not in json.dumps(scenario)
    assert scenario["steps"] or scenario.get("error")


def test_text_scenarios_stream_many_deltas() -> None:
    for name in ("claude_text", "codex_text", "gemini_text"):
        blocks = load_scenario(name)["steps"][0]["blocks"]
        assert [len(text_deltas(b)) for b in blocks if "text" in b] == [200]


def test_load_scenario_rejects_bad_blocks_and_modes() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        load_scenario({"steps": [{"blocks": [{"text": "a", "thinking": "b"}]}]})
    with pytest.raises(ValueError, match="error must be"):
        load_scenario({"error": "teapot", "steps": []})
    with pytest.raises(ValueError, match="needs a name"):
        load_scenario({"steps": [{"blocks": [{"tool_use": {"input": {}}}]}]})


def test_variables_replace_only_known_placeholders() -> None:
    scenario = load_scenario({"steps": [{"blocks": [{"text": "{cwd}/a {other} {}"}]}]}, {"cwd": "/p"})
    assert scenario["steps"][0]["blocks"][0]["text"] == "/p/a {other} {}"


def test_split_json_keeps_string_values_whole_and_round_trips() -> None:
    value = {"file_path": "/a/very/long/path/notes.txt", "content": "alpha\nbeta\n", "n": 1}
    chunks = split_json(value)
    assert len(chunks) == 3 and "".join(chunks) == json.dumps(value)
    assert any(json.dumps(value["file_path"]) in c for c in chunks)
    assert "".join(split_json("line1\nline2\n")) == "line1\nline2\n"


def test_text_deltas_split_and_explicit_lists() -> None:
    assert text_deltas({"text": "abcdef", "deltas": 3}) == ["ab", "cd", "ef"]
    assert text_deltas({"text": ["x", "y"]}) == ["x", "y"]
    assert text_deltas({"text": "a", "deltas": 5}) == ["a"]


def test_parse_sse_handles_names_json_and_literals() -> None:
    raw = b'event: ping\ndata: {"type": "ping"}\n\ndata: [DONE]\n\n: comment\n\n'
    assert parse_sse(raw) == [("ping", {"type": "ping"}), (None, "[DONE]")]


# ------------------------------------------------------------------------------------------------------------------
# Anthropic Messages
# ------------------------------------------------------------------------------------------------------------------


def test_anthropic_stream_framing_and_content(server: ModelServer) -> None:
    status, headers, raw = post(server.url, "/v1/messages?beta=true", anthropic_body(0))
    assert status == 200 and headers["content-type"] == "text/event-stream"
    events = parse_sse(raw)
    assert all(name == data["type"] for name, data in events)  # event: line always matches data.type
    kinds = types(events)
    assert kinds[:2] == ["message_start", "ping"] and kinds[-2:] == ["message_delta", "message_stop"]
    assert kinds.count("content_block_start") == kinds.count("content_block_stop") == 3

    deltas = [d["delta"] for _, d in events if d["type"] == "content_block_delta"]
    assert "".join(d["thinking"] for d in deltas if d["type"] == "thinking_delta") == "Plan it."
    assert any(d["type"] == "signature_delta" and d["signature"] for d in deltas)
    text = [d["text"] for d in deltas if d["type"] == "text_delta"]
    assert len(text) == 3 and "".join(text) == "Writing the file."
    tool_json = "".join(d["partial_json"] for d in deltas if d["type"] == "input_json_delta")
    assert json.loads(tool_json) == {"file_path": "/proj/notes.txt", "content": "alpha\nbeta\n"}
    starts = [d["content_block"] for _, d in events if d["type"] == "content_block_start"]
    assert starts[2]["type"] == "tool_use" and starts[2]["name"] == "Write" and starts[2]["id"].startswith("toolu_")
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"


@pytest.mark.parametrize(("n_results", "expect"), [(1, "Edit"), (2, "Done editing."), (7, "Finished.")])
def test_anthropic_step_is_number_of_tool_results(server: ModelServer, n_results: int, expect: str) -> None:
    _, _, raw = post(server.url, "/v1/messages?beta=true", anthropic_body(n_results))
    events = parse_sse(raw)
    names = [d["content_block"].get("name") for _, d in events if d["type"] == "content_block_start"]
    text = "".join(d["delta"].get("text", "") for _, d in events if d["type"] == "content_block_delta")
    assert expect in names or text == expect
    assert server.requests[-1]["step"] == n_results and server.requests[-1]["kind"] == "step"
    stop = events[-2][1]["delta"]["stop_reason"]
    assert stop == ("tool_use" if expect == "Edit" else "end_turn")


def test_same_history_replays_the_same_step(server: ModelServer) -> None:
    def content(raw: bytes) -> list[Any]:
        """Everything but the per-request ids (message id, tool_use id)."""
        return [d for _, d in parse_sse(raw) if d["type"] not in ("message_start", "content_block_start")]

    first = post(server.url, "/v1/messages", anthropic_body(1))[2]
    again = post(server.url, "/v1/messages", anthropic_body(1))[2]
    assert content(first) == content(again)


def test_helper_request_without_tools_does_not_consume_a_step(server: ModelServer) -> None:
    _, _, raw = post(server.url, "/v1/messages", anthropic_body(0, tools=None))
    text = "".join(d["delta"].get("text", "") for _, d in parse_sse(raw) if d["type"] == "content_block_delta")
    assert text == "A title"
    assert server.requests[-1]["kind"] == "helper" and server.requests[-1]["step"] is None
    _, _, raw = post(server.url, "/v1/messages", anthropic_body(0))
    assert server.requests[-1]["step"] == 0 and b'"name": "Write"' in raw


def test_anthropic_non_streaming_message(server: ModelServer) -> None:
    status, _, raw = post(server.url, "/v1/messages", anthropic_body(0, stream=False))
    message = json.loads(raw)
    assert status == 200 and message["type"] == "message" and message["stop_reason"] == "tool_use"
    assert [c["type"] for c in message["content"]] == ["thinking", "text", "tool_use"]
    assert message["content"][2]["input"]["file_path"] == "/proj/notes.txt"


def test_count_tokens_and_models_and_unknown_route(server: ModelServer) -> None:
    status, _, raw = post(server.url, "/v1/messages/count_tokens?beta=true", anthropic_body(0))
    assert status == 200 and json.loads(raw)["input_tokens"] > 0
    with urllib.request.urlopen(server.url + "/v1/models", timeout=5) as response:
        assert json.loads(response.read())["data"][0]["id"] == "fake-model"
    status, _, _ = post(server.url, "/v2/nothing", {})
    assert status == 404
    assert [r["kind"] for r in server.requests] == ["count_tokens", "models", "other"]


def test_a_slow_count_tokens_is_answered_only_after_its_delay_and_a_stop_ends_it() -> None:
    """``count_tokens_delay`` (a slow endpoint for claude's warm-up): the request is logged as it arrives, its answer
    comes after the delay (``answered``), and stopping the server ends one still waiting, unanswered."""
    with ModelServer({"steps": [], "count_tokens_delay": 0.05}) as srv:
        status, _, raw = post(srv.url, "/v1/messages/count_tokens?beta=true", anthropic_body(0))
        (record,) = srv.requests
        assert status == 200 and json.loads(raw)["input_tokens"] > 0 and record["answered"] >= record["time"]
    srv = ModelServer({"steps": [], "count_tokens_delay": 600}).start()
    caller = threading.Thread(target=lambda: _post_quietly(srv.url), daemon=True)
    caller.start()
    waiting = srv.wait_for(lambda r: r["kind"] == "count_tokens", 10)
    assert waiting is not None and waiting["answered"] is None and waiting["status"] is None
    srv.stop()
    caller.join(10)
    assert not caller.is_alive() and srv.requests[0]["outcome"] == "stopped" and srv.requests[0]["answered"] is None


def _post_quietly(url: str) -> None:
    try:
        post(url, "/v1/messages/count_tokens?beta=true", anthropic_body(0))
    except (OSError, urllib.error.URLError):
        pass  # the server stopped before answering: what the test wants


def get_json(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_startup_probes_get_openai_answers_and_native_apis_404(server: ModelServer) -> None:
    """hermes' startup probes: the OpenAI routes describe the model (context window included); Ollama/LM Studio
    native routes are refused at once, so the fake is never mistaken for a local inference server."""
    status, model = get_json(server.url + "/v1/models/fake-model")
    assert status == 200 and model["id"] == "fake-model" and model["max_model_len"] == 128000
    status, listing = get_json(server.url + "/v1/models")
    assert status == 200 and listing["data"][0]["context_length"] == 128000
    for path in ("/api/v1/models", "/api/tags"):
        status, body = get_json(server.url + path)
        assert status == 404 and "not an OpenAI-compatible route" in body["error"]
    status, _, _ = post(server.url, "/api/show", {"name": "fake-model"})
    assert status == 404
    assert [r["kind"] for r in server.requests] == ["models", "models", "probe", "probe", "probe"]


# ------------------------------------------------------------------------------------------------------------------
# OpenAI Responses and Chat Completions
# ------------------------------------------------------------------------------------------------------------------


def test_responses_stream_items_and_usage(server: ModelServer) -> None:
    status, _, raw = post(server.url, "/v1/responses", responses_body(0))
    events = parse_sse(raw)
    assert status == 200 and all(name == data["type"] for name, data in events)
    kinds = types(events)
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert kinds.count("response.output_item.added") == kinds.count("response.output_item.done") == 3
    done = [d["item"] for _, d in events if d["type"] == "response.output_item.done"]
    assert [i["type"] for i in done] == ["reasoning", "message", "function_call"]
    assert done[0]["summary"][0]["text"] == "Plan it."
    assert "".join(d["delta"] for _, d in events if d["type"] == "response.output_text.delta") == "Writing the file."
    assert json.loads(done[2]["arguments"])["file_path"] == "/proj/notes.txt" and done[2]["call_id"]
    assert (
        "".join(d["delta"] for _, d in events if d["type"] == "response.function_call_arguments.delta")
        == done[2]["arguments"]
    )
    completed = events[-1][1]["response"]
    assert completed["status"] == "completed" and completed["usage"]["input_tokens"] > 0
    assert completed["usage"]["output_tokens_details"]["reasoning_tokens"] >= 0


def test_responses_steps_and_custom_tool() -> None:
    scenario = {
        "delta_delay": 0,
        "steps": [
            {"blocks": [{"text": "zero"}]},
            {"blocks": [{"tool_use": {"name": "apply_patch", "custom": True, "input": "*** Begin Patch\n"}}]},
        ],
    }
    with ModelServer(scenario) as srv:
        events = parse_sse(post(srv.url, "/v1/responses", responses_body(1))[2])
    item = [d["item"] for _, d in events if d["type"] == "response.output_item.done"][0]
    assert item == {**item, "type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch\n"}
    added = [d["item"] for _, d in events if d["type"] == "response.output_item.added"][0]
    assert added["input"] == "" and added["status"] == "in_progress"


def test_chat_completions_stream() -> None:
    scenario = {
        "delta_delay": 0,
        "steps": [{"blocks": [{"thinking": "hm"}, {"text": "hi"}, {"tool_use": {"name": "ls", "input": {"a": 1}}}]}],
    }
    body = {
        "model": "m",
        "stream": True,
        "messages": [{"role": "user", "content": "x"}],
        "tools": [{"type": "function", "function": {"name": "ls"}}],
    }
    with ModelServer(scenario) as srv:
        events = parse_sse(post(srv.url, "/v1/chat/completions", body)[2])
    assert events[-1] == (None, "[DONE]") and events[-2][1]["usage"]["total_tokens"] > 0
    deltas = [d["choices"][0]["delta"] for _, d in events[:-2]]
    assert "".join(d.get("reasoning_content", "") for d in deltas) == "hm"
    assert "".join(d.get("content") or "" for d in deltas) == "hi"
    args = "".join(c["function"].get("arguments", "") for d in deltas for c in d.get("tool_calls", []))
    assert json.loads(args) == {"a": 1}
    assert events[-3][1]["choices"][0]["finish_reason"] == "tool_calls"


# ------------------------------------------------------------------------------------------------------------------
# Gemini generateContent
# ------------------------------------------------------------------------------------------------------------------


def test_gemini_stream_one_part_per_chunk_and_last_chunk_finishes(server: ModelServer) -> None:
    status, headers, raw = post(server.url, GEMINI_STREAM, gemini_body(0))
    events = parse_sse(raw)
    assert status == 200 and headers["content-type"] == "text/event-stream"
    assert all(name is None for name, _ in events)  # Gemini SSE has no event: lines
    assert all(len(chunk["candidates"][0]["content"]["parts"]) == 1 for _, chunk in events)
    assert {chunk["candidates"][0]["content"]["role"] for _, chunk in events} == {"model"}
    assert {chunk["modelVersion"] for _, chunk in events} == {"gemini-2.5-pro"}  # the model comes from the path
    parts = gemini_parts(events)
    assert "".join(p["text"] for p in parts if p.get("thought")) == "Plan it."
    text = [p["text"] for p in parts if "text" in p and not p.get("thought")]
    assert len(text) == 3 and "".join(text) == "Writing the file."
    calls = [p["functionCall"] for p in parts if "functionCall" in p]
    assert calls == [{"name": "Write", "args": {"file_path": "/proj/notes.txt", "content": "alpha\nbeta\n"}}]
    finished = [chunk for _, chunk in events if "finishReason" in chunk["candidates"][0]]
    assert finished == [events[-1][1]] and finished[0]["candidates"][0]["finishReason"] == "STOP"
    assert "usageMetadata" in events[-1][1] and all("usageMetadata" not in c for _, c in events[:-1])
    record = server.requests[-1]
    assert record["api"] == "gemini" and record["kind"] == "step" and record["step"] == 0


@pytest.mark.parametrize(("n_results", "expect"), [(1, "Edit"), (2, "Done editing."), (5, "Finished.")])
def test_gemini_step_is_number_of_function_responses(server: ModelServer, n_results: int, expect: str) -> None:
    parts = gemini_parts(parse_sse(post(server.url, GEMINI_STREAM, gemini_body(n_results))[2]))
    names = [p["functionCall"]["name"] for p in parts if "functionCall" in p]
    assert expect in names or "".join(p.get("text", "") for p in parts) == expect
    assert server.requests[-1]["step"] == n_results


def test_gemini_generate_content_answers_one_object(server: ModelServer) -> None:
    status, headers, raw = post(server.url, "/v1beta/models/gemini-2.5-flash:generateContent", gemini_body(0))
    answer = json.loads(raw)
    assert status == 200 and headers["content-type"] == "application/json"
    parts = answer["candidates"][0]["content"]["parts"]
    assert parts[0] == {"text": "Plan it.", "thought": True} and parts[1] == {"text": "Writing the file."}
    assert parts[2]["functionCall"]["name"] == "Write"
    assert answer["candidates"][0]["finishReason"] == "STOP" and answer["modelVersion"] == "gemini-2.5-flash"
    assert answer["usageMetadata"]["totalTokenCount"] > 0


def test_gemini_helper_count_tokens_and_model_list(server: ModelServer) -> None:
    parts = gemini_parts(parse_sse(post(server.url, GEMINI_STREAM, gemini_body(0, tools=None))[2]))
    assert "".join(p["text"] for p in parts) == "A title" and server.requests[-1]["kind"] == "helper"
    status, _, raw = post(server.url, "/v1beta/models/gemini-2.5-pro:countTokens", gemini_body(0))
    assert status == 200 and json.loads(raw)["totalTokens"] > 0
    with urllib.request.urlopen(server.url + "/v1beta/models", timeout=5) as response:
        assert json.loads(response.read())["models"][0]["name"] == "models/fake-model"
    assert [r["kind"] for r in server.requests[-2:]] == ["count_tokens", "models"]


def test_gemini_empty_step_still_sends_a_finished_chunk() -> None:
    with ModelServer({"delta_delay": 0, "steps": [{"blocks": []}]}) as srv:
        events = parse_sse(post(srv.url, GEMINI_STREAM, gemini_body(0))[2])
    assert len(events) == 1 and events[0][1]["candidates"][0]["finishReason"] == "STOP"


# ------------------------------------------------------------------------------------------------------------------
# Error modes
# ------------------------------------------------------------------------------------------------------------------


def test_auth_error_bodies() -> None:
    with ModelServer("auth") as srv:
        status, _, raw = post(srv.url, "/v1/messages?beta=true", anthropic_body(0))
        assert status == 401
        body = json.loads(raw)
        assert body["type"] == "error" and body["error"]["type"] == "authentication_error"
        status, _, raw = post(srv.url, "/v1/responses", responses_body(0))
        assert status == 401 and json.loads(raw)["error"]["code"] == "invalid_api_key"
        status, _, _ = post(srv.url, "/v1/messages", anthropic_body(0, tools=None))  # helpers fail too
        assert status == 401
        status, _, raw = post(srv.url, GEMINI_STREAM, gemini_body(0))
        assert status == 401 and json.loads(raw)["error"] == {
            "code": 401,
            "message": "API key not valid. Please pass a valid API key.",
            "status": "UNAUTHENTICATED",
        }
        assert [r["error"] for r in srv.requests] == ["auth"] * 4


def test_rate_limit_bodies_and_retry_after() -> None:
    with ModelServer("rate", retry_after="7") as srv:
        status, headers, raw = post(srv.url, "/v1/messages", anthropic_body(0))
        assert status == 429 and headers["retry-after"] == "7"
        assert json.loads(raw)["error"]["type"] == "rate_limit_error"
        status, headers, raw = post(srv.url, "/v1/responses", responses_body(0))
        assert status == 429 and headers["retry-after"] == "7"
        assert json.loads(raw)["error"]["code"] == "rate_limit_exceeded"
        status, headers, raw = post(srv.url, GEMINI_STREAM, gemini_body(0))
        assert status == 429 and headers["retry-after"] == "7"
        assert json.loads(raw)["error"]["status"] == "RESOURCE_EXHAUSTED" and json.loads(raw)["error"]["code"] == 429


@pytest.mark.parametrize(("scenario", "status"), [("auth_no_retry", 401), ("rate_no_retry", 429)])
def test_error_headers_go_on_every_error_response(scenario: str, status: int) -> None:
    with ModelServer(scenario) as srv:
        got, headers, _ = post(
            srv.url,
            "/v1/chat/completions",
            {
                "model": "m",
                "stream": True,
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"type": "function", "function": {"name": "bash", "parameters": {}}}],
            },
        )
        assert got == status and headers["x-should-retry"] == "false"
        assert ("retry-after" in headers) == (status == 429)
    with ModelServer("rate") as srv:  # none by default
        assert "x-should-retry" not in post(srv.url, "/v1/messages", anthropic_body(0))[1]


def test_step_level_error_only_hits_that_step() -> None:
    scenario = {"delta_delay": 0, "steps": [{"blocks": [{"text": "ok"}]}, {"error": "rate"}]}
    with ModelServer(scenario) as srv:
        assert post(srv.url, "/v1/messages", anthropic_body(0))[0] == 200
        assert post(srv.url, "/v1/messages", anthropic_body(1))[0] == 429


def test_stall_sends_first_event_then_gives_up_after_stall_max() -> None:
    with ModelServer("stall", stall_max=0.3) as srv:
        started = time.monotonic()
        status, _, raw = post(srv.url, "/v1/messages", anthropic_body(0))
        elapsed = time.monotonic() - started
        assert status == 200 and types(parse_sse(raw)) == ["message_start"]
        assert 0.25 <= elapsed < 3
        assert srv.wait_for(lambda r: r["outcome"] == "stall_timeout", timeout=2)


def test_stall_notices_client_disconnect() -> None:
    with ModelServer("stall", stall_max=30) as srv:
        host, port = srv.url.removeprefix("http://").split(":")
        body = json.dumps(responses_body(0)).encode()
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(
                b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
            )
            assert b"response.created" in _read_until(sock, b"response.created")
        record = srv.wait_for(lambda r: r["outcome"] is not None, timeout=3)
        assert record is not None and record["outcome"] == "disconnected"


def test_mid_stream_disconnect_is_recorded() -> None:
    scenario = {"delta_delay": 0.02, "steps": [{"blocks": [{"text": [f"d{i} " for i in range(200)]}]}]}
    with ModelServer(scenario) as srv:
        host, port = srv.url.removeprefix("http://").split(":")
        body = json.dumps(anthropic_body(0)).encode()
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(
                b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: "
                + str(len(body)).encode()
                + b"\r\n\r\n"
                + body
            )
            _read_until(sock, b"text_delta")
        record = srv.wait_for(lambda r: r["outcome"] is not None, timeout=5)
        assert record is not None and record["outcome"] == "disconnected"
        assert record["events"] < 100


def test_stop_ends_a_stalled_stream_promptly() -> None:
    srv = ModelServer("stall", stall_max=30).start()
    host, port = srv.url.removeprefix("http://").split(":")
    body = json.dumps(anthropic_body(0)).encode()
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(
            b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        _read_until(sock, b"message_start")
        started = time.monotonic()
        srv.stop()
        record = srv.wait_for(lambda r: r["outcome"] is not None, timeout=3)
    assert record is not None and record["outcome"] == "stopped" and time.monotonic() - started < 2


def _read_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


# ------------------------------------------------------------------------------------------------------------------
# Logging, delays, command line
# ------------------------------------------------------------------------------------------------------------------


def test_requests_are_logged_in_memory_and_to_jsonl(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with ModelServer(SCENARIO, log_path=log) as srv:
        post(srv.url, "/v1/messages?beta=true", anthropic_body(2))
        record = srv.requests[0]
    assert record["path"] == "/v1/messages?beta=true" and record["api"] == "anthropic"
    assert record["body"]["messages"][0]["content"] == "hi" and record["outcome"] == "completed"
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(logged) == 1 and logged[0]["step"] == 2 and logged[0]["events"] > 0


def test_delta_delay_paces_the_stream() -> None:
    scenario = {"delta_delay": 0.02, "steps": [{"blocks": [{"text": [f"{i}" for i in range(10)]}]}]}
    with ModelServer(scenario) as srv:
        started = time.monotonic()
        post(srv.url, "/v1/messages", anthropic_body(0))
        assert time.monotonic() - started >= 0.18
    scenario = {"delta_delay": 0.5, "steps": [{"blocks": [{"text": [f"{i}" for i in range(10)]}]}]}
    with ModelServer(scenario, delta_delay=0) as srv:  # the override wins over the scenario's 10 × 0.5 s
        started = time.monotonic()
        post(srv.url, "/v1/messages", anthropic_body(0))
        assert time.monotonic() - started < 4.5


def test_command_line_serves_a_scenario(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fakes.model_server",
            "--scenario",
            "claude_write_edit",
            "--port",
            "0",
            "--var",
            "cwd=/proj",
            "--log",
            str(log),
            "--delta-delay",
            "0",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("model_server listening on http://127.0.0.1:")
        url = line.split()[-1]
        _, _, raw = post(url, "/v1/messages", anthropic_body(0, tools=[{"name": "Write"}]))
        assert b"/proj/notes.txt" in raw
    finally:
        proc.terminate()
        proc.wait(timeout=5)
    assert json.loads(log.read_text().splitlines()[0])["step"] == 0


# ── the fault modes of the hardening work (class 9): server errors and broken streams ─────────────────────────────
def test_server_error_bodies_in_each_wire_format() -> None:
    with ModelServer("rate", error="server") as srv:
        status, _, raw = post(srv.url, "/v1/messages", anthropic_body(0))
        assert status == 500 and json.loads(raw)["error"]["type"] == "api_error"
        status, _, raw = post(srv.url, "/v1/responses", responses_body(0))
        assert status == 500 and json.loads(raw)["error"]["code"] == "server_error"
        status, _, raw = post(srv.url, GEMINI_STREAM, gemini_body(0))
        assert status == 500 and json.loads(raw)["error"]["status"] == "INTERNAL"


def test_drop_closes_the_stream_after_drop_after_deltas_without_its_end() -> None:
    scenario = {"delta_delay": 0, "error": "drop", "drop_after": 2, "steps": [{"blocks": [{"text": ["a", "b", "c"]}]}]}
    with ModelServer(scenario) as srv:
        status, _, raw = post(srv.url, "/v1/messages", anthropic_body(0))
        assert status == 200
        kinds = types(parse_sse(raw))
        assert kinds.count("content_block_delta") == 2 and "message_stop" not in kinds
        assert srv.requests[-1]["outcome"] == "dropped"


def test_drop_cuts_a_non_streaming_answer_unless_drop_whole_is_off() -> None:
    scenario = {"delta_delay": 0, "error": "drop", "steps": [{"blocks": [{"text": "whole"}]}]}
    with ModelServer(scenario) as srv:
        with pytest.raises(Exception) as err:  # half the promised body, then the end: urllib's IncompleteRead
            post(srv.url, "/v1/messages", anthropic_body(0, stream=False))
        assert "IncompleteRead" in type(err.value).__name__ or "incomplete" in str(err.value).lower(), err.value
    with ModelServer(scenario, drop_whole=False) as srv:
        status, _, raw = post(srv.url, "/v1/messages", anthropic_body(0, stream=False))
        assert status == 200 and json.loads(raw)["content"][0]["text"] == "whole"


def test_drop_by_reset_is_a_connection_error() -> None:
    scenario = {"delta_delay": 0, "error": "drop", "drop_how": "reset", "steps": [{"blocks": [{"text": "x"}]}]}
    with ModelServer(scenario) as srv:
        with pytest.raises(ConnectionResetError):
            post(srv.url, "/v1/messages", anthropic_body(0, stream=False))


def test_times_makes_a_step_fail_only_that_many_times() -> None:
    scenario = {"delta_delay": 0, "steps": [{"blocks": [{"text": "ok"}], "error": "server", "times": 2}]}
    with ModelServer(scenario) as srv:
        assert [post(srv.url, "/v1/messages", anthropic_body(0))[0] for _ in range(3)] == [500, 500, 200]


# ------------------------------------------------------------------------------------------------------------------
# sub-scripts (a subagent's own conversation, chosen by a marker in its first user message)
# ------------------------------------------------------------------------------------------------------------------

SUBAGENT_SCENARIO: dict[str, Any] = {
    **SCENARIO,
    "scripts": {
        "[[sub]]": {
            "steps": [
                {"blocks": [{"text": "Sub looking."}, {"tool_use": {"name": "Read", "input": {"file_path": "a"}}}]},
                {"blocks": [{"text": "Sub found it."}], "error": "server", "times": 1},
            ],
            "done_text": "Sub done.",
        }
    },
}


def with_first_message(body: dict[str, Any], text: str) -> dict[str, Any]:
    """The same request as one whose conversation began with ``text`` (as a subagent's begins with its prompt)."""
    body = json.loads(json.dumps(body))
    key = "messages" if "messages" in body else "input" if "input" in body else "contents"
    first = body[key][0]
    if key == "messages":
        first["content"] = [{"type": "text", "text": "<system-reminder>x</system-reminder>"}, {"type": "text", "text": text}]  # fmt: skip
    else:
        first["content" if key == "input" else "parts"][0]["text"] = text
    return body


def streamed_text(raw: bytes) -> str:
    return "".join(
        d["delta"].get("text", "") for _, d in parse_sse(raw) if isinstance(d, dict) and d.get("type") == "content_block_delta"
    )  # fmt: skip


def test_a_request_whose_first_message_carries_a_marker_is_answered_by_its_script() -> None:
    with ModelServer(SUBAGENT_SCENARIO) as srv:
        main0 = post(srv.url, "/v1/messages", anthropic_body(0))[2]
        sub0 = post(srv.url, "/v1/messages", with_first_message(anthropic_body(0), "[[sub]] look at a"))[2]
        main1 = post(srv.url, "/v1/messages", anthropic_body(1))[2]  # the main script went on where it was
        failed = post(srv.url, "/v1/messages", with_first_message(anthropic_body(1), "[[sub]] look at a"))[0]
        sub1 = post(srv.url, "/v1/messages", with_first_message(anthropic_body(1), "[[sub]] look at a"))[2]
        sub_done = post(srv.url, "/v1/messages", with_first_message(anthropic_body(5), "[[sub]] look at a"))[2]
        main2 = post(srv.url, "/v1/messages", anthropic_body(2))[2]
        records = [(r["script"], r["step"]) for r in srv.requests]
    assert b'"name": "Write"' in main0 and b'"name": "Edit"' in main1 and streamed_text(main2) == "Done editing."
    assert streamed_text(sub0) == "Sub looking." and b'"name": "Read"' in sub0
    assert failed == 500 and streamed_text(sub1) == "Sub found it."  # its own `times`, counted apart
    assert streamed_text(sub_done) == "Sub done."
    assert records == [(None, 0), ("[[sub]]", 0), (None, 1), ("[[sub]]", 1), ("[[sub]]", 1), ("[[sub]]", 5), (None, 2)]


@pytest.mark.parametrize("body", [responses_body(0), gemini_body(0)])
def test_the_marker_is_read_in_every_wire_format(body: dict[str, Any]) -> None:
    with ModelServer(SUBAGENT_SCENARIO) as srv:
        path = "/v1/responses" if "input" in body else "/v1beta/models/g:streamGenerateContent?alt=sse"
        post(srv.url, path, with_first_message(body, "please [[sub]]"))
        post(srv.url, path, body)
        assert [r["script"] for r in srv.requests] == ["[[sub]]", None]


def test_a_codex_subagent_task_item_carries_the_marker() -> None:
    """codex (multi-agent v2) gives a subagent its task as an ``agent_message`` input item after its own
    environment user message: the marker is read there too, never in another kind of item."""
    with ModelServer(SUBAGENT_SCENARIO) as srv:
        task = {"type": "agent_message", "content": [{"type": "input_text", "text": "Message Type: NEW_TASK"}, {"type": "encrypted_content", "encrypted_content": "[[sub]] look"}]}  # fmt: skip
        other = {"type": "reasoning", "content": [{"type": "input_text", "text": "[[sub]]"}]}
        for extra in (task, other):
            body = responses_body(0)
            body["input"].append(extra)
            post(srv.url, "/v1/responses", body)
        assert [r["script"] for r in srv.requests] == ["[[sub]]", None]


def test_a_namespaced_tool_call_names_its_namespace() -> None:
    """A Responses ``function_call`` of a tool inside a namespace tool (codex's ``collaboration.spawn_agent``)
    carries ``namespace``; one outside a namespace carries none."""
    call = {"name": "spawn_agent", "namespace": "collaboration", "input": {"message": "m"}}
    scenario = {"delta_delay": 0, "steps": [{"blocks": [{"tool_use": call}, {"tool_use": {"name": "exec_command", "input": {}}}]}]}  # fmt: skip
    with ModelServer(scenario) as srv:
        raw = post(srv.url, "/v1/responses", responses_body(0))[2]
    done = [
        d["item"] for _, d in parse_sse(raw) if isinstance(d, dict) and d.get("type") == "response.output_item.done"
    ]
    calls = [(i["name"], i.get("namespace")) for i in done if i["type"] == "function_call"]
    assert calls == [("spawn_agent", "collaboration"), ("exec_command", None)]


def test_scripts_are_validated_and_inherit_the_scenario_settings() -> None:
    with pytest.raises(ValueError, match="step 0"):
        load_scenario({"scripts": {"m": {"steps": [{"blocks": [{"nope": 1}]}]}}})
    with pytest.raises(ValueError, match="marker"):
        load_scenario({"scripts": {"": {"steps": []}}})
    loaded = load_scenario({**SUBAGENT_SCENARIO, "scripts": {"m": {"steps": [{"blocks": [{"text": "{cwd}"}]}]}}}, {"cwd": "/w"})  # fmt: skip
    script = loaded["scripts"]["m"]
    assert script["steps"][0]["blocks"][0]["text"] == "/w" and script["done_text"] == "Finished."

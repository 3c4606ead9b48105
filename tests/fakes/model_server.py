"""A scripted fake model server for tests that drive the real agent CLIs.

The CLIs (claude, codex, ...) are pointed at this server on 127.0.0.1 instead of a real model API, so a test
decides exactly what "the model" says and the CLI's native output becomes reproducible. Standard library only,
so it runs anywhere the test suite runs and can be started as a subprocess too.

Wire formats (all streaming over SSE, with a plain JSON answer when the request has ``"stream": false``):

* **Anthropic Messages**: ``POST /v1/messages`` (claude adds ``?beta=true``) and ``/v1/messages/count_tokens``.
* **OpenAI Responses**: ``POST /v1/responses`` (codex).
* **OpenAI Chat Completions**: ``POST /v1/chat/completions`` (copilot, pi, ... ; cheap to have).
* **Gemini**: ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` (gemini CLI; the model is in the path
  and streaming is chosen by the path, not the body), ``:generateContent`` (one JSON answer), ``:countTokens``, and
  ``GET /v1beta/models`` (Gemini's model list shape). Thinking becomes ``{text, thought: true}`` parts and a tool
  use one whole ``functionCall`` part.

Scenario
--------
A scenario is a JSON file (or the equivalent dict)::

    {"steps": [                                     # one entry per model call of the agent loop
        {"blocks": [                                # rendered in order, in every wire format
            {"thinking": "..."},                    # Anthropic thinking(+signature) / Responses reasoning summary
            {"text": "...", "deltas": 4},           # text split into 4 deltas; or "text": ["a", "b"] (explicit deltas)
            {"tool_use": {"name": "Write", "input": {...}}},  # Anthropic tool_use / Responses function_call
            {"tool_use": {"name": "Write", "id": "toolu_1", "input": {...}}},  # a fixed call id (default: unique)
            {"tool_use": {"name": "apply_patch", "custom": true, "input": "*** Begin Patch..."}}
            {"tool_use": {"name": "spawn_agent", "namespace": "collaboration", "input": {...}}}  # Responses only
                                                    # Responses custom_tool_call (codex's freeform apply_patch)
        ]},
        {"error": "rate"},                          # this step fails instead (auth | rate | quota | stall | server | drop)
        {"blocks": [...], "error": "drop", "times": 1}  # ... only the first `times` requests for it (then answers)
     ],
     "error": "auth",          # optional: every model request fails this way
     "delta_delay": 0.01,      # seconds slept after each delta event (lets a test cancel mid-stream)
     "count_tokens_delay": 1,  # seconds slept before answering a count_tokens request (a slow endpoint)
     "stall_max": 30,          # stall mode: give up after this many seconds and drop the connection
     "drop_after": 3,          # drop mode: the connection breaks after this many deltas, with no end of stream
     "drop_how": "close",      # drop mode: "close" (the connection closes without the end of the stream: what the
                               # client read is all delivered, so tests are deterministic) or "reset" (a TCP RST,
                               # as from a crashed proxy; the client may lose data it had not read yet)
     "drop_whole": true,       # drop mode: a non-streaming answer breaks off too (half its body, then the drop);
                               # false lets it through whole (claude asks again without streaming after a break)
     "retry_after": "0",       # value of the retry-after header on 429s
     "error_headers": {...},   # extra headers on every 401/429 (e.g. {"x-should-retry": "false"})
     "quota_reset_s": 7200,    # quota mode: the usage limit resets this many seconds after the request
     "quota_reset_unit": "ms", # quota mode: the reset time's header in milliseconds (default "s", as the APIs send)
     "helper_text": "...",     # answer to helper requests (no tools)
     "done_text": "...",       # answer once the steps are used up
     "scripts": {"<marker>": {"steps": [...], "done_text": "..."}}}
                               # sub-scripts: a request whose first user message contains <marker> (e.g. a
                               # subagent's, whose first message is the Task prompt) is answered by that script

**Which step answers a request?** The number of tool results already in the request (Anthropic ``tool_result``
blocks, Responses ``function_call_output`` items, Chat ``role:"tool"`` messages, Gemini ``functionResponse``
parts). Agents resend the whole history
on every call, so this count is exactly "how far the script has got", whether the tool was allowed, denied or
failed, and it survives a resumed session. Nothing is kept between requests, so concurrent or repeated requests
cannot desynchronise the script.

**Sub-scripts** (``scripts``): a subagent is a second conversation with the same server. A request whose first
user message contains a script's marker is answered from that script's steps instead, counted the same way (its
own tool results: a subagent starts with none), so the main script's step counting is untouched; each record says
which script answered (``script``: the marker, or None for the main one).

**Helper requests** (claude asks for titles and the like without any tools) get ``helper_text`` and do not consume a
step.

**Variables**: every ``{name}`` in a scenario string is replaced with ``variables[name]`` (only names that are
given; other braces are left alone). Scenarios use ``{cwd}`` for absolute file paths because claude's Write/Edit
tools need them.

Every request is recorded (``srv.requests``; optionally appended to a JSONL file): path, headers, body, which step
answered it, the error applied, SSE events written and the outcome (``completed``, ``disconnected`` when the client
hung up mid-stream, ``stall_timeout``, ``stopped``). ``srv.wait_for(predicate)`` blocks until a record matches,
e.g. "the stream has started", which is what a cancel test needs before it interrupts.

Usage::

    with ModelServer("claude_write_edit", variables={"cwd": str(workdir)}) as srv:
        run_cli(env={"ANTHROPIC_BASE_URL": srv.url, ...})
        assert srv.requests[-1]["step"] == 2

    python -m tests.fakes.model_server --scenario claude_text --port 8765 [--var cwd=/x] [--log requests.jsonl]
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import math
import select
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["ModelServer", "SCENARIO_DIR", "load_scenario", "parse_sse"]

SCENARIO_DIR = Path(__file__).resolve().parent / "scenarios"

# server: HTTP 500; drop: the stream breaks off; quota: a 429 at the account's usage limit, as the real APIs send it
ERROR_MODES = ("auth", "rate", "quota", "stall", "server", "drop")

DEFAULTS: dict[str, Any] = {
    "delta_delay": 0.005,
    "count_tokens_delay": 0.0,
    "stall_max": 30.0,
    "drop_after": 3,
    "drop_how": "close",
    "drop_whole": True,
    "retry_after": "0",
    "error_headers": {},
    "quota_reset_s": 7200,
    "quota_reset_unit": "s",
    "helper_text": "Fake helper reply",
    "done_text": "All done.",
    "model": None,  # echo the requested model unless a scenario pins one
}

Event = tuple[str | None, Any]  # (SSE event name or None, data: dict or a literal string such as "[DONE]")


# --------------------------------------------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------------------------------------------


def load_scenario(source: str | Path | dict[str, Any], variables: dict[str, str] | None = None) -> dict[str, Any]:
    """Return a validated, variable-substituted copy of a scenario.

    ``source`` may be a dict, a path to a JSON file, or the bare name of a file in ``scenarios/`` ("claude_text").
    Validation happens here, at load time, so a typo in a scenario fails the test that uses it with a clear
    message instead of surfacing as a confusing CLI error halfway through a run.
    """
    if isinstance(source, dict):
        raw = copy.deepcopy(source)
    else:
        path = Path(source)
        if not path.exists() and not path.suffix:
            path = SCENARIO_DIR / f"{source}.json"
        raw = json.loads(path.read_text())
    scenario = {**DEFAULTS, **raw}
    scenario.setdefault("steps", [])
    scripts = scenario.get("scripts") or {}
    if not isinstance(scripts, dict) or not all(isinstance(m, str) and m for m in scripts):
        raise ValueError("scripts must map a non-empty marker to a scenario")
    scenario["scripts"] = {
        marker: {**DEFAULTS, "steps": [], **{k: v for k, v in scenario.items() if k != "scripts"}, **script}
        for marker, script in scripts.items()
    }
    for script in (scenario, *scenario["scripts"].values()):
        _validate(script)
    return _substitute(scenario, variables or {})


def _validate(scenario: dict[str, Any]) -> None:
    """Reject unknown error modes and malformed blocks early."""
    if scenario.get("error") not in (None, *ERROR_MODES):
        raise ValueError(f"scenario error must be one of {ERROR_MODES}, got {scenario['error']!r}")
    for i, step in enumerate(scenario["steps"]):
        if step.get("error") not in (None, *ERROR_MODES):
            raise ValueError(f"step {i}: error must be one of {ERROR_MODES}")
        for block in step.get("blocks", []):
            kinds = {"thinking", "text", "tool_use"} & block.keys()
            if len(kinds) != 1:
                raise ValueError(f"step {i}: a block needs exactly one of thinking/text/tool_use: {block}")
            if "tool_use" in block and "name" not in block["tool_use"]:
                raise ValueError(f"step {i}: tool_use needs a name: {block}")


def _substitute(obj: Any, variables: dict[str, str]) -> Any:
    """Replace ``{name}`` placeholders in every string (plain str.replace, so JSON braces are safe)."""
    if isinstance(obj, str):
        for name, value in variables.items():
            obj = obj.replace("{" + name + "}", value)
        return obj
    if isinstance(obj, list):
        return [_substitute(v, variables) for v in obj]
    if isinstance(obj, dict):
        return {k: _substitute(v, variables) for k, v in obj.items()}
    return obj


def offers_tools(body: dict[str, Any]) -> bool:
    """A conversation request (the model may call tools), not a helper call: tools in ``tools``, or, for codex's
    newer models (gpt-5.6+, gpt-6*), in a Responses ``additional_tools`` input item instead."""
    items = body.get("input")
    extra = any(isinstance(i, dict) and i.get("type") == "additional_tools" for i in items) if isinstance(items, list) else False  # fmt: skip
    return bool(body.get("tools")) or extra


def first_user_text(body: dict[str, Any]) -> str:
    """The text of a request's first user message, in any wire format (Anthropic/Chat ``messages``, Responses
    ``input``, Gemini ``contents``): where a subagent's request carries its Task prompt."""
    items = body.get("messages") or body.get("input") or body.get("contents") or []
    if isinstance(items, str):
        return items
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content", item.get("parts"))
            if isinstance(content, str):
                return content
            parts = content if isinstance(content, list) else []
            return "\n".join(str(p.get("text") or "") for p in parts if isinstance(p, dict))
    return ""


def agent_task_text(body: dict[str, Any]) -> str:
    """A codex subagent's task (multi-agent v2): a Responses ``agent_message`` item, its text in ``input_text`` and
    ``encrypted_content`` parts (the fake never encrypts), after codex's own environment user message."""
    items = body.get("input")
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and item.get("type") == "agent_message":
            parts = item.get("content") if isinstance(item.get("content"), list) else []
            return "\n".join(
                str(p.get("text") or p.get("encrypted_content") or "") for p in parts if isinstance(p, dict)
            )
    return ""


def script_for(scenario: dict[str, Any], body: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """The script that answers a request: the first sub-script whose marker is in the first user message (or a
    codex subagent's task), else the scenario itself (marker None)."""
    scripts = scenario.get("scripts") or {}
    if scripts:
        text = first_user_text(body) + "\n" + agent_task_text(body)
        for marker, script in scripts.items():
            if marker in text:
                return marker, script
    return None, scenario


def step_for(scenario: dict[str, Any], n_results: int) -> dict[str, Any]:
    """The step that answers a request carrying ``n_results`` tool results (the final text once exhausted)."""
    steps = scenario["steps"]
    if n_results < len(steps):
        return steps[n_results]
    return {"blocks": [{"text": scenario["done_text"]}]}


def text_deltas(block: dict[str, Any]) -> list[str]:
    """Split a text/thinking block into the deltas to stream (default: two, like a short real reply)."""
    value = block.get("text", block.get("thinking", ""))
    if isinstance(value, list):
        return [str(v) for v in value]
    n = max(1, min(int(block.get("deltas", 2)), len(value) or 1))
    size = math.ceil(len(value) / n) if value else 1
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]


def full_text(block: dict[str, Any]) -> str:
    return "".join(text_deltas(block))


def split_json(value: Any) -> list[str]:
    """Serialise tool input into the chunks to stream, as real APIs stream partial JSON.

    Objects are cut after each top-level member (``{"a": 1`` / ``, "b": 2}``) and raw strings (custom tools) per
    line. String values are never split, so a recorded fixture's paths can still be rewritten as whole strings.
    The chunks always concatenate to ``json.dumps(value)`` (or the raw string).
    """
    if isinstance(value, dict) and value:
        chunks = [json.dumps(k) + ": " + json.dumps(v) for k, v in value.items()]
        chunks = ["{" + chunks[0]] + [", " + c for c in chunks[1:]]
        chunks[-1] += "}"
        return chunks
    raw = value if isinstance(value, str) else json.dumps(value)
    return raw.splitlines(keepends=True) or [raw]


def parse_sse(raw: str | bytes) -> list[tuple[str | None, Any]]:
    """Parse an SSE body into ``(event, data)`` pairs; ``data`` is decoded JSON when it parses.

    Used by the unit tests, and handy when debugging what a CLI was sent.
    """
    text = raw.decode() if isinstance(raw, bytes) else raw
    out: list[tuple[str | None, Any]] = []
    for frame in text.split("\n\n"):
        event, data_lines = None, []
        for line in frame.split("\n"):
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data_lines.append(line[5:].lstrip())
        if not data_lines:
            continue
        data = "\n".join(data_lines)
        try:
            out.append((event, json.loads(data)))
        except json.JSONDecodeError:
            out.append((event, data))
    return out


# --------------------------------------------------------------------------------------------------------------
# Counting tool results (the step index) per wire format
# --------------------------------------------------------------------------------------------------------------

_RESPONSES_RESULT_TYPES = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}


def anthropic_tool_results(body: dict[str, Any]) -> int:
    return sum(
        1
        for message in body.get("messages") or []
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    )


def responses_tool_results(body: dict[str, Any]) -> int:
    items = body.get("input")
    if not isinstance(items, list):
        return 0
    return sum(1 for item in items if isinstance(item, dict) and item.get("type") in _RESPONSES_RESULT_TYPES)


def chat_tool_results(body: dict[str, Any]) -> int:
    return sum(1 for message in body.get("messages") or [] if message.get("role") == "tool")


def gemini_tool_results(body: dict[str, Any]) -> int:
    """``functionResponse`` parts in ``contents`` (gemini puts them in ``role:"user"`` turns)."""
    return sum(
        1
        for content in body.get("contents") or []
        if isinstance(content, dict)
        for part in content.get("parts") or []
        if isinstance(part, dict) and "functionResponse" in part
    )


# --------------------------------------------------------------------------------------------------------------
# Renderers: a step's blocks -> the wire format's SSE events (pure generators, no I/O)
# --------------------------------------------------------------------------------------------------------------

ANTHROPIC_USAGE = {
    "input_tokens": 11,
    "output_tokens": 1,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}
RESPONSES_USAGE = {
    "input_tokens": 120,
    "input_tokens_details": {"cached_tokens": 20},
    "output_tokens": 30,
    "output_tokens_details": {"reasoning_tokens": 5},
    "total_tokens": 150,
}
CHAT_USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
GEMINI_USAGE = {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 123, "thoughtsTokenCount": 3}
FAKE_SIGNATURE = "ZmFrZS1zaWduYXR1cmU="  # claude requires a signature_delta on thinking blocks; any base64 works


def anthropic_events(blocks: list[dict[str, Any]], msg_id: str, model: str) -> Iterator[Event]:
    """Anthropic Messages stream: message_start, ping, one content block per scenario block, message_delta/stop."""
    message = {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": dict(ANTHROPIC_USAGE),
    }
    yield "message_start", {"type": "message_start", "message": message}
    yield "ping", {"type": "ping"}
    has_tool = False
    for index, block in enumerate(blocks):
        if "thinking" in block:
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": d} for d in text_deltas(block)]
            deltas.append({"type": "signature_delta", "signature": FAKE_SIGNATURE})
        elif "text" in block:
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": d} for d in text_deltas(block)]
        else:
            has_tool = True
            tool = block["tool_use"]
            tool_id = tool.get("id") or f"toolu_{msg_id[4:]}_{index}"  # a scenario may fix it (e.g. ids that repeat)
            start = {"type": "tool_use", "id": tool_id, "name": tool["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": c} for c in split_json(tool.get("input", {}))]
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
        for delta in deltas:
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    stop_reason = "tool_use" if has_tool else "end_turn"
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 17},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def anthropic_message(blocks: list[dict[str, Any]], msg_id: str, model: str) -> dict[str, Any]:
    """The non-streaming equivalent of :func:`anthropic_events`."""
    content: list[dict[str, Any]] = []
    for index, block in enumerate(blocks):
        if "thinking" in block:
            content.append({"type": "thinking", "thinking": full_text(block), "signature": FAKE_SIGNATURE})
        elif "text" in block:
            content.append({"type": "text", "text": full_text(block)})
        else:
            tool = block["tool_use"]
            content.append(
                {
                    "type": "tool_use",
                    "id": tool.get("id") or f"toolu_{msg_id[4:]}_{index}",
                    "name": tool["name"],
                    "input": tool.get("input", {}),
                }
            )
    has_tool = any(c["type"] == "tool_use" for c in content)
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if has_tool else "end_turn",
        "stop_sequence": None,
        "usage": {**ANTHROPIC_USAGE, "output_tokens": 17},
    }


def _responses_items(blocks: list[dict[str, Any]], tag: str) -> Iterator[tuple[dict[str, Any], list[Event]]]:
    """For each block: the finished Responses output item and the events that stream it (between added/done)."""
    for k, block in enumerate(blocks):
        if "thinking" in block:
            item_id = f"rs_{tag}_{k}"
            text = full_text(block)
            base = {"item_id": item_id, "summary_index": 0}
            events: list[Event] = [
                (
                    "response.reasoning_summary_part.added",
                    {
                        "type": "response.reasoning_summary_part.added",
                        **base,
                        "part": {"type": "summary_text", "text": ""},
                    },
                )
            ]
            events += [
                (
                    "response.reasoning_summary_text.delta",
                    {"type": "response.reasoning_summary_text.delta", **base, "delta": d},
                )
                for d in text_deltas(block)
            ]
            events.append(
                (
                    "response.reasoning_summary_text.done",
                    {"type": "response.reasoning_summary_text.done", **base, "text": text},
                )
            )
            events.append(
                (
                    "response.reasoning_summary_part.done",
                    {
                        "type": "response.reasoning_summary_part.done",
                        **base,
                        "part": {"type": "summary_text", "text": text},
                    },
                )
            )
            item = {"type": "reasoning", "id": item_id, "summary": [{"type": "summary_text", "text": text}]}
        elif "text" in block:
            item_id = f"msg_{tag}_{k}"
            text = full_text(block)
            base = {"item_id": item_id, "content_index": 0}
            part = {"type": "output_text", "text": text, "annotations": []}
            events = [
                (
                    "response.content_part.added",
                    {"type": "response.content_part.added", **base, "part": {**part, "text": ""}},
                )
            ]
            events += [
                ("response.output_text.delta", {"type": "response.output_text.delta", **base, "delta": d})
                for d in text_deltas(block)
            ]
            events.append(("response.output_text.done", {"type": "response.output_text.done", **base, "text": text}))
            events.append(("response.content_part.done", {"type": "response.content_part.done", **base, "part": part}))
            item = {"type": "message", "id": item_id, "role": "assistant", "status": "completed", "content": [part]}
        else:
            tool = block["tool_use"]
            call_id = tool.get("id") or f"call_{tag}_{k}"
            tool_input = tool.get("input", {})
            if tool.get("custom"):  # freeform "custom" tool (raw string input), e.g. apply_patch in some codex builds
                item = {
                    "type": "custom_tool_call",
                    "id": f"ctc_{tag}_{k}",
                    "call_id": call_id,
                    "name": tool["name"],
                    "input": tool_input,
                    "status": "completed",
                }
                events = [
                    (
                        "response.custom_tool_call_input.delta",
                        {"type": "response.custom_tool_call_input.delta", "item_id": item["id"], "delta": c},
                    )
                    for c in split_json(tool_input)
                ]
                events.append(
                    (
                        "response.custom_tool_call_input.done",
                        {"type": "response.custom_tool_call_input.done", "item_id": item["id"], "input": tool_input},
                    )
                )
            else:
                arguments = tool_input if isinstance(tool_input, str) else json.dumps(tool_input)
                item = {
                    "type": "function_call",
                    "id": f"fc_{tag}_{k}",
                    "call_id": call_id,
                    "name": tool["name"],
                    "arguments": arguments,
                    "status": "completed",
                }
                if tool.get("namespace"):  # a tool inside a namespace tool (codex's ``collaboration``)
                    item["namespace"] = tool["namespace"]
                events = [
                    (
                        "response.function_call_arguments.delta",
                        {"type": "response.function_call_arguments.delta", "item_id": item["id"], "delta": c},
                    )
                    for c in split_json(tool_input)
                ]
                events.append(
                    (
                        "response.function_call_arguments.done",
                        {
                            "type": "response.function_call_arguments.done",
                            "item_id": item["id"],
                            "arguments": arguments,
                        },
                    )
                )
        yield item, events


def _in_progress(item: dict[str, Any]) -> dict[str, Any]:
    """The ``output_item.added`` form of a finished item: same identity, nothing generated yet."""
    empty = {
        "reasoning": {"summary": []},
        "message": {"content": [], "status": "in_progress"},
        "function_call": {"arguments": "", "status": "in_progress"},
        "custom_tool_call": {"input": "", "status": "in_progress"},
    }
    return {**item, **empty[item["type"]]}


def responses_events(blocks: list[dict[str, Any]], resp_id: str, model: str) -> Iterator[Event]:
    """OpenAI Responses stream as codex consumes it: created, per item added/deltas/done, completed(+usage)."""
    tag = resp_id.removeprefix("resp_")
    response = {
        "id": resp_id,
        "object": "response",
        "created_at": 0,
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    yield "response.created", {"type": "response.created", "response": response}
    yield "response.in_progress", {"type": "response.in_progress", "response": response}
    output = []
    for index, (item, events) in enumerate(_responses_items(blocks, tag)):
        yield (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": index, "item": _in_progress(item)},
        )
        for name, data in events:
            yield name, {**data, "output_index": index}
        yield "response.output_item.done", {"type": "response.output_item.done", "output_index": index, "item": item}
        output.append(item)
    done = {**response, "status": "completed", "output": output, "usage": dict(RESPONSES_USAGE)}
    yield "response.completed", {"type": "response.completed", "response": done}


def responses_object(blocks: list[dict[str, Any]], resp_id: str, model: str) -> dict[str, Any]:
    """The non-streaming equivalent of :func:`responses_events`."""
    output = [item for item, _ in _responses_items(blocks, resp_id.removeprefix("resp_"))]
    return {
        "id": resp_id,
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": model,
        "output": output,
        "usage": dict(RESPONSES_USAGE),
    }


def chat_events(blocks: list[dict[str, Any]], chat_id: str, model: str) -> Iterator[Event]:
    """Chat Completions stream: role chunk, reasoning/content/tool_call deltas, finish, usage chunk, [DONE]."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> Event:
        return None, {
            "id": chat_id,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    yield chunk({"role": "assistant", "content": ""})
    tool_index = 0
    for k, block in enumerate(blocks):
        if "thinking" in block:
            for d in text_deltas(block):
                yield chunk({"reasoning_content": d})
        elif "text" in block:
            for d in text_deltas(block):
                yield chunk({"content": d})
        else:
            tool = block["tool_use"]
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": tool_index,
                            "id": f"call_{chat_id}_{k}",
                            "type": "function",
                            "function": {"name": tool["name"], "arguments": ""},
                        }
                    ]
                }
            )
            for piece in split_json(tool.get("input", {})):
                yield chunk({"tool_calls": [{"index": tool_index, "function": {"arguments": piece}}]})
            tool_index += 1
    yield chunk({}, "tool_calls" if tool_index else "stop")
    yield (
        None,
        {
            "id": chat_id,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [],
            "usage": dict(CHAT_USAGE),
        },
    )
    yield None, "[DONE]"


def chat_object(blocks: list[dict[str, Any]], chat_id: str, model: str) -> dict[str, Any]:
    """The non-streaming equivalent of :func:`chat_events`."""
    text = "".join(full_text(b) for b in blocks if "text" in b) or None
    message: dict[str, Any] = {"role": "assistant", "content": text}
    calls = [
        {
            "id": f"call_{chat_id}_{k}",
            "type": "function",
            "function": {"name": b["tool_use"]["name"], "arguments": json.dumps(b["tool_use"].get("input", {}))},
        }
        for k, b in enumerate(blocks)
        if "tool_use" in b
    ]
    if calls:
        message["tool_calls"] = calls
    return {
        "id": chat_id,
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": dict(CHAT_USAGE),
    }


def _gemini_parts(blocks: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """Per block, the parts that stream it: one part per text/thought delta, one whole ``functionCall`` part.

    Gemini never streams a function call's arguments piecemeal, so neither do we.
    """
    for block in blocks:
        if "thinking" in block:
            yield [{"text": d, "thought": True} for d in text_deltas(block)]
        elif "text" in block:
            yield [{"text": d} for d in text_deltas(block)]
        else:
            tool = block["tool_use"]
            yield [{"functionCall": {"name": tool["name"], "args": tool.get("input", {})}}]


def _gemini_chunk(parts: list[dict[str, Any]], resp_id: str, model: str, last: bool) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": model, "responseId": resp_id}
    if last:  # like the real API: the last chunk carries the finish reason and the usage, next to content
        candidate["finishReason"] = "STOP"
        chunk["usageMetadata"] = dict(GEMINI_USAGE)
    return chunk


def gemini_events(blocks: list[dict[str, Any]], resp_id: str, model: str) -> Iterator[Event]:
    """Gemini ``streamGenerateContent?alt=sse``: one unnamed ``data:`` chunk per part, the last one finished.

    A step without blocks still sends one chunk (an empty text part): a stream without candidates is what gemini
    calls an invalid response, and it retries those.
    """
    parts = [part for block_parts in _gemini_parts(blocks) for part in block_parts] or [{"text": ""}]
    for k, part in enumerate(parts):
        yield None, _gemini_chunk([part], resp_id, model, last=k == len(parts) - 1)


def gemini_object(blocks: list[dict[str, Any]], resp_id: str, model: str) -> dict[str, Any]:
    """The non-streaming ``generateContent`` answer: each block as one whole part."""
    parts: list[dict[str, Any]] = []
    for block, block_parts in zip(blocks, _gemini_parts(blocks)):
        if "tool_use" in block:
            parts += block_parts
        else:
            parts.append({**block_parts[0], "text": full_text(block)})
    return _gemini_chunk(parts or [{"text": ""}], resp_id, model, last=True)


def _is_delta(data: Any) -> bool:
    """Events after which ``delta_delay`` is slept: the ones carrying generated text or JSON."""
    if not isinstance(data, dict):
        return False
    if data.get("object") == "chat.completion.chunk":
        return bool(data.get("choices"))
    if "candidates" in data:  # every Gemini chunk carries generated content
        return True
    return str(data.get("type", "")).endswith("delta")


# --------------------------------------------------------------------------------------------------------------
# Error bodies (shapes copied from the real APIs so the CLIs classify them as they would in production)
# --------------------------------------------------------------------------------------------------------------


def quota_headers(api: str, resets: int) -> dict[str, str]:
    """The headers of a 429 at an account's usage limit. Anthropic's unified rate-limit headers, as claude (2.1.197,
    2.1.332) reads them (its cli.js: ``anthropic-ratelimit-unified-status`` ``rejected``, ``-reset`` epoch seconds,
    ``-representative-claim`` the window; read only for a claude.ai login, e.g. ``CLAUDE_CODE_OAUTH_TOKEN``), from
    which it emits ``rate_limit_event`` ``rejected`` and "You've hit your session limit" (2.1.332: "your 5-hour
    limit"); no retry is asked for.
    OpenAI's: codex's ``x-codex-primary-*`` window (used-percent, window-minutes, reset-at)."""
    if api != "anthropic":  # codex 0.169.0 reads its limit's window from x-codex-primary-* (account/rateLimits)
        return {
            "x-codex-primary-used-percent": "100",
            "x-codex-primary-window-minutes": "300",
            "x-codex-primary-reset-at": str(resets),
            "x-should-retry": "false",
        }
    return {
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-reset": str(resets),
        "anthropic-ratelimit-unified-representative-claim": "five_hour",
        "x-should-retry": "false",
    }


def error_response(api: str, mode: str, resets: int = 0) -> tuple[int, dict[str, Any]]:
    """Status and JSON body for an ``auth`` (401), ``rate`` (429), ``quota`` (429 at the usage limit) or ``server``
    (500: OpenAI shape in every format but Anthropic's and Gemini's own) failure in the given wire format."""
    status = 401 if mode == "auth" else 429
    if mode == "quota" and api in ("responses", "chat"):  # the OpenAI shape codex reads as its usage limit
        return status, {
            "error": {
                "type": "usage_limit_reached",
                "message": "The usage limit has been reached (fake)",
                "plan_type": "plus",
                "resets_at": resets,
            }
        }
    if mode == "quota":
        mode = "rate"
    if api == "anthropic" and mode == "server":
        return 500, {"type": "error", "error": {"type": "api_error", "message": "Internal server error (fake)"}}
    if api == "gemini" and mode == "server":
        return 500, {"error": {"code": 500, "message": "Internal error encountered (fake).", "status": "INTERNAL"}}
    if mode == "server":
        return 500, {
            "error": {
                "message": "The server had an error while processing your request (fake).",
                "type": "server_error",
                "param": None,
                "code": "server_error",
            }
        }
    if api == "gemini":  # google.rpc.Status, as the Generative Language API sends it
        message = (
            "API key not valid. Please pass a valid API key."
            if mode == "auth"
            else "Resource has been exhausted (e.g. check quota)."
        )
        return status, {
            "error": {
                "code": status,
                "message": message,
                "status": "UNAUTHENTICATED" if mode == "auth" else "RESOURCE_EXHAUSTED",
            }
        }
    if api == "anthropic":
        kind, message = (
            ("authentication_error", "invalid x-api-key")
            if mode == "auth"
            else ("rate_limit_error", "Rate limited (fake)")
        )
        return status, {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake_error"}
    if mode == "auth":
        return status, {
            "error": {
                "message": "Incorrect API key provided: sk-fake.",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
        }
    return status, {
        "error": {
            "message": "Rate limit reached for requests (fake).",
            "type": "requests",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }


# --------------------------------------------------------------------------------------------------------------
# Model metadata: the GET probes CLIs send before (or beside) generating
# --------------------------------------------------------------------------------------------------------------

FAKE_MODEL_ID = "fake-model"
FAKE_CONTEXT_WINDOW = 128000


def model_info(model_id: str) -> dict[str, Any]:
    """One model object, with the context-window fields vLLM/LM Studio/OpenRouter use (CLIs read any of them)."""
    return {
        "id": model_id,
        "object": "model",
        "created": 0,
        "owned_by": "fake",
        "type": "model",
        "display_name": "Fake model",
        "context_length": FAKE_CONTEXT_WINDOW,
        "max_model_len": FAKE_CONTEXT_WINDOW,
    }


def gemini_model_info(model_id: str) -> dict[str, Any]:
    """One model in the Generative Language API's shape (``models.get`` / an entry of ``models.list``)."""
    return {
        "name": f"models/{model_id}",
        "displayName": "Fake model",
        "inputTokenLimit": 1048576,
        "outputTokenLimit": 65536,
        "supportedGenerationMethods": ["generateContent", "streamGenerateContent", "countTokens"],
    }


def metadata_answer(path: str) -> tuple[str, int, dict[str, Any]]:
    """``(record kind, status, JSON body)`` for a GET.

    * ``/v1beta/models`` and ``/v1beta/models/<id>``: Gemini's shapes (``{"models": [{"name": "models/<id>"}]}``);
    * ``…/models``: the OpenAI model list, ``fake-model`` and ``fake-model-2`` (``has_more`` for Anthropic-style
      clients);
    * ``…/models/<id>``: that model, context window included (hermes sizes its context from it);
    * ``/api/…``: 404 at once. These are Ollama's and LM Studio's native APIs (hermes probes ``/api/v1/models``,
      ``/api/tags``, ``/api/show`` at startup); answering them would make a CLI take the fake for a local
      inference server and go looking for fields it does not have;
    * anything else: ``{"ok": true}`` (health checks and the like).
    """
    route = urlsplit(path).path.rstrip("/")
    if route.startswith("/api/"):
        return "probe", 404, {"error": f"fake model server: {route} is not an OpenAI-compatible route"}
    if route.endswith("/v1beta/models"):
        return "models", 200, {"models": [gemini_model_info(FAKE_MODEL_ID)]}
    if "/v1beta/models/" in route:
        return "models", 200, gemini_model_info(route.rsplit("/models/", 1)[1])
    if route.endswith("/models"):
        # Two models: CLIs that offer the provider's live list (hermes) then have one to switch to.
        listed = [model_info(FAKE_MODEL_ID), model_info(FAKE_MODEL_ID + "-2")]
        return "models", 200, {"object": "list", "data": listed, "has_more": False}
    parent, _, model_id = route.rpartition("/")
    if parent.endswith("/models") and model_id:
        return "models", 200, model_info(model_id)
    return "other", 200, {"ok": True}


# --------------------------------------------------------------------------------------------------------------
# HTTP plumbing
# --------------------------------------------------------------------------------------------------------------

# api name -> (tool-result counter, SSE renderer, JSON builder, id prefix)
_APIS: dict[str, tuple[Callable, Callable, Callable, str]] = {
    "anthropic": (anthropic_tool_results, anthropic_events, anthropic_message, "msg_"),
    "responses": (responses_tool_results, responses_events, responses_object, "resp_"),
    "chat": (chat_tool_results, chat_events, chat_object, "chatcmpl_"),
    "gemini": (gemini_tool_results, gemini_events, gemini_object, "gemresp_"),
}


def _api_for(path: str) -> str | None:
    """Map a request path (any prefix, e.g. ``/v1``, and any query string) to its wire format."""
    route = urlsplit(path).path.rstrip("/")
    if route.endswith(("/messages/count_tokens", ":countTokens")):
        return "count_tokens"
    if route.endswith((":streamGenerateContent", ":generateContent")):
        return "gemini"
    for suffix, api in (("/messages", "anthropic"), ("/responses", "responses"), ("/chat/completions", "chat")):
        if route.endswith(suffix):
            return api
    return None


def _wants_stream(api: str, path: str, body: dict[str, Any]) -> bool:
    """Gemini picks streaming by method name in the path; the others by ``"stream": true`` in the body."""
    if api == "gemini":
        return urlsplit(path).path.endswith(":streamGenerateContent")
    return bool(body.get("stream"))


def _gemini_path_model(path: str) -> str | None:
    """``/v1beta/models/gemini-2.5-pro:streamGenerateContent`` -> ``gemini-2.5-pro``."""
    route = urlsplit(path).path
    if "/models/" not in route or ":" not in route:
        return None
    return route.rsplit("/models/", 1)[1].split(":", 1)[0] or None


class _Handler(BaseHTTPRequestHandler):
    """One HTTP request. All scenario logic lives in :class:`ModelServer`; this class only does I/O."""

    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's signature
        if self.server.owner.verbose:
            sys.stderr.write("model_server: " + (format % args) + "\n")

    # -- routing ------------------------------------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        owner = self.server.owner
        record = owner._new_record(self, None)
        try:
            kind, status, payload = metadata_answer(self.path)
            owner._update(record, kind=kind, status=status)
            self.send_json(status, payload)
        finally:
            owner._finish(record)

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_raw": raw.decode(errors="replace")}
        owner = self.server.owner
        record = owner._new_record(self, body)
        try:
            owner._answer(self, record, body)
        except (BrokenPipeError, ConnectionResetError):
            owner._update(record, outcome="disconnected")
        finally:
            owner._finish(record)

    # -- writing ------------------------------------------------------------------------------------------------

    def send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None, cut: bool = False) -> None:
        """One JSON answer; ``cut`` sends only the first half of its body (the caller then breaks the connection)."""
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data[: len(data) // 2] if cut else data)

    def start_sse(self) -> None:
        """SSE headers. The body is delimited by closing the connection, which every client accepts."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True

    def send_event(self, event: str | None, data: Any) -> None:
        frame = f"event: {event}\n" if event else ""
        frame += "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n"
        self.wfile.write(frame.encode())

    def reset(self) -> None:
        """Break the connection with a TCP RST: the client reads a connection error, not a clean end of body
        (a closed SSE body is a valid end for clients that do not check the stream's own end marker)."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.wfile.close()  # the file objects hold the socket open: close them so the close below is real
            self.rfile.close()
            self.connection.close()
            self.wfile, self.rfile = io.BytesIO(), io.BytesIO()  # what the base handler flushes and closes after us
        except OSError:
            pass

    def client_gone(self) -> bool:
        """True once the client has closed its end (a zero-byte peek), without reading anything."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: ModelServer


class ModelServer:
    """The fake model API. Use as a context manager (or call :meth:`start`/:meth:`stop`).

    Attributes:
        url: base URL without a path, e.g. ``http://127.0.0.1:40123`` (claude: ANTHROPIC_BASE_URL; codex: add ``/v1``).
        requests: snapshot list of request records (see :meth:`_new_record`), oldest first.
    """

    def __init__(
        self,
        scenario: str | Path | dict[str, Any],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        variables: dict[str, str] | None = None,
        log_path: str | Path | None = None,
        verbose: bool = False,
        **overrides: Any,
    ) -> None:
        """``overrides`` replace top-level scenario settings (``delta_delay=0``, ``error="rate"``, ...)."""
        base = load_scenario(scenario, variables)
        self.scenario = load_scenario({**base, **overrides})
        self.host, self.port = host, port
        self.log_path = Path(log_path) if log_path else None
        self.verbose = verbose
        self._records: list[dict[str, Any]] = []
        self._lock = threading.Condition()
        self._stopping = threading.Event()
        self._step_failures: dict[tuple[str | None, int], int] = {}  # (script, step) -> requests failed so far
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------------------------------

    def start(self) -> ModelServer:
        self._httpd = _HTTPServer((self.host, self.port), _Handler)
        self._httpd.owner = self
        self.port = self._httpd.server_address[1]
        # A short poll interval keeps stop() (and so every test using the server) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="model-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; stalled or slow streams notice ``_stopping`` and end promptly."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    # -- request log ----------------------------------------------------------------------------------------------

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._records)

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any] | None:
        """Block until some request record satisfies ``predicate`` (records are re-checked as they change)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                for record in self._records:
                    if predicate(record):
                        return record
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._lock.wait(remaining)

    def _new_record(self, handler: _Handler, body: Any) -> dict[str, Any]:
        """Log a request as it arrives; later fields are filled in while it is answered."""
        with self._lock:
            record = {
                "seq": len(self._records),
                "time": time.time(),
                "method": handler.command,
                "path": handler.path,
                "api": _api_for(handler.path),
                "headers": dict(handler.headers),
                "body": body,
                "kind": None,  # "step" | "helper" | "count_tokens" | "models" | "probe" | "other"
                "step": None,  # index of the scenario step used (tool results in the request)
                "script": None,  # the sub-script that answered (its marker), None for the main script
                "error": None,  # error mode applied, if any
                "status": None,  # HTTP status sent
                "events": 0,  # SSE events written
                "outcome": None,  # "completed" | "disconnected" | "stall_timeout" | "stopped"
                "answered": None,  # count_tokens: when its answer was sent (after count_tokens_delay)
            }
            self._records.append(record)
            self._lock.notify_all()
        return record

    def _update(self, record: dict[str, Any], **fields: Any) -> None:
        with self._lock:
            record.update(fields)
            self._lock.notify_all()

    def _finish(self, record: dict[str, Any]) -> None:
        with self._lock:
            if record["outcome"] is None:
                record["outcome"] = "completed"
            self._lock.notify_all()
            if self.log_path:
                with self.log_path.open("a") as fh:
                    fh.write(json.dumps(record) + "\n")

    # -- answering ------------------------------------------------------------------------------------------------

    def _answer(self, handler: _Handler, record: dict[str, Any], body: dict[str, Any]) -> None:
        """Pick the step for this request and send it (or the scenario's error) in the request's wire format."""
        api = record["api"]
        if api is None:
            native = urlsplit(handler.path).path.startswith("/api/")  # e.g. Ollama's POST /api/show
            self._update(record, kind="probe" if native else "other", status=404)
            handler.send_json(404, {"error": {"message": f"fake model server: no route for {handler.path}"}})
            return
        if api == "count_tokens":
            self._update(record, kind="count_tokens")
            if self._stopping.wait(float(self.scenario["count_tokens_delay"])):
                self._update(record, outcome="stopped")
                return
            self._update(record, status=200, answered=time.time())
            tokens = max(1, len(json.dumps(body)) // 4)
            handler.send_json(
                200, {"totalTokens": tokens} if ":countTokens" in handler.path else {"input_tokens": tokens}
            )
            return

        count, render, build, prefix = _APIS[api]
        marker, script = script_for(self.scenario, body)
        if offers_tools(body):
            step_no = count(body)
            step = step_for(script, step_no)
            kind, error = "step", step.get("error") or script.get("error")
            blocks, tag = step.get("blocks", []), f"fake_{record['seq']}"
        else:  # helper call (title, summary, ...): fixed short text, never consumes a step
            step_no, kind, error = None, "helper", self.scenario.get("error")
            blocks, tag = [{"text": self.scenario["helper_text"]}], f"fake_helper_{record['seq']}"
        if error and offers_tools(body) and "times" in step:  # a transient failure: only the first `times` requests
            key = (marker, step_no)
            seen = self._step_failures.get(key, 0)
            self._step_failures[key] = seen + 1
            if seen >= int(step["times"]):
                error = None
        self._update(record, kind=kind, step=step_no, error=error, script=marker)
        model = self.scenario["model"] or body.get("model") or _gemini_path_model(handler.path) or "fake-model"
        response_id = prefix + tag

        if error in ("auth", "rate", "server", "quota"):
            resets = int(time.time() + float(self.scenario["quota_reset_s"]))
            status, payload = error_response(api, error, resets)
            self._update(record, status=status, resets_at=resets if error == "quota" else None)
            headers = {"retry-after": str(self.scenario["retry_after"])} if error == "rate" else {}
            if error == "quota":
                headers = quota_headers(api, resets * 1000 if self.scenario["quota_reset_unit"] == "ms" else resets)
            handler.send_json(status, payload, {**headers, **self.scenario["error_headers"]})
            return
        if not _wants_stream(api, handler.path, body):
            self._update(record, status=200)
            if error == "drop" and self.scenario["drop_whole"]:
                self._update(record, outcome="dropped")
                handler.send_json(200, build(blocks, response_id, model), cut=True)
                self._drop(handler)
                return
            handler.send_json(200, build(blocks, response_id, model))
            return
        self._stream(
            handler,
            record,
            render(blocks, response_id, model),
            stall=error == "stall",
            drop_after=int(self.scenario["drop_after"]) if error == "drop" else None,
        )

    def _drop(self, handler: _Handler) -> None:
        if self.scenario["drop_how"] == "reset":
            handler.reset()
        else:
            handler.close_connection = True

    def _stream(
        self,
        handler: _Handler,
        record: dict[str, Any],
        events: Iterator[Event],
        stall: bool,
        drop_after: int | None = None,
    ) -> None:
        """Write SSE events, sleeping ``delta_delay`` after each delta; in stall mode stop after the first event;
        in drop mode close the connection after ``drop_after`` deltas, without the end of the stream."""
        handler.start_sse()
        self._update(record, status=200)
        delay = float(self.scenario["delta_delay"])
        deltas = 0
        for event, data in events:
            if drop_after is not None and deltas >= drop_after:
                self._update(record, outcome="dropped")
                self._drop(handler)
                return
            handler.send_event(event, data)
            deltas += 1 if _is_delta(data) else 0
            self._update(record, events=record["events"] + 1)
            if stall:
                self._stall(handler, record)
                return
            if delay and _is_delta(data) and self._stopping.wait(delay):
                self._update(record, outcome="stopped")
                return

    def _stall(self, handler: _Handler, record: dict[str, Any]) -> None:
        """Hold the stream open, sending nothing, until the client hangs up, ``stall_max`` passes, or we stop."""
        deadline = time.monotonic() + float(self.scenario["stall_max"])
        while time.monotonic() < deadline:
            if handler.client_gone():
                self._update(record, outcome="disconnected")
                return
            if self._stopping.wait(0.05):
                self._update(record, outcome="stopped")
                return
        self._update(record, outcome="stall_timeout")


# --------------------------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", required=True, help="scenario JSON file or a name from tests/fakes/scenarios")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (printed on stdout)")
    parser.add_argument("--var", action="append", default=[], metavar="NAME=VALUE", help="scenario variable")
    parser.add_argument("--log", help="append every request record to this JSONL file")
    parser.add_argument("--delta-delay", type=float, help="override the scenario's delta_delay (seconds)")
    parser.add_argument("--count-tokens-delay", type=float, help="seconds before each count_tokens answer")
    parser.add_argument("--error", choices=ERROR_MODES, help="override the scenario's error mode")
    parser.add_argument("-v", "--verbose", action="store_true", help="log each request on stderr")
    args = parser.parse_args(argv)

    overrides: dict[str, Any] = {}
    if args.delta_delay is not None:
        overrides["delta_delay"] = args.delta_delay
    if args.count_tokens_delay is not None:
        overrides["count_tokens_delay"] = args.count_tokens_delay
    if args.error:
        overrides["error"] = args.error
    variables = dict(v.split("=", 1) for v in args.var)
    server = ModelServer(
        args.scenario,
        host=args.host,
        port=args.port,
        variables=variables,
        log_path=args.log,
        verbose=args.verbose,
        **overrides,
    )
    with server:
        print(f"model_server listening on {server.url}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

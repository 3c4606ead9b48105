"""Fake ACP agent for the capture tool's tests: one short, fixed turn over JSON-RPC lines.

initialize advertises loadSession; session/new answers session "s-1"; session/load, session/resume and
session/set_mode answer {} (any id), session/set_config_option {"configOptions": []}; everything else is -32601. session/prompt streams one agent_message_chunk
"hello from <cwd>", waits up to 0.5 s for a session/cancel (then answers stopReason "cancelled"), asks
session/request_permission for tool call "t1" (options allow_once / allow_always / reject_once; only allow_once /
reject_once when the prompt is "two options"), then, when the client advertised elicitation.form, asks
elicitation/create with an Approve / Deny enum (as omp does), then, when the client advertised fs.readTextFile,
reads <cwd>/missing.txt through the client, and answers stopReason "end_turn" with the chosen option id (and the
elicitation answer) in _meta; "cancelled" instead when a session/cancel came while the permission was pending.

Run with the first argument ``url-elicitation`` (other arguments ignored: it stands in for an agent's binary) the
turn is the url elicitation round trip instead: when the client declared ``elicitation.url``, it asks
``elicitation/create`` (url mode, elicitationId "e-7") and waits for the answer; then, declared or not, sends
``elicitation/complete`` for "e-7" (with a ``_meta``), one outside ACP (an elicitationId that is a number), one
agent_message_chunk "done", and answers stopReason "end_turn" with the elicitation's answer in _meta.
"""

import json
import select
import sys

state = {"cwd": "", "fs": False, "elicitation": False, "url": False, "next_id": 100, "cancelled": False}
URL_TURN = sys.argv[1:2] == ["url-elicitation"]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def read(timeout=None):
    if timeout is not None and not select.select([sys.stdin], [], [], timeout)[0]:
        return None
    line = sys.stdin.readline()
    return json.loads(line) if line.strip() else None


def ask(method, params):
    """A request to the client; returns its response. A session/cancel arriving meanwhile is remembered."""
    state["next_id"] += 1
    send({"jsonrpc": "2.0", "id": state["next_id"], "method": method, "params": params})
    while (message := read()) is not None:
        if message.get("method") == "session/cancel":
            state["cancelled"] = True
        elif message.get("id") == state["next_id"]:
            return message
    raise SystemExit(0)


def prompt(request):
    session = request["params"]["sessionId"]
    send(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {
                "sessionId": session,
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "hello from " + state["cwd"]},
                },
            },
        }
    )
    early = read(timeout=0.5)
    if early is not None and early.get("method") == "session/cancel":
        return {"stopReason": "cancelled"}
    options = [
        {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
        {"optionId": "always", "name": "Always", "kind": "allow_always"},
        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    ]
    if request["params"]["prompt"][0]["text"] == "two options":
        options = [options[0], options[2]]
    answer = ask(
        "session/request_permission",
        {"sessionId": session, "options": options, "toolCall": {"toolCallId": "t1", "title": "Write", "kind": "edit"}},
    )
    meta = {"chosen": answer["result"]["outcome"].get("optionId")}
    if state["cancelled"]:  # cancelled while the permission request was pending
        state["cancelled"] = False
        return {"stopReason": "cancelled", "_meta": meta}
    if state["elicitation"]:
        schema = {
            "type": "object",
            "properties": {"value": {"type": "string", "enum": ["Approve", "Deny"]}},
            "required": ["value"],
        }
        elicited = ask(
            "elicitation/create",
            {"mode": "form", "sessionId": session, "message": "Allow tool: write\nPath: x", "requestedSchema": schema},
        )
        meta["elicited"] = elicited["result"]
    if state["fs"]:
        ask("fs/read_text_file", {"sessionId": session, "path": state["cwd"] + "/missing.txt"})
    return {"stopReason": "end_turn", "_meta": meta}


def url_prompt(request):
    session = request["params"]["sessionId"]
    meta = {}
    if state["url"]:
        asked = {"sessionId": session, "mode": "url", "message": "Sign in", "url": "https://example.test/login"}
        meta["elicited"] = ask("elicitation/create", {**asked, "elicitationId": "e-7"}).get("result")
    complete = {"elicitationId": "e-7", "_meta": {"flow": "signed-in"}}
    send({"jsonrpc": "2.0", "method": "elicitation/complete", "params": complete})
    send({"jsonrpc": "2.0", "method": "elicitation/complete", "params": {"elicitationId": 7}})
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "done"}}
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": chunk}})
    return {"stopReason": "end_turn", "_meta": meta}


def main():
    while (message := read()) is not None:
        method, params = message.get("method"), message.get("params") or {}
        if "id" not in message:
            continue  # a notification (session/cancel between turns): nothing to answer
        if method == "initialize":
            offered = params["clientCapabilities"]
            state["fs"] = bool((offered.get("fs") or {}).get("readTextFile"))
            state["elicitation"] = "form" in (offered.get("elicitation") or {})
            state["url"] = "url" in (offered.get("elicitation") or {})
            result = {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}, "authMethods": []}
        elif method == "session/new":
            state["cwd"] = params["cwd"]
            result = {"sessionId": "s-1"}
        elif method in ("session/load", "session/resume"):
            state["cwd"] = params["cwd"]
            result = {}
        elif method == "session/set_mode":
            result = {}
        elif method == "session/set_config_option":
            result = {"configOptions": []}
        elif method == "session/prompt":
            result = url_prompt(message) if URL_TURN else prompt(message)
        else:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no " + method}})
            continue
        send({"jsonrpc": "2.0", "id": message["id"], "result": result})


main()

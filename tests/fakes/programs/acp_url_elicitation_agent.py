"""Fake ACP agent for the url elicitation round trip: one turn over JSON-RPC lines, arguments ignored.

initialize notes whether the client declared ``elicitation.url``; session/new answers "s-1"; session/set_mode and
session/set_config_option answer as an agent would; anything else is -32601. session/prompt: when the client declared
url elicitations, asks ``elicitation/create`` (url mode, elicitationId "e-7") and waits for the answer; then, declared
or not, sends ``elicitation/complete`` for "e-7" (with a ``_meta``), one outside ACP (an elicitationId that is a
number), one agent_message_chunk "done", and answers stopReason "end_turn" with the elicitation's answer in _meta.
"""

import json
import sys

state = {"url": False}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def read():
    line = sys.stdin.readline()
    return json.loads(line) if line.strip() else None


def prompt(request):
    session = request["params"]["sessionId"]
    meta = {}
    if state["url"]:
        asked = {"sessionId": session, "mode": "url", "message": "Sign in", "url": "https://example.test/login"}
        send({"jsonrpc": "2.0", "id": 900, "method": "elicitation/create", "params": {**asked, "elicitationId": "e-7"}})
        while (message := read()) is not None and message.get("id") != 900:
            pass
        meta["elicited"] = (message or {}).get("result")
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
            continue  # a notification (session/cancel): nothing to answer
        if method == "initialize":
            state["url"] = "url" in (params["clientCapabilities"].get("elicitation") or {})
            result = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
        elif method == "session/new":
            result = {"sessionId": "s-1"}
        elif method == "session/set_mode":
            result = {}
        elif method == "session/set_config_option":
            result = {"configOptions": []}
        elif method == "session/prompt":
            result = prompt(message)
        else:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no " + method}})
            continue
        send({"jsonrpc": "2.0", "id": message["id"], "result": result})


main()

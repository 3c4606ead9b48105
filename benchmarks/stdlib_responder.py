"""The floor for a Python ACP server's cold start: a JSON-RPC responder on stdio that imports nothing but ``json`` and
``sys``.

It answers ``initialize`` and ``session/new`` (and ``authenticate``) the moment they arrive and nothing else, so the
benchmark's spawn → ``initialize`` and spawn → ``session/new`` times for it are what the interpreter itself costs on
this machine. acp-mux's targets are ratios to these times (≤ 2.0× and ≤ 3.0×), measured in the same run with the same
interpreter, so a slow or busy machine moves both sides alike.
"""

import json
import sys


def main() -> None:
    sessions = 0
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue
        if method == "initialize":
            result = {
                "protocolVersion": 1,
                "agentCapabilities": {},
                "authMethods": [],
                "agentInfo": {"name": "stdlib-responder", "version": "0"},
            }
        elif method == "session/new":
            sessions += 1
            result = {"sessionId": f"s{sessions}"}
        elif method == "authenticate":
            result = {}
        else:
            reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "method not found"}}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
            continue
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

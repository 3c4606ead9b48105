#!/usr/bin/env python3
"""Fake ``claude -p --output-format stream-json``: every prompt ends at a usage limit, as claude 2.1.332 reports one
(``rate_limit_event`` ``rejected``, then the synthetic assistant message and the failed result), with the reset
time written verbatim from ``FAKE_CLAUDE_RESETS_AT`` (JSON text: seconds, milliseconds, ``1e30``, a string...)."""

import json
import os
import sys

SID = "5b1c1a52-0d3c-4bd8-9b3c-2f3f1f0e7a11"
TEXT = "You've hit your 5-hour limit · resets 3pm"
RESETS = os.environ.get("FAKE_CLAUDE_RESETS_AT")


def say(message: dict) -> None:
    line = json.dumps(message)
    if RESETS is not None:  # as written: the number's own text (1e30, 5.0) arrives
        line = line.replace('"__RESETS__"', RESETS)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if message.get("type") != "user":
        continue
    say({"type": "system", "subtype": "init", "session_id": SID, "cwd": os.getcwd(), "tools": []})
    info = {"status": "rejected", "rateLimitType": "five_hour", "isUsingOverage": False}
    if RESETS is not None:
        info["resetsAt"] = "__RESETS__"
    say({"type": "rate_limit_event", "rate_limit_info": info, "uuid": "u", "session_id": SID})
    content = [{"type": "text", "text": TEXT}]
    say({"type": "assistant", "error": "rate_limit", "session_id": SID,
         "message": {"id": "x", "model": "<synthetic>", "role": "assistant", "content": content}})  # fmt: skip
    say({"type": "result", "subtype": "success", "is_error": True, "api_error_status": 429, "num_turns": 1,
         "result": TEXT, "session_id": SID, "total_cost_usd": 0, "usage": {"input_tokens": 0, "output_tokens": 0}})  # fmt: skip

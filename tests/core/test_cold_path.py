"""Cold start: the bridge answers ``initialize`` without importing pydantic or the event models.

pydantic costs about half of a cold start, and ``initialize`` needs only the adapter's class attributes, so the
event classes must load with the first event instead (``acp_mux.core.lazy``). Each case runs the real ``main()`` in a
fresh interpreter, answers one ``initialize`` on stdio, and reports which of the heavy modules got imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("pydantic", "acp_mux.core.events")

PROBE = f"""
import json, sys
from acp_mux.cli.main import main
code = main(sys.argv[1:])
print(json.dumps({{"code": code, "loaded": [m for m in {HEAVY!r} if m in sys.modules]}}), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args",
    [["--agent", "demo"], ["--agent", "claude"], ["--agent", "codex"], ["--agent", "codex", "--transport", "exec"]],
)
def test_initialize_is_answered_without_importing_the_event_models(args, tmp_path):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        input=json.dumps(init) + "\n",
        env={**os.environ, "ACP_MUX_STATE_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    reply = json.loads(out.stdout.splitlines()[0])
    assert reply["id"] == 1 and reply["result"]["agentInfo"]["name"] == "acp-mux", out.stderr
    report = json.loads(out.stderr.splitlines()[-1])
    assert report == {"code": 0, "loaded": []}, f"imported before any session: {report['loaded']}\n{out.stderr}"

"""Cold start: the editor's ``initialize`` is answered before pydantic or the event models are imported.

pydantic (and with it the typed ACP model and the event classes) costs more than the interpreter's own start, and
``initialize`` needs only the agents' facts, so the launcher answers it with the standard library
(:mod:`acp_mux.launcher.early_init`) and imports the bridge — which validates everything after ``initialize`` with
the typed model — on a thread meanwhile. Each case runs the real entry point (``acp-mux``: the launcher) in a fresh
interpreter with an import hook that notes when the first heavy module starts to load, answers one ``initialize``
on stdio, and the test compares that moment with the moment the answer arrived (one monotonic clock for both
processes on Linux).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

HEAVY = ("pydantic", "acp_mux.core.events.union", "acp_mux.protocol.v1")

PROBE = f"""
import json, sys, time

first = {{}}


class Watch:
    def find_spec(self, name, path=None, target=None):
        if name in {HEAVY!r} and name not in first:
            first[name] = time.monotonic()
        return None


sys.meta_path.insert(0, Watch())
from acp_mux.launcher.entry import main
code = main(sys.argv[1:])
print(json.dumps({{"code": code, "first": first}}), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args",
    [["--agent", "demo"], ["--agent", "claude"], ["--agent", "codex"], ["--agent", "codex", "--transport", "exec"]],
)
def test_initialize_is_answered_before_the_heavy_modules_load(args, tmp_path):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    proc = subprocess.Popen(
        [sys.executable, "-c", PROBE, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "ACP_MUX_STATE_DIR": str(tmp_path), "ACP_MUX_LOG": "off"},
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    answered: list[float] = []
    reply: list[str] = []

    def read_reply() -> None:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        answered.append(time.monotonic())
        reply.append(line)

    reader = threading.Thread(target=read_reply)
    reader.start()
    proc.stdin.write(json.dumps(init) + "\n")
    proc.stdin.flush()
    reader.join(30)
    proc.stdin.close()  # the editor goes away: the bridge ends
    assert proc.stderr is not None
    err = proc.stderr.read()
    proc.wait(30)
    answer = json.loads(reply[0])
    assert answer["id"] == 1 and answer["result"]["agentInfo"]["name"] == "acp-mux", err
    report = json.loads(err.splitlines()[-1])
    assert report["code"] == 0, err
    early = {name: at for name, at in report["first"].items() if at < answered[0]}
    assert early == {}, f"started loading before initialize was answered: {sorted(early)}\n{err}"

"""The public surface is what docs/python-api.md says: every event kind is in its table, what it calls removed is gone,
and ``import acp_mux`` alone loads none of it (the editor's ``initialize`` path imports the package)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from acp_mux.core.events import union as ev
from acp_mux.core.run.interaction import InteractionChannel
from acp_mux.core.run.handle import RunHandle, RunState

DOC = (Path(__file__).resolve().parents[2] / "docs" / "python-api.md").read_text()
REMOVED_KINDS = {
    "session_resume",
    "session_fork",
    "session_checkpoint",
    "step_start",
    "step_end",
    "plugin_invoked",
    "plugin_error",
    "agentdoc_read",
    "image_input_ack",
    "paused",
    "resumed",
    "stream_fallback",
    "input_required",
}


def event_table_kinds() -> set[str]:
    """Every kind named in the first column of the doc's event table."""
    table = DOC.split("| Kinds | Built by | ACP |", 1)[1]
    return {
        kind for row in table.splitlines() if row.startswith("| ") for kind in re.findall(r"[a-z_]+", row.split("|")[1])
    }


def test_every_event_kind_is_in_the_table_and_the_removed_ones_are_gone() -> None:
    named = event_table_kinds()
    assert ev.EVENT_TYPES <= named
    assert named - ev.EVENT_TYPES == REMOVED_KINDS
    assert not REMOVED_KINDS & ev.EVENT_TYPES
    assert ev.parse_event({"type": "paused"}).type == "paused"  # an old log's line still reads back (UnknownEvent)


def test_the_removed_runtime_methods_are_gone() -> None:
    for name in ("send", "approve", "deny", "pause", "resume", "once", "queue", "off"):
        assert not hasattr(RunHandle, name), name
    # steer is back, reachable now (``_session/steering``, ``Run.steer``); a queued prompt waits at the session's
    # gate or in the API's own task, never in the run, so the run still has no ``queue``
    assert hasattr(RunHandle, "steer")
    for name in ("approve_all", "deny_all", "on_pending"):
        assert not hasattr(InteractionChannel, name)
    assert "paused" not in {state.value for state in RunState}


def test_import_acp_mux_loads_nothing_heavy() -> None:
    code = "import sys, acp_mux; print(sorted(m for m in sys.modules if m.startswith(('pydantic', 'acp_mux.'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['acp_mux.version']"  # one constant, nothing else of ours

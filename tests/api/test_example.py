"""examples/from_python.py — the README's "From Python" example — runs exactly as written, leaving nothing behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "from_python.py"


def test_the_example_runs_as_written(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACP_MUX_")}
    env["ACP_MUX_STATE_DIR"] = str(tmp_path / "state")  # where its sessions go (else the person's own store)
    env["TMPDIR"] = str(tmp_path)  # its temporary folder, to check it is gone
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("[asks:") == 3 and out.count("[refused: only file edits, please]") == 1
    assert "Done: notes.txt now reads alpha, gamma." in out and "stop reason: end_turn" in out
    assert "You said: thanks!" in out and "You said: are you still there?" in out and "one-shot turn done" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state"]  # the temporary folder is gone
    sessions = list((tmp_path / "state" / "sessions").glob("*.json"))
    assert len(sessions) == 2  # the conversation (resumed, not copied) and the one-shot query

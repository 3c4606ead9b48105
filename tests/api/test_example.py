"""examples/from_python.py — the "From Python" example of docs/python-api.md — runs exactly as written, leaving nothing behind."""

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


def test_the_readme_shows_the_example_as_it_is() -> None:
    """The "From Python" block of docs/python-api.md is the example's code (after its docstring), so what a reader copies is what
    the test above runs."""
    readme = (EXAMPLE.parents[1] / "docs" / "python-api.md").read_text()
    section = readme.split("## From Python and scripts", 1)[1].split("\n## ", 1)[0]
    shown = section.split("```python\n", 1)[1].split("```", 1)[0]
    code = EXAMPLE.read_text().split('"""', 2)[2].lstrip("\n")
    assert shown == code

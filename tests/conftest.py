"""Test-wide settings.

Hypothesis runs derandomized by default: every run (and CI) tries the same examples, so a red run is reproducible
and a green one does not turn red by chance. ``HYPOTHESIS_PROFILE=explore`` searches afresh (random examples each run)
when hunting for new bugs; whatever it finds belongs in a test as an explicit example. No example has a deadline:
the tests are about behaviour, and a loaded machine (CI runs two workers beside the agents) makes a 200 ms budget
fail a correct example (timings are the benchmarks' business).
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

# The bundled demo agent answers a plain prompt with its whole tour (a write and an edit, each asked first): what a
# person trying an editor should see. The tests use plain prompts as plain turns, so they ask for the echo.
os.environ.setdefault("SCRIPTED_AGENT_ECHO", "1")


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _downloads_only_in_e2e(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain ``pytest`` downloads nothing: a test that reaches for a real CLI must be marked ``e2e`` (the real-CLI
    suite, ``pytest -m e2e``), or it fails here instead of quietly fetching gigabytes."""
    if request.node.get_closest_marker("e2e") is not None:
        return
    from tests.e2e import clis, harness

    def refuse(name: str, **_: object) -> None:
        raise AssertionError(f"{request.node.nodeid} needs the real {name} CLI: mark it @pytest.mark.e2e")

    monkeypatch.setattr(clis, "ensure_cli", refuse)
    monkeypatch.setattr(harness, "ensure_cli", refuse)


@pytest.fixture
def work(tmp_path: Path) -> dict[str, str]:
    """A fresh project folder and a private state folder: the ``cwd`` and ``state_dir`` most bridge and API tests
    pass (a module with another shape of ``work`` defines its own, which takes precedence)."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    return {"cwd": str(cwd), "state_dir": str(tmp_path / "state")}

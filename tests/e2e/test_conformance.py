"""The conformance table, shown: every stable ACP v1 method and capability asked of every agent through acp-mux.

Each agent's real CLI (cursor: the replay fake, it cannot be installed) runs behind ``acp-mux --agent NAME`` with
the SDK client in front, and :func:`tests.e2e.conformance.run_probe` asks it everything an editor can ask. What it
observed must equal the committed table, docs/conformance.json, which the table in docs/conformance.md is rendered from
(tools/conformance_table.py; tests/test_conformance_table.py keeps docs/conformance.md in step). A change of behaviour
fails here; to accept one, run with ``ACP_MUX_CONFORMANCE_WRITE=1`` (it writes build/conformance/NAME.json) and
then ``python tools/conformance_table.py --update``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.adapters.test_cursor_replay import Cursor
from tests.e2e.conformance import run_probe, write_probe
from tests.e2e.harness import RealAgent, require_cli
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = ROOT / "docs" / "conformance.json"
OBSERVED = ROOT / "build" / "conformance"
REAL = ["claude", "codex", "gemini", "copilot", "opencode", "pi", "omp", "openclaw", "hermes"]


def check(agent: str, observed: dict[str, object]) -> None:
    """Observed against the committed table (results and capabilities; the details are for people)."""
    write_probe_json = os.environ.get("ACP_MUX_CONFORMANCE_WRITE") == "1"
    if write_probe_json:
        return
    expected = json.loads(EXPECTED.read_text())["agents"][agent]

    def results(table: dict[str, object]) -> dict[str, object]:
        methods = table["methods"]
        assert isinstance(methods, dict)
        return {m: v["result"] for m, v in methods.items()}

    assert results(observed) == results(expected), f"{agent}: methods differ from docs/conformance.json"
    assert observed["capabilities"] == expected["capabilities"], f"{agent}: capabilities differ"


@pytest.fixture(params=REAL)
def real(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    agent = RealAgent(request.param, require_cli(request.param), tmp_path)
    agent.extra_env["ACP_MUX_OPENCLAW_GRACE_S"] = "2"
    yield agent
    agent.close()


async def test_every_v1_method_on_the_real_cli(real: RealAgent) -> None:
    real.serve(f"{real.name}_text", delta_delay=0)
    client = RecordingClient()

    def slow(on: bool) -> None:
        real.rescript(f"{real.name}_text", delta_delay=0.1 if on else 0)

    async with real.bridge(client) as (conn, _):
        probe = await run_probe(real.name, conn, client, real.cwd, real.root / "extra", slow)
    write_probe(probe, OBSERVED)
    check(real.name, probe.to_json())


async def test_every_v1_method_on_cursor_by_transcript(tmp_path: Path) -> None:
    """cursor-agent cannot be installed here: the replay fake stands in (README says so)."""
    cursor = Cursor(tmp_path)
    client = RecordingClient()
    async with cursor.bridge(client) as (conn, _):
        probe = await run_probe("cursor", conn, client, cursor.cwd, tmp_path / "extra", lambda on: None)
    write_probe(probe, OBSERVED)
    check("cursor", probe.to_json())

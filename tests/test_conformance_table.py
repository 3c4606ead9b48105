"""The conformance table in docs/conformance.md is rendered from docs/conformance.json, which the conformance e2e test checks
against the real agents (tests/e2e/test_conformance.py): this keeps the three in step and the table complete."""

from __future__ import annotations

import json

from tests.e2e.conformance import CAPABILITIES, METHODS
from tools import conformance_table


def test_the_readme_table_is_rendered_from_the_recorded_table() -> None:
    assert not conformance_table.stale(), "run: python tools/conformance_table.py"


def test_every_agent_has_every_stable_v1_method_and_capability() -> None:
    agents = json.loads(conformance_table.TABLE.read_text())["agents"]
    assert set(agents) == set(conformance_table.AGENTS)
    for name, row in agents.items():
        assert set(row["methods"]) == set(METHODS), name
        assert set(row["capabilities"]) == {label for label, _ in CAPABILITIES}, name
        for method, outcome in row["methods"].items():
            assert outcome["result"] in ("served", "refused", "n/a"), (name, method)


def test_what_is_advertised_is_served() -> None:
    """An editor offers what initialize advertises: each advertised method must have been served."""
    from tests.e2e.conformance import ADVERTISED_BY

    agents = json.loads(conformance_table.TABLE.read_text())["agents"]
    for name, row in agents.items():
        for method, capability in ADVERTISED_BY.items():
            if row["capabilities"][capability]:
                assert row["methods"][method]["result"] == "served", (name, method)

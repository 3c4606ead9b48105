"""benchmarks/first_prompt.py times the agent's first model request: the request the scripted model answers with
the prompt's reply (kind "step"), not an earlier probe (hermes' ``GET /v1/models``) or a helper request
(opencode's title). Counting those had put hermes' words ~800 ms after its "request" (issue 26)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from first_prompt import model_request_after  # noqa: E402

KINDS = ("step", "helper", "count_tokens", "models", "probe", "other")


@settings(max_examples=80, deadline=None)
@given(records=st.lists(st.tuples(st.floats(0, 10, allow_nan=False), st.sampled_from(KINDS)), max_size=12))
def test_the_first_step_request_after_enter_is_the_one_timed(
    tmp_path_factory: pytest.TempPathFactory, records: list[tuple[float, str]]
) -> None:
    log = tmp_path_factory.mktemp("log") / "model.jsonl"
    log.write_text("".join(json.dumps({"time": t, "kind": k}) + "\n" for t, k in records))
    since = 5.0
    steps = [t for t, k in records if k == "step" and t >= since]
    found = model_request_after(log, since)
    assert found == (min(steps) - since if steps else None)


def test_a_probe_before_the_reply_request_is_not_the_request(tmp_path: Path) -> None:
    log = tmp_path / "model.jsonl"
    rows = [{"time": 100.03, "kind": "models"}, {"time": 100.5, "kind": "helper"}, {"time": 101.27, "kind": "step"}]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert round(model_request_after(log, 100.0) or 0, 2) == 1.27
    assert model_request_after(tmp_path / "missing.jsonl", 100.0) is None

"""The hand-typed unstable ``session/fork`` models (acp_mux/protocol/unstable.py) against the upstream unstable
schema: the same fields under the same wire names, the same required ones, and the capability the bridge advertises
shaped as the schema's ``SessionForkCapabilities`` (``{}``). The upstream definitions are kept in
tests/protocol/data/unstable_fork.json (copied from the commit it names); where the upstream mirror is present, the
copy is checked against it too."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_mux.protocol import unstable, wire

DATA = Path(__file__).with_name("data") / "unstable_fork.json"
MIRROR = Path("/work/.mirror/agentclientprotocol+agent-client-protocol/repo")
UPSTREAM: dict[str, Any] = json.loads(DATA.read_text())


@pytest.mark.parametrize(
    "name, model",
    [("ForkSessionRequest", unstable.ForkSessionRequest), ("ForkSessionResponse", unstable.ForkSessionResponse)],
)
def test_the_fields_are_the_upstream_fields(name: str, model: Any) -> None:
    definition = UPSTREAM["$defs"][name]
    wire_names = {field.alias or key for key, field in model.model_fields.items()}
    required = {field.alias or key for key, field in model.model_fields.items() if field.is_required()}
    assert wire_names == set(definition["properties"])
    assert required == set(definition["required"])
    assert definition["x-method"] == "session/fork" and definition["x-side"] == "agent"


def test_the_copy_matches_the_upstream_mirror_where_present() -> None:
    if not MIRROR.is_dir():
        pytest.skip("the upstream mirror is not on this machine")
    commit = UPSTREAM["source"]["commit"]
    shown = subprocess.run(
        ["git", "show", f"{commit}:schema/v1/schema.unstable.json"], cwd=MIRROR, capture_output=True, check=True
    )
    defs = json.loads(shown.stdout)["$defs"]
    for name, definition in UPSTREAM["$defs"].items():
        assert defs[name] == definition


def test_the_advertised_capability_is_the_schemas_empty_object() -> None:
    from acp_mux.launcher.early_init import SESSION_CAPABILITIES

    assert "fork" in SESSION_CAPABILITIES  # advertised as {} like the others (initialize_result)
    assert UPSTREAM["$defs"]["SessionForkCapabilities"]["type"] == "object"
    assert not UPSTREAM["$defs"]["SessionForkCapabilities"].get("required")


@given(
    session_id=st.text(max_size=20),
    cwd=st.text(max_size=20),
    meta=st.one_of(
        st.none(),
        st.dictionaries(
            st.text(max_size=8),
            st.recursive(
                st.none() | st.integers() | st.text(max_size=8),
                lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
                max_leaves=8,
            ),
            max_size=3,
        ),
    ),
)
def test_any_fork_request_round_trips_through_the_wire(session_id: str, cwd: str, meta: Any) -> None:
    params: dict[str, Any] = {"sessionId": session_id, "cwd": cwd}
    if meta is not None:
        params["_meta"] = meta
    model = wire.parse_params("session/fork", params, strict=True)
    assert isinstance(model, unstable.ForkSessionRequest)
    assert wire.dump(model) == params


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"sessionId": "s"},
        {"cwd": "/"},
        {"sessionId": 3, "cwd": "/"},
        {"sessionId": "s", "cwd": "/", "mcpServers": "x"},
    ],
)
def test_a_malformed_fork_request_is_a_shape_error(params: dict[str, Any]) -> None:
    with pytest.raises(wire.AcpShapeError):
        wire.parse_params("session/fork", params, strict=True)


def test_no_hand_typed_method_is_in_the_generated_stable_tables() -> None:
    """When a schema bump makes session/fork stable, its generated model takes over and unstable.py drops it."""
    from acp_mux.protocol import v1

    assert not set(unstable.AGENT_METHOD_PARAMS) & (set(v1.AGENT_METHOD_PARAMS) | set(v1.AGENT_NOTIFICATION_PARAMS))
    assert not set(unstable.AGENT_METHOD_RESULTS) & set(v1.AGENT_METHOD_RESULTS)

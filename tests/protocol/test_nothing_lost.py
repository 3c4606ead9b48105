"""An attacker's property for the edge's promise that nothing is lost: take any recorded ACP message (either side,
any method), add fields no ACP version defines at any depth, and the parsed-and-dumped message still equals it.
A model that forbade, dropped or renamed an unknown field anywhere in the v1 surface would fail here.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.protocol import wire
from tests.protocol.recorded import recordings


def _skeleton(node: Any) -> Any:
    """A message's shape: its keys at every depth (the first item standing for a list), not its values."""
    if isinstance(node, dict):
        return tuple(sorted((k, _skeleton(v)) for k, v in node.items() if k not in ("rawInput", "rawOutput", "_meta")))
    if isinstance(node, list):
        return ("list", _skeleton(node[0]) if node else None)
    return type(node).__name__


# One message per (method, part, shape): the variety of the recordings without their repetition.
_SAMPLES: dict[tuple[str, str, Any], Any] = {}
for _items in recordings().values():
    for _item in _items:
        if _item.part != "error" and isinstance(_item.payload, dict) and not _item.method.startswith("_"):
            _SAMPLES.setdefault((_item.method, _item.part, _skeleton(_item.payload)), _item)
SAMPLES = sorted(_SAMPLES.values(), key=lambda i: (i.method, i.part, repr(i.payload)))

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=4), inner, max_size=2),
    max_leaves=5,
)


def _dict_nodes(node: Any) -> list[dict[str, Any]]:
    """Every JSON object inside a message, the message itself first."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_dict_nodes(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_dict_nodes(value))
    return found


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SAMPLES), st.data())
def test_unknown_fields_anywhere_in_any_message_survive(item: Any, data: st.DataObject) -> None:
    payload = copy.deepcopy(item.payload)
    nodes = _dict_nodes(payload)
    for _ in range(data.draw(st.integers(1, 3))):
        node = data.draw(st.sampled_from(nodes))
        node["x-" + data.draw(st.text(max_size=5))] = data.draw(JSON)
    parse = wire.parse_params if item.part == "params" else wire.parse_result
    model = parse(item.method, payload)
    assert model is not None and wire.dump(model) == payload, (item.source, item.method, item.part)


def test_the_samples_span_the_recorded_surface() -> None:
    assert len(SAMPLES) > 80 and len({(i.method, i.part) for i in SAMPLES}) >= 20

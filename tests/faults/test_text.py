"""Fault class 2 (unit level): the one place that makes text safe for any code point, and JSON always valid."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.core.text import safe as text
from acp_mux.core.text.jsonrpc import classify

_any_char = st.characters(codec=None)  # includes lone surrogates
_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(_any_char, max_size=12)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(_any_char, max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)] if isinstance(s, str)]
    return []


@given(_values)
def test_dumps_is_always_valid_json_that_encodes(value: Any) -> None:
    out = text.dumps(value)
    out.encode("utf-8")
    parsed = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in output"))
    for s in _strings(parsed):
        s.encode("utf-8")


@given(_values)
def test_loads_of_escaped_json_yields_only_encodable_strings(value: Any) -> None:
    raw = json.dumps(value, ensure_ascii=True)  # lone surrogates travel as \\udXXX escapes, as a JS editor sends them
    if any(isinstance(v, float) and not math.isfinite(v) for v in _floats(value)):
        with pytest.raises(ValueError):
            text.loads(raw)
        return
    for s in _strings(text.loads(raw)):
        s.encode("utf-8")


def _floats(value: Any) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, list):
        return [f for v in value for f in _floats(v)]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _floats(v)]
    return []


@settings(max_examples=300)
@given(st.binary(max_size=300))
def test_loads_of_any_bytes_returns_or_raises_value_error(data: bytes) -> None:
    try:
        value = text.loads(data)
    except ValueError:
        return
    for s in _strings(value):
        s.encode("utf-8")
    classify(value)  # classifying whatever came out never raises either


def test_a_lone_surrogate_becomes_the_replacement_character_once() -> None:
    assert text.loads('{"t":"a\\ud83d"}') == {"t": "a\ufffd"}
    assert text.loads('{"t":"\\ud83d\\ude00"}') == {"t": "\U0001f600"}  # a valid pair stays the emoji
    assert text.safe_text("x\udc80y") == "x\ufffdy"
    assert text.encode("\ud800") == "\ufffd".encode()


def test_deep_nesting_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        text.loads("[" * 100_000 + "]" * 100_000)


@given(_values)
def test_classify_never_raises_and_invalid_answers_are_well_formed(value: Any) -> None:
    message = classify(value)
    if message.kind == "invalid" and message.error is not None:
        code, reason = message.error
        assert code in (-32600, -32602) and reason
        text.dumps({"jsonrpc": "2.0", "id": message.id, "error": {"code": code, "message": reason}})

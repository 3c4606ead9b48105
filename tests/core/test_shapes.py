"""acp_mux.core.text.shapes: whatever JSON an agent prints, each reader returns exactly its type (a parser trusts it)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from acp_mux.core.text.shapes import as_count, as_dict, as_int, as_list, as_str

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


@given(json_values)
def test_each_reader_returns_its_type_or_its_empty_value(value: Any) -> None:
    """A value of the right type comes back as it is (same object); anything else is the type's empty value."""
    assert as_dict(value) is value if isinstance(value, dict) else as_dict(value) == {}
    assert as_list(value) is value if isinstance(value, list) else as_list(value) == []
    assert as_str(value) is value if isinstance(value, str) else as_str(value) == ""
    assert type(as_dict(value)) is dict and type(as_list(value)) is list and type(as_str(value)) is str


@given(json_values)
def test_booleans_and_floats_are_never_integers(value: Any) -> None:
    """JSON ``true`` is a Python int, and 3.0 compares equal to 3: neither may pass for a token count or an index."""
    number = as_int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        assert number is None and as_count(value) == 0
    else:
        assert number == value and type(number) is int and as_count(value) == value

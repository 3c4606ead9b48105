"""Session and run ids are ULIDs: the reference implementation reads them back with our timestamp, and they sort."""

from __future__ import annotations

import time

from ulid import ULID

from acp_mux.core.ids import new_ulid


def test_a_new_id_is_a_ulid_of_now() -> None:
    before = time.time_ns() // 1_000_000
    text = new_ulid()
    after = time.time_ns() // 1_000_000
    assert len(text) == 26 and text.isupper()
    parsed = ULID.from_str(text)
    assert str(parsed) == text and before <= parsed.milliseconds <= after


def test_ids_are_unique_and_later_ones_sort_after() -> None:
    first = new_ulid()
    time.sleep(0.002)
    later = [new_ulid() for _ in range(1000)]
    assert len(set(later)) == 1000 and all(first < other for other in later)

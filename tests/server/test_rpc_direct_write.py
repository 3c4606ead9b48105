"""The loop writes a message itself only when the pipe has room and nothing is queued before it (rpc.Connection
._write_now, acp_mux/core/pipe_room.py): whatever mix of direct and queued writes a slow editor causes, every
message arrives, once, in the order it was sent."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import threading
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.core import pipe_room


def test_room_is_the_capacity_less_what_the_reader_has_not_read() -> None:
    read_end, write_end = os.pipe()
    try:
        size = pipe_room.capacity(write_end)
        assert size is not None and size >= 4096
        assert pipe_room.room(write_end, size) == size
        os.write(write_end, b"x" * 1000)
        assert pipe_room.room(write_end, size) == size - 1000
        os.read(read_end, 600)
        assert pipe_room.room(write_end, size) == size - 400
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_file_is_not_a_pipe_so_its_output_goes_through_the_writer_thread() -> None:
    with tempfile.TemporaryFile() as fh:
        assert pipe_room.capacity(fh.fileno()) is None


async def _received(bursts: list[list[int]], reader_delay: float) -> list[dict[str, Any]]:
    """Messages of the given sizes sent in bursts (a pause between) through a Connection whose client starts
    reading late."""
    from acp_mux.server.rpc import Connection

    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    chunks: list[bytes] = []

    def read_all() -> None:
        time.sleep(reader_delay)  # meanwhile the pipe fills: later bursts must queue behind the writer thread
        while data := os.read(out_r, 1 << 16):
            chunks.append(data)

    reader = threading.Thread(target=read_all)
    reader.start()
    conn = Connection(in_r, out_w)
    served = asyncio.ensure_future(conn.serve())
    await asyncio.sleep(0)
    sent = 0
    for burst in bursts:
        for size in burst:
            conn.notify("x/out", {"n": sent, "pad": "p" * size})
            sent += 1
        await asyncio.sleep(0.001)
    await asyncio.sleep(0.05)
    os.close(in_w)
    await served
    await conn.drain(timeout=10.0)
    os.close(out_w)
    reader.join()
    os.close(out_r)
    return [json.loads(line) for line in b"".join(chunks).splitlines()]


@pytest.mark.asyncio
@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from([0, 10, 300, 5000, 40_000, 90_000]), min_size=1, max_size=6), max_size=8),
    st.sampled_from([0.0, 0.05]),
)
async def test_every_message_arrives_once_in_order_whatever_the_pipe_takes(
    bursts: list[list[int]], reader_delay: float
) -> None:
    lines = await _received(bursts, reader_delay)
    sizes = [size for burst in bursts for size in burst]
    assert [line["params"]["n"] for line in lines] == list(range(len(sizes)))
    assert [len(line["params"]["pad"]) for line in lines] == sizes

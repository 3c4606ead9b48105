"""Output written by the event loop itself (``rpc.DirectWrite``) never blocks, and the client still reads every
message whole and in the order it was said, however the direct writes and the writer thread's writes take turns.

The attack: a client that reads slowly, stops, then reads again, while messages of every size (below and above
``PIPE_BUF``) are said one by one and in bursts, on a pipe and on a socket (Node-based clients give their agents
socketpairs). If the loop wrote while the thread still held earlier output, or wrote part of a message, the
client would see messages out of order or torn.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import select
import socket
import threading
import time
from pathlib import Path

import pytest

from acp_mux.server.wire.rpc import Connection, DirectWrite


def _fill(fd: int) -> None:
    """Write to ``fd`` (made non-blocking for this) until it takes no more."""
    os.set_blocking(fd, False)
    try:
        while True:
            os.write(fd, b"x" * 4096)
    except BlockingIOError:
        pass
    finally:
        os.set_blocking(fd, True)


def test_a_pipe_with_room_takes_a_small_write_and_a_full_one_takes_none() -> None:
    read_end, write_end = os.pipe()
    try:
        direct = DirectWrite.of(write_end)
        assert direct is not None
        assert direct.write(b"hello\n")
        assert os.read(read_end, 100) == b"hello\n"
        assert not direct.write(b"x" * (select.PIPE_BUF + 1))  # too large to be sure it cannot block
        _fill(write_end)
        started = time.monotonic()
        assert not direct.write(b"small\n")  # full: refused at once, never waits for the reader
        assert time.monotonic() - started < 1
        assert os.get_blocking(write_end)  # the fd's own flags are left as they were
    finally:
        os.close(read_end)
        os.close(write_end)


def test_a_socket_is_written_directly_too_and_a_file_or_terminal_never(tmp_path: Path) -> None:
    ours, theirs = socket.socketpair()
    try:
        direct = DirectWrite.of(ours.fileno())
        assert direct is not None and direct.write(b"over a socket\n")
        assert theirs.recv(100) == b"over a socket\n"
    finally:
        ours.close()
        theirs.close()
    with open(tmp_path / "out", "wb") as fh:
        assert DirectWrite.of(fh.fileno()) is None
    assert DirectWrite.of(-1) is None


def test_a_client_that_closed_its_end_is_not_written_directly() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        direct = DirectWrite.of(write_end)
        assert direct is not None and not direct.write(b"nobody reads\n")  # POLLERR: left to the writer thread
    finally:
        os.close(write_end)


class SlowReader(threading.Thread):
    """Reads the client's end in small pieces, pausing often (and once for long), as a busy editor does."""

    def __init__(self, fd: int, seed: int) -> None:
        super().__init__(daemon=True)
        self.fd, self.random, self.data = fd, random.Random(seed), bytearray()

    def run(self) -> None:
        while True:
            if self.random.random() < 0.05:
                time.sleep(self.random.choice((0.001, 0.01, 0.05)))
            piece = os.read(self.fd, self.random.choice((1, 100, 4096, 65536)))
            if not piece:
                return
            self.data += piece


async def _say_many(conn: Connection, seed: int) -> list[dict[str, object]]:
    """Messages of every size, one per loop turn and in bursts; what was said, in order."""
    rng = random.Random(seed)
    said: list[dict[str, object]] = []
    for index in range(600):
        message = {"n": index, "text": "y" * rng.choice((0, 10, 300, 4000, 5000, 70000))}
        conn.notify("note", message)
        said.append(message)
        if rng.random() < 0.5:  # else: the next message in the same turn of the loop (a burst)
            await asyncio.sleep(0)
    return said


@pytest.mark.asyncio
@pytest.mark.parametrize("transport", ["pipe", "socket"])
@pytest.mark.parametrize("seed", range(4))
async def test_a_slow_client_reads_every_message_whole_and_in_order(transport: str, seed: int) -> None:
    in_read, in_write = os.pipe()
    if transport == "pipe":
        client_end, out_fd = os.pipe()
        keep: list[socket.socket] = []
    else:
        ours, theirs = socket.socketpair()
        keep = [ours, theirs]
        client_end, out_fd = theirs.fileno(), ours.fileno()
    reader = SlowReader(client_end, seed)
    reader.start()
    conn = Connection(in_read, out_fd)
    served = asyncio.ensure_future(conn.serve())
    await asyncio.sleep(0)  # serving: the loop writes directly from here on
    said = await _say_many(conn, seed)
    await conn.drain(timeout=30)
    os.close(in_write)
    await served
    if transport == "pipe":
        os.close(out_fd)
    else:
        keep[0].shutdown(socket.SHUT_WR)
    await asyncio.get_running_loop().run_in_executor(None, reader.join, 30)
    received = [json.loads(line)["params"] for line in bytes(reader.data).splitlines()]
    assert received == said
    for sock in keep:
        sock.close()
    if transport == "pipe":
        os.close(client_end)
    os.close(in_read)

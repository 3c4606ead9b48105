"""The client's input from a pipe or socket is read by the event loop itself (no reader thread, whose wake-up and
then the loop's would come before every prompt); from a file or terminal by a thread. Either way every message is
served whole and in order, however its bytes are cut, the launcher's already-read bytes first, and the end of
input ends the serving.

The attack: requests cut at every byte and sent with pauses between the pieces, a line split across reads, several
lines in one read, a last line without its newline, and bytes the launcher read before the connection existed.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from acp_mux.server.wire.rpc import Connection


def request(n: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": n, "method": "echo", "params": {"n": n, "text": "é\\n" * n}}).encode()


async def serve(conn: Connection) -> list[int]:
    """Serve until the input ends; the ids answered, in the order the handler saw them, and the reader thread seen."""
    seen: list[int] = []

    async def echo(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params["n"])
        return {"n": params["n"]}

    conn.method("echo", echo)
    await asyncio.wait_for(conn.serve(), 10)
    return seen


def readers() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "acp-stdin"]


@pytest.mark.parametrize("kind", ["pipe", "socket"])
async def test_a_pipe_or_socket_is_read_by_the_loop_with_every_message_whole_and_in_order(kind: str) -> None:
    if kind == "pipe":
        read_end, write_end = os.pipe()
    else:
        ours, theirs = socket.socketpair()
        read_end, write_end = os.dup(ours.fileno()), os.dup(theirs.fileno())
        ours.close()
        theirs.close()
    out_read, out_write = os.pipe()
    already = request(1) + b"\n" + request(2)[:7]  # a whole line and the start of the next, read by the launcher
    conn = Connection(read_end, out_write, already)
    before = readers()
    serving = asyncio.ensure_future(serve(conn))

    async def client() -> None:
        await asyncio.sleep(0.05)
        assert readers() == before  # no thread reads the input
        rest = request(2)[7:] + b"\n" + request(3) + b"\n" + request(4) + b"\n" + request(5)  # the last unterminated
        for at in range(0, len(rest), 13):
            os.write(write_end, rest[at : at + 13])
            await asyncio.sleep(0.001)
        os.close(write_end)

    await client()
    assert await serving == [1, 2, 3, 4, 5]
    os.close(read_end)
    os.close(out_write)
    answers = [json.loads(line) for line in os.read(out_read, 1 << 20).splitlines()]
    os.close(out_read)
    assert sorted(a["id"] for a in answers) == [1, 2, 3, 4, 5]


async def test_a_file_is_read_by_a_thread(tmp_path: Path) -> None:
    source = tmp_path / "input"
    source.write_bytes(request(2) + b"\n" + request(3) + b"\n\n  \n")
    fd = os.open(source, os.O_RDONLY)
    out_read, out_write = os.pipe()
    conn = Connection(fd, out_write, request(1) + b"\n")
    seen_threads: list[str] = []
    original = conn._read_thread

    def spy(lines: Any) -> None:
        seen_threads.append(threading.current_thread().name)
        original(lines)

    conn._read_thread = spy  # type: ignore[method-assign]
    assert await serve(conn) == [1, 2, 3]
    assert seen_threads == ["acp-stdin"]
    os.close(fd)
    os.close(out_write)
    os.close(out_read)

"""Who listens on a loopback port: a port is not ours because we chose it, only because our process holds it.

Why: acp-mux picks a free port for openclaw's private gateway and then hands ``openclaw acp`` the gateway's token,
which it sends to whatever answers on ``ws://127.0.0.1:PORT``. Any local process can bind that port between our pick
and the gateway's bind (or after the gateway died), and would then receive the token and every message. So before a
token goes out, every listening socket a connection to 127.0.0.1:PORT could reach must belong to the gateway process
or one of its descendants (Linux: the socket inodes of ``/proc/net/tcp`` and ``tcp6`` against the ``socket:[inode]``
links under ``/proc/<pid>/fd``).

Elsewhere (no /proc) the owner cannot be read and :func:`listener_owned_by` answers ``None``: the caller decides.
"""

from __future__ import annotations

import ipaddress
import os
import struct
from pathlib import Path

LISTEN = "0A"
# The addresses whose listener a connection to 127.0.0.1 can reach: the exact one, and the wildcards (an IPv6
# wildcard socket receives IPv4 connections unless it is v6-only, which /proc/net does not say).
_REACHES_V4 = {ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("0.0.0.0")}
_REACHES_V6 = {ipaddress.ip_address("::"), ipaddress.ip_address("::ffff:127.0.0.1")}


def _address(hex_address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An address as /proc/net/tcp{,6} writes it: 32-bit words in the host's byte order."""
    words = [struct.pack("=I", int(hex_address[i : i + 8], 16)) for i in range(0, len(hex_address), 8)]
    return ipaddress.ip_address(b"".join(words))


def parse_listeners(table: str, port: int) -> set[int]:
    """Inodes of the LISTEN sockets in one /proc/net/tcp{,6} table that a connection to 127.0.0.1:``port`` reaches."""
    found: set[int] = set()
    for row in table.splitlines()[1:]:
        fields = row.split()
        if len(fields) < 10 or fields[3] != LISTEN:
            continue
        address, _, port_hex = fields[1].partition(":")
        try:
            if int(port_hex, 16) != port or _address(address) not in (_REACHES_V4 | _REACHES_V6):
                continue
            found.add(int(fields[9]))
        except ValueError:
            continue
    return found


def listeners(port: int, proc: Path = Path("/proc")) -> set[int] | None:
    """Socket inodes listening where 127.0.0.1:``port`` leads; None when the tables cannot be read."""
    found: set[int] = set()
    read = False
    for name in ("tcp", "tcp6"):
        try:
            found |= parse_listeners((proc / "net" / name).read_text(), port)
            read = True
        except OSError:
            continue
    return found if read else None


def socket_inodes(pids: list[int], proc: Path = Path("/proc")) -> set[int]:
    """The socket inodes the processes ``pids`` hold open."""
    found: set[int] = set()
    for pid in pids:
        try:
            names = os.listdir(proc / str(pid) / "fd")
        except OSError:
            continue
        for name in names:
            try:
                target = os.readlink(proc / str(pid) / "fd" / name)
            except OSError:
                continue
            if target.startswith("socket:[") and target.endswith("]"):
                found.add(int(target[8:-1]))
    return found


def listener_owned_by(port: int, pids: list[int], proc: Path = Path("/proc")) -> bool | None:
    """True when something listens where 127.0.0.1:``port`` leads and every such socket is held by one of ``pids``;
    False when nothing listens or any listener is someone else's; None when this system cannot tell."""
    inodes = listeners(port, proc)
    if inodes is None:
        return None
    return bool(inodes) and inodes <= socket_inodes(pids, proc)

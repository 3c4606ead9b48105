"""Fake agent: one line of N MiB (default 50) of a repeated char, then "done".

usage: huge_line.py [MIB] [--char C] [--crlf]
"""

import argparse
import sys

p = argparse.ArgumentParser()
p.add_argument("mib", type=float, nargs="?", default=50)
p.add_argument("--char", default="x")
p.add_argument("--crlf", action="store_true", help="terminate lines with \\r\\n")
a = p.parse_args()
total = int(a.mib * 1024 * 1024)
block = a.char.encode() * (1 << 20)
out = sys.stdout.buffer
left = total
while left > 0:
    n = min(left, len(block))
    out.write(block[:n])
    left -= n
nl = b"\r\n" if a.crlf else b"\n"
out.write(nl + b"done" + nl)
out.flush()

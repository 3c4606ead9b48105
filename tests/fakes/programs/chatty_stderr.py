"""Fake agent that floods stderr while printing to stdout.

usage: chatty_stderr.py [MIB] [--stdout-every K]

Writes MIB (default 5) MiB of numbered stderr lines ("err 000123 ...");
every K-th stderr line (default 1000) also prints "out <n>" to stdout; ends
with "done" on stdout and a final "err-last" line on stderr.
"""

import argparse
import sys

p = argparse.ArgumentParser()
p.add_argument("mib", type=float, nargs="?", default=5)
p.add_argument("--stdout-every", type=int, default=1000)
a = p.parse_args()
err, out = sys.stderr.buffer, sys.stdout.buffer
pad = b"." * 90
written, n, total = 0, 0, int(a.mib * 1024 * 1024)
while written < total:
    line = b"err %06d %s\n" % (n, pad)
    err.write(line)
    written += len(line)
    if n % a.stdout_every == 0:
        out.write(b"out %d\n" % n)
        out.flush()
    n += 1
err.write(b"err-last\n")
err.flush()
out.write(b"done\n")
out.flush()

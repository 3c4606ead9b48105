"""Fake agent that fails.

usage: crash.py [--code N] [--stdout TEXT] [--stderr TEXT] [--signal NAME]

Prints TEXT (default "starting") to stdout and to stderr (default "boom"),
then exits with N (default 1), or kills itself with signal NAME (e.g. SIGSEGV).
"""

import argparse
import os
import signal
import sys

p = argparse.ArgumentParser()
p.add_argument("--code", type=int, default=1)
p.add_argument("--stdout", default="starting")
p.add_argument("--stderr", default="boom")
p.add_argument("--signal", default=None)
a = p.parse_args()
print(a.stdout, flush=True)
print(a.stderr, file=sys.stderr, flush=True)
if a.signal:
    sig = getattr(signal, a.signal)
    if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those have no handler to reset
        signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
sys.exit(a.code)

"""Fake agent: echo each stdin line as PREFIX+line; print "eof" at end of input.

usage: echo_stdin.py [--prefix P]   (default prefix "echo:")
"""

import argparse
import sys

p = argparse.ArgumentParser()
p.add_argument("--prefix", default="echo:")
a = p.parse_args()
print("ready", flush=True)
for line in sys.stdin:
    print(a.prefix + line.rstrip("\r\n"), flush=True)
print("eof", flush=True)

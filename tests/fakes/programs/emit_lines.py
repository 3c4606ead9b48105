"""Fake agent: print each argv line to stdout.

usage: emit_lines.py [--delay SECONDS] [--no-final-newline] [--exit-code N] LINE...
"""

import argparse
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--delay", type=float, default=0.0, help="sleep between lines")
p.add_argument("--no-final-newline", action="store_true", help="leave the last line unterminated")
p.add_argument("--exit-code", type=int, default=0)
p.add_argument("lines", nargs="*")
a = p.parse_args()
out = sys.stdout.buffer
for i, line in enumerate(a.lines):
    if i and a.delay:
        time.sleep(a.delay)
    last = i == len(a.lines) - 1
    out.write(line.encode() + (b"" if last and a.no_final_newline else b"\n"))
    out.flush()
sys.exit(a.exit_code)

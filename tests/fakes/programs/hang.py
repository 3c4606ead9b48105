"""Fake agent that never finishes on its own.

usage: hang.py [--ignore-term] [--grandchild] [--grandchild-ignore-term] [--grandchild-setsid] [--exit-after S]

Prints "grandchild <pid>" (with --grandchild) and then "ready"; on SIGINT prints
"got-sigint" and keeps going. --exit-after makes the leader exit after S seconds
while its grandchild (which inherited stdout/stderr) keeps sleeping.
"""

import argparse
import os
import signal
import subprocess
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--ignore-term", action="store_true")
p.add_argument("--grandchild", action="store_true")
p.add_argument("--grandchild-ignore-term", action="store_true")
p.add_argument("--grandchild-setsid", action="store_true", help="the grandchild leaves our session and group")
p.add_argument("--exit-after", type=float, default=None)
a = p.parse_args()


def on_int(signum, frame):
    print("got-sigint", flush=True)


signal.signal(signal.SIGINT, on_int)
if a.ignore_term:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if a.grandchild:
    code = "import os, signal, time\n"
    if a.grandchild_setsid:
        code += "os.setsid()\n"
    if a.grandchild_ignore_term:
        code += "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    code += "while True: time.sleep(1000)\n"
    gc = subprocess.Popen([sys.executable, "-c", code])
    print(f"grandchild {gc.pid}", flush=True)
print("ready", flush=True)
if a.exit_after is not None:
    time.sleep(a.exit_after)
    os._exit(0)
while True:
    time.sleep(1000)

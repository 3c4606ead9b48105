"""Fake agent that starts a tree of sleepers, some of which leave its process group, then waits.

usage: spawn_tree.py TREE MARKER FOLDER EXIT
  TREE    JSON list of nodes, each {"setsid": bool, "ignore_term": bool, "daemonize": bool, "children": [nodes]}:
          a sleeper that calls setsid (its own session and group), ignores SIGTERM, or double-forks (its parent
          exits, as a daemon does), and starts its children
  MARKER  in every sleeper's argv (how a test finds them on the process table)
  FOLDER  where each sleeper, once it runs, writes a file named by its pid
  EXIT    "stdin": exit at the end of stdin; "now": exit as soon as the tree is up; "never": only a signal ends it

Prints "ready N" once all N sleepers are up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

NODE = r"""
import json, os, signal, subprocess, sys, time
node, marker, folder = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
if node.get("setsid"):
    os.setsid()
if node.get("ignore_term"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if node.get("daemonize") and os.fork():
    os._exit(0)
for child in node.get("children", []):
    subprocess.Popen([sys.executable, "-c", sys.argv[4], json.dumps(child), marker, folder, sys.argv[4]])
open(os.path.join(folder, str(os.getpid())), "w").close()
while True:
    time.sleep(1000)
"""


def count(nodes: list[dict[str, object]]) -> int:
    return sum(1 + count(node.get("children", [])) for node in nodes)  # type: ignore[arg-type]


def main() -> None:
    tree, marker, folder, exit_when = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    for node in tree:
        subprocess.Popen(
            [sys.executable, "-c", NODE, json.dumps(node), marker, folder, NODE],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    expected = count(tree)
    while len(os.listdir(folder)) < expected:
        time.sleep(0.01)
    print(f"ready {expected}", flush=True)
    if exit_when == "now":
        return
    if exit_when == "stdin":
        sys.stdin.read()
        return
    while True:
        time.sleep(1000)


if __name__ == "__main__":
    main()

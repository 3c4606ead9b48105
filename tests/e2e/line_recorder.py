"""Run a CLI with every line it reads and writes recorded, with the time: ``python line_recorder.py LOG BIN ARGS...``.

Why: a test of "the prompt was written to the CLI before the warm-up was answered" needs the order of what went in
and what came out of the real CLI, on the same clock as the model server's request log. The lines are relayed
unchanged; the recorder exits with the CLI's exit code. Each record is one JSON line: ``{"dir": "in"|"out",
"time": <unix seconds>, "line": <the line>}``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO


def record(log: IO[str], lock: threading.Lock, direction: str, line: bytes) -> None:
    """Append one record (flushed at once: the test reads the log while the CLI runs)."""
    text = line.decode("utf-8", "replace").rstrip("\n")
    with lock:
        log.write(json.dumps({"dir": direction, "time": time.time(), "line": text}) + "\n")
        log.flush()


def main(argv: list[str]) -> int:
    log_path, command = Path(argv[0]), argv[1:]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    lock = threading.Lock()
    with log_path.open("a") as log:

        def relay_in() -> None:
            assert child.stdin is not None
            for line in sys.stdin.buffer:
                record(log, lock, "in", line)
                try:
                    child.stdin.write(line)
                    child.stdin.flush()
                except BrokenPipeError:
                    break
            child.stdin.close()

        threading.Thread(target=relay_in, daemon=True).start()
        for line in child.stdout:
            record(log, lock, "out", line)
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Fake TUI-ish agent for PTY mode.

usage: pty_probe.py [--raw]

Prints "isatty=<bool>", "term=<TERM>", "size=<cols>x<rows>", a line wrapped
in ANSI colour/OSC/charset sequences ("\\x1b[31mred\\x1b[0m text"), a
carriage-return progress line ending "progress 100%", then "ready".
Afterwards echoes each input line as "input:<line>" and prints "got-sigint"
on SIGINT; prints "eof" and exits at end of input.
--raw turns ISIG off (like a TUI): Ctrl-C/Ctrl-Z then arrive as bytes and
are reported as "key-ctrl-c"/"key-ctrl-z" instead of becoming signals.
"""
import os
import shutil
import signal
import sys
import termios


def on_int(signum, frame):
    print("got-sigint", flush=True)


signal.signal(signal.SIGINT, on_int)
raw = "--raw" in sys.argv[1:]
if raw and sys.stdin.isatty():
    attrs = termios.tcgetattr(0)
    attrs[3] &= ~termios.ISIG
    termios.tcsetattr(0, termios.TCSANOW, attrs)
size = shutil.get_terminal_size((0, 0))
print(f"isatty={sys.stdout.isatty()}")
print(f"term={os.environ.get('TERM', '')}")
print(f"size={size.columns}x{size.lines}")
print("\x1b]0;window title\x07\x1b(B\x1b[1;31mred\x1b[0m \x1b[38;5;202mtext\x1b[m\x1b[K")
print("progress 10%\rprogress 50%\r\x1b[2Kprogress 100%")
print("ready", flush=True)
keys = {"\x03": "key-ctrl-c", "\x1a": "key-ctrl-z"}
while True:
    try:
        line = sys.stdin.readline()
    except KeyboardInterrupt:
        continue
    if not line:
        break
    for k, name in keys.items():
        if k in line:
            print(name, flush=True)
            line = line.replace(k, "")
    if line.strip("\r\n"):
        print("input:" + line.rstrip("\r\n"), flush=True)
print("eof", flush=True)
